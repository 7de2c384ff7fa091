#include "memwall/plan/train_search.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/plan/inference_search.h"
#include "memwall/train/memory.h"
#include "memwall/train/setup.h"

namespace memwall::plan {
namespace {

std::vector<int> gpu_counts(int per_node, int max_gpus) {
  std::vector<int> out;
  for (int64_t base = 1; base * per_node <= max_gpus; base *= 2) {
    out.push_back(static_cast<int>(base * per_node));
    if (base >= 2 && base * 3 / 2 * per_node <= max_gpus && base * 3 / 2 != base) {
      out.push_back(static_cast<int>(base * 3 / 2 * per_node));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string describe_network(const Node& node, const Fabric* fabric, int gpus) {
  std::string s = fmt::format("{} ({} devices, {:.0f} GB/s per device per direction inside the node)",
                              node.id, node.devices, node.device_link_bandwidth_per_direction.value() / 1e9);
  if (gpus > node.devices && fabric) {
    s += fmt::format("; {} nodes on {} ({} x {:.0f} GB/s NICs per node, {}-tier, {:g}:1)",
                     (gpus + node.devices - 1) / node.devices, fabric->id, node.nics,
                     node.nic_bandwidth_per_direction.value() / 1e9, fabric->tiers, fabric->oversubscription);
  }
  return s;
}

}  // namespace

double parse_token_count(const std::string& s) {
  if (s.empty()) throw InputError("--tokens", s, "a count such as 2T, 300B, 1.5e12");
  double scale = 1;
  std::string t = s;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
  if (last == 'T' || last == 'B' || last == 'M' || last == 'K') {
    scale = last == 'T' ? 1e12 : last == 'B' ? 1e9 : last == 'M' ? 1e6 : 1e3;
    t.pop_back();
  }
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size() || !std::isfinite(v) || v <= 0 || v * scale > 1e16) {
    throw InputError("--tokens", s, "a positive count up to 1e16, e.g. 2T, 300B, 1.5e12");
  }
  return v * scale;
}

void TrainGoal::validate() const {
  require_positive(tokens, "--tokens");
  require_positive(days, "--days");
  if (days > 3650) throw InputError("--days", std::to_string(days), "at most 3650 days");
  if (budget_usd) require_positive(*budget_usd, "--budget");
  if (seq < 1 || seq > (int64_t{1} << 22)) throw InputError("--seq", std::to_string(seq), "1 to 4194304 tokens");
  require_positive(batch_tokens, "--batch-tokens");
  if (max_gpus < 1 || max_gpus > 1'000'000) throw InputError("--max-gpus", std::to_string(max_gpus), "1 to 1000000");
}

TrainSearchResult search_training(const ModelSpec& model, const TrainGoal& goal,
                                  const TrainSpace& space, const cost::CostOverrides& cost_options,
                                  const cost::PriceBook& prices) {
  goal.validate();
  cost_options.validate();
  TrainSearchResult result;
  const bool moe = model.is_moe();
  const score::EcosystemBook builtin_ecosystem =
      space.ecosystem ? score::EcosystemBook() : score::EcosystemBook::builtin();
  const score::EcosystemBook& ecosystem = space.ecosystem ? *space.ecosystem : builtin_ecosystem;
  for (const Accelerator* a : space.accelerators) {
    if (!vendor_allowed(*a, space.domestic_only, space.vendors)) continue;
    bool has_node = false;
    for (const Node* node : space.nodes) {
      if (to_lower(node->accelerator) != to_lower(a->id)) continue;
      has_node = true;
      const std::optional<Fabric> fabric =
          space.fabric ? std::optional<Fabric>(*space.fabric) : std::nullopt;
      train::TrainSetup setup;
      try {
        setup = train::make_setup(model, *a, *node, fabric);
      } catch (const std::exception& e) {
        result.rejected.push_back(fmt::format("{} ({}): {}", a->id, node->id, e.what()));
        continue;
      }
      const double pue = cost_options.pue ? *cost_options.pue : prices.facility().pue.value.value_or(setup.params.pue);
      setup.params.pue = pue;  // one PUE for energy and cost
      // fp8: the block-scaled recipe where the device has no MXFP8 tensor cores, MXFP8 on
      // Blackwell (both sizes of scale are tile-local).
      const Fp8Recipe fp8_recipe =
          a->arch.rfind("Blackwell", 0) == 0 ? train::Fp8Recipe::mxfp8 : train::Fp8Recipe::blockwise;
      std::vector<Precision> precisions;
      for (Precision p : space.precisions) {
        if (p != Precision::fp8_e4m3) {
          precisions.push_back(p);
        } else if (a->peak(p) && std::find(space.fp8_recipes.begin(), space.fp8_recipes.end(), fp8_recipe) !=
                                     space.fp8_recipes.end()) {
          precisions.push_back(p);
        }
      }
      if (precisions.empty()) {
        result.rejected.push_back(fmt::format("{} ({}): no precision asked for runs on it under the quality "
                                              "policy (fp8 {} not admitted or no fp8 peak)",
                                              a->id, node->id, to_string(fp8_recipe)));
        continue;
      }

      std::optional<TrainPlan> best;
      std::string why = "no configuration fits in memory";
      // The last configuration screened out for memory: its message is formatted only if it
      // ends up as the accelerator's reason (empty `why` then).
      std::optional<train::TrainConfig> memory_miss;
      for (int gpus : gpu_counts(node->devices, goal.max_gpus)) {
        std::optional<train::TrainEstimate> fastest;
        // The fastest configuration whose smallest step (mb x DP) is above the target batch,
        // timed at that step: reported when it would beat what fits the target.
        std::optional<train::TrainEstimate> fastest_over;
        for (int tp : {1, 2, 4, 8}) {
          if (tp > node->devices || tp > gpus) continue;
          // The estimator rejects these too; skipping them here saves an exception per config.
          if (model.heads % tp != 0) continue;
          for (int pp : {1, 2, 4, 8, 16, 32}) {
            if (pp > model.layers || tp * pp > gpus) continue;
            for (int cp : {1, 2}) {
              if (cp > 1 && goal.seq < 16384) continue;
              if (gpus % (tp * pp * cp) != 0) continue;
              const int dp = gpus / (tp * pp * cp);
              // EP up to the DP x CP ranks (DeepSeek-V3: 64 over 8 nodes; Megatron-Core takes the
              // expert-parallel ranks from DP x CP).
              for (int ep : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
                if (ep > 1 && (!moe || ep > dp * cp || (dp * cp) % ep != 0 ||
                               model.moe.experts % ep != 0))
                  continue;
                for (int vpp : {1, 2}) {
                  if (vpp > 1 && pp == 1) continue;
                  if (pp * vpp > model.layers) continue;  // uneven splits are the estimator's
                  for (int64_t mb : {1, 2, 4}) {
                    const double target = goal.batch_tokens / static_cast<double>(goal.seq);
                    const int64_t unit = mb * dp;
                    // The global batch stays within the target: whole multiples of mb x DP not
                    // above it. A configuration whose smallest step is larger needs a larger
                    // batch than asked and is only reported as such.
                    int64_t global =
                        static_cast<int64_t>(std::floor(target / static_cast<double>(unit))) * unit;
                    const bool over = global < 1;
                    if (over) global = unit;
                    // MoE with an even pipeline: DualPipe (DeepSeek-V3) hides the all-to-all and
                    // pipeline transfers behind compute; tried beside 1F1B.
                    const bool dualpipe_ok = moe && pp >= 2 && pp % 2 == 0 && vpp == 1;
                    for (const train::Schedule schedule :
                         {train::Schedule::one_f_one_b, train::Schedule::dualpipe}) {
                    if (schedule == train::Schedule::dualpipe && !dualpipe_ok) continue;
                    for (Precision p : precisions) {
                      // Pruning (provable when step time is non-decreasing in the recompute level
                      // and in the ZeRO stage, as both only add work or communication): for each
                      // recompute level only the lowest ZeRO stage that fits can be fastest, and
                      // once a level fits at ZeRO-1 no higher level can beat it.
                      bool done = false;
                      for (auto rc : {train::Recompute::none, train::Recompute::selective, train::Recompute::full}) {
                        if (done) break;
                        for (int zero : {1, 2, 3}) {
                          train::TrainConfig c;
                          c.gpus = gpus;
                          c.tp = tp;
                          c.pp = pp;
                          c.cp = cp;
                          c.ep = ep;
                          c.vpp = vpp;
                          c.micro_batch = mb;
                          c.global_batch = global;
                          c.seq = goal.seq;
                          c.precision = p;
                          c.recompute = rc;
                          c.zero = zero;
                          c.sequence_parallel = tp > 1;
                          c.schedule = schedule;
                          if (p != Precision::bf16) c.fp8_recipe = fp8_recipe;
                          ++result.configurations;
                          try {
                            // Screened on memory first: most configurations the search builds
                            // do not fit, and estimate_training rejects them with an exception
                            // and a formatted message (two thirds of the search's time).
                            if (!train::memory_per_gpu(setup, c).fits()) {
                              memory_miss = c;
                              why.clear();
                              continue;
                            }
                            train::TrainEstimate e = train::estimate_training(setup, c);
                            auto& keep = over ? fastest_over : fastest;
                            if (!keep || e.tokens_per_s > keep->tokens_per_s) keep = std::move(e);
                            if (zero == 1) done = true;
                            break;  // higher ZeRO stages at this recompute level are not faster
                          } catch (const InfeasibleError& e) {
                            why = e.what();
                          } catch (const InputError& e) {
                            why = e.what();
                          }
                        }
                      }
                    }
                    }
                  }
                }
              }
            }
          }
        }
        if (fastest_over && (!fastest || fastest_over->tokens_per_s > fastest->tokens_per_s)) {
          const train::TrainConfig& o = fastest_over->config;
          result.larger_batch.push_back(fmt::format(
              "{} ({}), {} GPUs: {:.0f} tokens/s (MFU {:.0f}%) with TP{} PP{} DP{} mb{} needs a "
              "global batch of {} sequences ({:.3g} tokens), above the {:.3g}-token target{}",
              a->id, node->id, gpus, fastest_over->tokens_per_s, 100 * fastest_over->mfu, o.tp,
              o.pp, o.dp, o.micro_batch, o.global_batch,
              double(o.global_batch) * double(goal.seq), goal.batch_tokens,
              fastest ? fmt::format(" (within it: {:.0f} tokens/s)", fastest->tokens_per_s)
                      : std::string(" (nothing runs within it)")));
        }
        if (!fastest) continue;
        const train::TrainRun run = train::train_run(setup, *fastest, goal.tokens, std::nullopt);
        const double days = run.time.value() / 86400.0;
        if (days > goal.days) {
          why = fmt::format("{} GPUs need {:.1f} days > {:g} (MFU {:.0f}%)", gpus, days, goal.days,
                            100 * fastest->mfu);
          continue;
        }
        TrainPlan plan;
        plan.accelerator = a;
        plan.node = node;
        plan.config = fastest->config;
        plan.tokens_per_s = fastest->tokens_per_s;
        plan.mfu = fastest->mfu;
        plan.breakdown = fastest->breakdown;
        plan.days = days;
        plan.gpu_hours = run.gpu_hours;
        plan.energy_kwh = run.energy_kwh;
        plan.memory_per_gpu = fastest->memory.total();
        plan.device = cost::device_hour_cost(*a, prices, cost_options, fastest->busy_fraction, node);
        if (plan.device.total) plan.cost_usd = plan.device.total->value() * run.gpu_hours;
        plan.servers = (gpus + node->devices - 1) / node->devices;
        // Energy from the cost side's power (the node's wall power or TDP + host share) when known.
        if (plan.device.facility_power) plan.energy_kwh = plan.device.facility_power->value() * run.gpu_hours / 1e3;
        if (plan.device.energy) plan.energy_usd = plan.device.energy->value() * run.gpu_hours;
        if (plan.device.board_power && plan.device.board_power->value() > 0)
          plan.tokens_per_joule = goal.tokens / (plan.device.board_power->value() * run.gpu_hours * 3600.0);
        {
          const SoftwareFit fit = stack_fit(*a, fastest->config.precision, ecosystem);
          plan.ecosystem = fit.ecosystem;
          plan.ecosystem_summary = fit.ecosystem_reasons.empty() ? "" : fit.ecosystem_reasons.front();
          plan.risks = fit.risks;
          plan.efficiency_calibrated = fit.efficiency_calibrated;
          plan.efficiency_source = fit.efficiency_source;
        }
        plan.network = describe_network(*node, space.fabric, gpus);
        if (goal.budget_usd && (!plan.cost_usd || *plan.cost_usd > *goal.budget_usd)) {
          why = plan.cost_usd ? fmt::format("{} GPUs cost ${:.0f} > budget ${:.0f}", gpus, *plan.cost_usd, *goal.budget_usd)
                              : "cost unknown under --budget: missing " +
                                    fmt::format("{}", fmt::join(plan.device.unknown, ", "));
          continue;
        }
        if (space.min_ecosystem && (!plan.ecosystem || *plan.ecosystem < *space.min_ecosystem)) {
          why = plan.ecosystem ? fmt::format("ecosystem {:.1f}/10 < --min-ecosystem {:g}", *plan.ecosystem, *space.min_ecosystem)
                               : "ecosystem unknown under --min-ecosystem";
          continue;
        }
        if (space.risk_averse && !plan.risks.empty()) {
          why = "--risk-averse: " + plan.risks.front();
          continue;
        }
        // Cheapest wins; without a price, the fewest GPU-hours.
        const auto key = [](const TrainPlan& t) { return t.cost_usd ? *t.cost_usd : t.gpu_hours; };
        if (!best || key(plan) < key(*best)) best = std::move(plan);
      }
      if (!best) {
        if (why.empty() && memory_miss) {
          try {
            train::estimate_training(setup, *memory_miss);
          } catch (const std::exception& e) {
            why = e.what();
          }
        }
        if (why.empty()) why = "no configuration fits in memory";
        result.rejected.push_back(fmt::format("{} ({}): {}", a->id, node->id, why));
        continue;
      }
      if (space.cheaper_fabric && best->config.gpus > node->devices) {
        try {
          const train::TrainSetup cheap = train::make_setup(model, *a, *node, *space.cheaper_fabric);
          const train::TrainEstimate e = train::estimate_training(cheap, best->config);
          best->cheaper_network_days = goal.tokens / e.tokens_per_s / 86400.0;
        } catch (const std::exception&) {
          // the same configuration cannot run on the cheaper network: left unknown
        }
      }
      result.plans.push_back(std::move(*best));
    }
    if (!has_node) result.rejected.push_back(a->id + ": no node of it in the catalog (training needs one)");
  }
  std::stable_sort(result.plans.begin(), result.plans.end(), [](const TrainPlan& x, const TrainPlan& y) {
    if (x.cost_usd.has_value() != y.cost_usd.has_value()) return x.cost_usd.has_value();
    if (x.cost_usd) return *x.cost_usd < *y.cost_usd;
    return x.gpu_hours < y.gpu_hours;
  });
  for (size_t i = 1; i < result.plans.size(); ++i) {
    const auto& p = result.plans[i - 1].cost_usd;
    const auto& c = result.plans[i].cost_usd;
    if (p && c && *c <= *p * 1.02) result.plans[i].near_tie = true;
  }
  return result;
}

}  // namespace memwall::plan
