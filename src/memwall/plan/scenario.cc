#include "memwall/plan/scenario.h"

#include <algorithm>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/plan/quality_filter.h"
#include "memwall/plan/train_search.h"
#include "memwall/plan/vendors.h"
#include "memwall/quality/policy.h"

namespace memwall::plan {
namespace {

DecidingWall from_binding(BindingWall w) {
  switch (w) {
    case BindingWall::memory_capacity: return DecidingWall::memory_capacity;
    case BindingWall::memory_bandwidth: return DecidingWall::memory_bandwidth;
    case BindingWall::compute: return DecidingWall::compute;
    case BindingWall::interconnect: return DecidingWall::interconnect;
    case BindingWall::overhead: return DecidingWall::overhead;
    case BindingWall::load: return DecidingWall::load;
    case BindingWall::engine_limit: return DecidingWall::engine_limit;
    case BindingWall::latency: return DecidingWall::latency;
    case BindingWall::unknown: return DecidingWall::unknown;
  }
  return DecidingWall::unknown;
}

// An inference row with no plan: the stage its closest shape reached (plan/rejections.h). Memory:
// the weights and one sequence's KV do not fit; support: the stack runs none of the formats; SLA:
// even one sequence misses it, TTFT through prompt compute, TPOT through streaming the weights at
// batch 1; constraint: the deployment needs more devices than a plan may have.
DecidingWall from_rejection(const ShapeVerdict& v) {
  switch (v.stage) {
    case RejectionStage::memory: return DecidingWall::memory_capacity;
    case RejectionStage::support: return DecidingWall::ecosystem;
    case RejectionStage::sla:
      return v.reason.find("TTFT") != std::string::npos ? DecidingWall::compute : DecidingWall::memory_bandwidth;
    case RejectionStage::constraint: return DecidingWall::scale;
    default: return DecidingWall::unknown;
  }
}

// A training run's wall: the largest share of its step (train::StepBreakdown). Compute = kernels,
// optimizer and host work; interconnect = every exposed collective; memory capacity = the
// recomputation and pipeline bubble the run pays to fit the model in device memory.
DecidingWall training_wall(const train::StepBreakdown& b, std::string* basis) {
  const double compute = (b.compute + b.optimizer + b.host_overhead).value();
  const double comm = (b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm).value();
  const double memory = (b.recompute + b.bubble).value();
  const double total = b.total().value();
  if (total > 0)
    *basis = fmt::format(
        "a step of {:.2f} s: compute {:.0f}%, exposed communication {:.0f}%, recomputation and pipeline "
        "bubble {:.0f}% (paid to fit memory)",
        total, 100 * compute / total, 100 * comm / total, 100 * memory / total);
  if (comm >= compute && comm >= memory) return DecidingWall::interconnect;
  if (memory >= compute) return DecidingWall::memory_capacity;
  return DecidingWall::compute;
}

// Ecosystem decides before the hardware when the stack cannot run the workload or is immature.
DecidingWall deciding(DecidingWall hardware, const std::optional<double>& ecosystem) {
  if (hardware == DecidingWall::ecosystem) return hardware;
  if (!ecosystem || *ecosystem < kMatureEcosystem) return DecidingWall::ecosystem;
  return hardware;
}

ScenarioRow row_of(const Accelerator& a, const score::EcosystemBook& ecosystem) {
  ScenarioRow r;
  r.accelerator = &a;
  r.domestic = is_domestic_vendor(a.vendor);
  const score::EcosystemScore e = score::score_ecosystem(a, ecosystem);
  r.ecosystem = e.score;
  r.porting = e.porting.effort;
  return r;
}

std::vector<ScenarioRow> inference_rows(const Catalog& catalog, const cost::PriceBook& prices,
                                        const score::EcosystemBook& ecosystem, const ScenarioPreset& p,
                                        CompareQuery q) {
  q.model = p.model;
  q.rate.reset();
  q.concurrency = p.concurrency;
  q.input = p.input;
  q.output = p.output;
  q.sla = p.sla;
  const CompareAnswer a = answer_compare(catalog, prices, ecosystem, q);
  std::vector<ScenarioRow> rows;
  for (size_t i : a.order) {
    const auto& s = a.comparison.rows[i];
    ScenarioRow r = row_of(*s.accelerator, ecosystem);
    r.feasible = s.evidence.feasible;
    r.usd_per_million_tokens = s.evidence.usd_per_million_tokens;
    r.devices = s.evidence.devices;
    if (r.feasible) {
      r.hardware_wall = from_binding(a.comparison.best_plans[i].wall);
      r.basis = a.comparison.best_plans[i].binding;
    } else {
      const auto& why = a.comparison.rejections[i];
      r.hardware_wall = why ? from_rejection(*why) : DecidingWall::unknown;
      r.basis = s.evidence.infeasible_reason;
    }
    r.wall = deciding(r.hardware_wall, r.ecosystem);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<ScenarioRow> training_rows(const Catalog& catalog, const cost::PriceBook& prices,
                                       const score::EcosystemBook& ecosystem, const ScenarioPreset& p,
                                       const CompareQuery& q) {
  const ModelSpec model = catalog.model(p.model);
  TrainGoal goal;
  goal.tokens = p.tokens;
  goal.days = p.days;
  goal.max_gpus = q.max_gpus.value_or(p.max_gpus);
  if (goal.max_gpus < 1) throw InputError("max_gpus", std::to_string(goal.max_gpus), "a positive count");
  goal.validate();
  TrainSpace space;
  require_some_allowed(accelerators_named(catalog, q.gpus), q.domestic_only, q.vendors);
  space.accelerators = filter_vendors(accelerators_named(catalog, q.gpus), q.domestic_only, q.vendors);
  for (const auto& n : catalog.nodes()) space.nodes.push_back(&n);
  space.fabric = &catalog.fabric("ib-ndr");
  space.ecosystem = &ecosystem;
  // The quality floor `plan train` applies by default (near-lossless, docs/plan.md "Model quality").
  apply_training_quality(model, quality::parse_quality_policy(q.quality, q.min_recovery),
                         quality::QualityTable::builtin(), space.precisions, space.fp8_recipes);
  cost::CostOverrides cost;
  cost.basis = cost::parse_pricing_basis(q.pricing);
  cost.price_per_gpu_hour = q.price_per_gpu_hour;
  cost.electricity_usd_per_kwh = q.electricity;
  cost.pue = q.pue;
  cost.life_years = q.life_years;
  cost.validate();
  const TrainSearchResult r = search_training(model, goal, space, cost, prices);
  std::vector<ScenarioRow> rows;
  std::vector<const Accelerator*> done;
  for (const auto& plan : r.plans) {  // cheapest first; one row per accelerator (its cheapest node)
    if (std::find(done.begin(), done.end(), plan.accelerator) != done.end()) continue;
    done.push_back(plan.accelerator);
    ScenarioRow row = row_of(*plan.accelerator, ecosystem);
    row.feasible = true;
    row.run_usd = plan.cost_usd;
    row.run_days = plan.days;
    row.devices = plan.config.gpus;
    std::string step;
    row.hardware_wall = training_wall(plan.breakdown, &step);
    row.basis = fmt::format("{} GPUs ({}) for {:.1f} days at MFU {:.0f}%; {}", plan.config.gpus,
                            plan.node ? plan.node->id : "", plan.days, 100 * plan.mfu, step);
    row.wall = deciding(row.hardware_wall, row.ecosystem);
    rows.push_back(std::move(row));
  }
  for (const Accelerator* a : space.accelerators) {
    if (std::find(done.begin(), done.end(), a) != done.end()) continue;
    ScenarioRow row = row_of(*a, ecosystem);
    // The planner's reason ("id (node): why"): a deadline missed at the largest cluster is the
    // chip's compute throughput; a configuration that never fits is its memory.
    for (const auto& why : r.rejected)
      if (why.rfind(a->id + " (", 0) == 0 || why.rfind(a->id + ":", 0) == 0) {
        const size_t colon = why.find(": ");
        row.basis = colon == std::string::npos ? why : why.substr(colon + 2);
        break;
      }
    row.hardware_wall = row.basis.find("days >") != std::string::npos ? DecidingWall::compute
                        : row.basis.find("fit") != std::string::npos  ? DecidingWall::memory_capacity
                                                                      : DecidingWall::unknown;
    if (row.basis.empty()) row.basis = "no training run planned";
    row.wall = deciding(row.hardware_wall, row.ecosystem);
    rows.push_back(std::move(row));
  }
  return rows;
}

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

std::string_view to_string(DecidingWall w) {
  switch (w) {
    case DecidingWall::memory_capacity: return "memory capacity";
    case DecidingWall::memory_bandwidth: return "memory bandwidth";
    case DecidingWall::compute: return "compute";
    case DecidingWall::interconnect: return "interconnect";
    case DecidingWall::ecosystem: return "ecosystem";
    case DecidingWall::overhead: return "overhead";
    case DecidingWall::load: return "load";
    case DecidingWall::engine_limit: return "engine limit";
    case DecidingWall::latency: return "TPOT target";
    case DecidingWall::scale: return "scale";
    case DecidingWall::unknown: return "unknown";
  }
  return "unknown";
}

// docs/compare.md "Scenarios" gives the reasons behind each number.
const std::vector<ScenarioPreset>& scenario_presets() {
  static const std::vector<ScenarioPreset> presets = [] {
    std::vector<ScenarioPreset> out;
    auto inference = [&out](const char* name, const char* model, const char* why, double concurrency,
                            const char* input, const char* output, const char* sla) {
      ScenarioPreset p;
      p.name = name;
      p.model = model;
      p.why = why;
      p.concurrency = concurrency;
      p.input = input;
      p.output = output;
      p.sla = sla;
      out.push_back(std::move(p));
    };
    inference("chat", "qwen2.5-72b",
              "an interactive assistant: ShareGPT conversation lengths, 300 users at once, the reply starting "
              "within 1 s and streaming at 20 tokens/s or faster",
              300, "sharegpt", "sharegpt", "ttft_p99=1,tpot_p99=0.05");
    inference("long-context", "llama-3.1-70b",
              "questions over whole documents or code bases: 100000-token prompts (within the model's "
              "131072-token window), 16 users at once, a first token within 30 s and 10 tokens/s after it",
              16, "100000", "1000", "ttft_p99=30,tpot_p99=0.1");
    inference("batch", "qwen2.5-72b",
              "offline batch work (summaries, extraction, synthetic data): 2000 sequences in flight, 2000-token "
              "inputs and 500-token outputs, a loose SLA (TTFT 60 s, TPOT 200 ms): cost per token decides",
              2000, "2000", "500", "ttft_p99=60,tpot_p99=0.2");
    ScenarioPreset train;
    train.name = "training";
    train.model = "llama-3.1-70b";
    train.training = true;
    train.why = "continued pre-training of a 70B model on 1T tokens within 30 days on at most 2048 devices";
    train.tokens = 1e12;
    train.days = 30;
    train.max_gpus = 2048;
    out.push_back(train);
    return out;
  }();
  return presets;
}

const ScenarioPreset& scenario_preset(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& p : scenario_presets()) {
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  std::string allowed;
  for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
  throw InputError("--scenario", name, allowed);
}

ScenarioAnswer answer_scenario(const Catalog& catalog, const cost::PriceBook& prices,
                               const score::EcosystemBook& ecosystem, const std::string& scenario,
                               const CompareQuery& filters) {
  ScenarioAnswer out;
  out.preset = scenario_preset(scenario);
  out.rows = out.preset.training ? training_rows(catalog, prices, ecosystem, out.preset, filters)
                                 : inference_rows(catalog, prices, ecosystem, out.preset, filters);
  return out;
}

Json to_json(const ScenarioAnswer& a) {
  const auto& p = a.preset;
  Json workload = p.training ? Json{{"model", p.model}, {"tokens", p.tokens}, {"days", p.days}, {"max_gpus", p.max_gpus}}
                             : Json{{"model", p.model},   {"concurrency", p.concurrency}, {"input", p.input},
                                    {"output", p.output}, {"sla", p.sla}};
  Json rows = Json::array();
  int rank = 0;
  for (const auto& r : a.rows) {
    rows.push_back({{"rank", ++rank},
                    {"accelerator", r.accelerator->id},
                    {"vendor", r.accelerator->vendor},
                    {"domestic", r.domestic},
                    {"feasible", r.feasible},
                    {"usd_per_million_tokens", opt(r.usd_per_million_tokens)},
                    {"run_usd", opt(r.run_usd)},
                    {"run_days", opt(r.run_days)},
                    {"devices", r.devices},
                    {"wall", std::string(to_string(r.wall))},
                    {"hardware_wall", std::string(to_string(r.hardware_wall))},
                    {"basis", r.basis},
                    {"ecosystem", opt(r.ecosystem)},
                    {"porting", std::string(score::to_string(r.porting))}});
  }
  return {{"scenario", p.name}, {"why", p.why}, {"training", p.training}, {"workload", workload}, {"rows", rows}};
}

}  // namespace memwall::plan
