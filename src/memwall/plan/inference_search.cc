#include "memwall/plan/inference_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/infer/estimate.h"
#include "memwall/perf/efficiency.h"
#include "memwall/plan/disaggregated.h"
#include "memwall/plan/in_flight.h"

namespace memwall::plan {

std::vector<const Accelerator*> accelerators_named(const Catalog& catalog,
                                                   const std::vector<std::string>& names) {
  std::vector<const Accelerator*> out;
  if (names.empty()) {
    for (const auto& acc : catalog.accelerators()) out.push_back(&acc);
    return out;
  }
  for (const auto& name : names) {
    const Accelerator* acc = &catalog.accelerator(name);
    if (std::find(out.begin(), out.end(), acc) == out.end()) out.push_back(acc);
  }
  return out;
}
namespace {

// Every row of one ranking on one boundary (docs/cost.md "One boundary per ranking"): a card in
// no node has no host, so its owned price and its wall power are unknown rather than board-only.
cost::DeploymentCost ranked_cost(const Accelerator& a, int devices, double generated_tokens_per_s,
                                 double utilisation, const cost::PriceBook& book,
                                 const cost::CostOverrides& o, const Node* node) {
  cost::DeploymentCost c =
      cost::deployment_cost(a, devices, generated_tokens_per_s, utilisation, book, o, node);
  if (!node) cost::without_host(c, a.id);
  return c;
}

double gb(Bytes b) { return b.value() / 1e9; }

// One replica's step times, each distinct iteration timed once (an exact memo: step_time is a
// function of the deployment and the batch). Within a search the bisection, the throughput
// samples, the plans and the disaggregated pairing ask for the same few iterations of a shape (a
// mean prompt alone, b decodes) again and again. Kept to the search: the memo lives as long as its
// ReplicaModel, and verify_plan's simulator, whose iterations rarely repeat, builds its own.
struct StepKey {
  int64_t prefill_tokens;
  int prefill_sequences;
  double prefill_attended_pairs;
  int decode_sequences;
  int64_t decode_context_tokens;
  bool operator==(const StepKey&) const = default;
};
struct StepKeyHash {
  size_t operator()(const StepKey& k) const {
    size_t h = std::hash<int64_t>()(k.prefill_tokens);
    for (size_t v : {std::hash<int>()(k.prefill_sequences), std::hash<double>()(k.prefill_attended_pairs),
                     std::hash<int>()(k.decode_sequences), std::hash<int64_t>()(k.decode_context_tokens)})
      h = h * 1000003u ^ v;  // FNV-style mixing
    return h;
  }
};
void memoise_steps(ReplicaModel& rm) {
  auto memo = std::make_shared<std::unordered_map<StepKey, Seconds, StepKeyHash>>();
  rm.step = [memo, step = std::move(rm.step)](const infer::StepBatch& b) {
    const StepKey key{b.prefill_tokens, b.prefill_sequences, b.prefill_attended_pairs, b.decode_sequences,
                      b.decode_context_tokens};
    if (auto it = memo->find(key); it != memo->end()) return it->second;
    const Seconds t = step(b);
    memo->emplace(key, t);
    return t;
  };
}

// The most devices one plan may deploy: the bound train applies to --gpus (train/estimate.cc,
// "gpus <= 16M"). Device counts are computed in floating point and checked against it before
// they become the int of a Plan, so a fleet beyond it is a rejection with its size, never an
// overflow (1e8 users once gave "devices: value '-1094967296'").
constexpr double kMaxPlanDevices = 1 << 24;

// Empty when `replicas` replicas of `per_replica` devices are within kMaxPlanDevices, else why not.
std::string beyond_device_bound(double replicas, int per_replica) {
  const double devices = replicas * per_replica;
  if (devices <= kMaxPlanDevices) return {};
  return fmt::format(
      "needs {:.0f} replicas x {} devices = {:.4g} devices, beyond the {:.0f}-device "
      "bound of a plan",
      replicas, per_replica, devices, kMaxPlanDevices);
}

// The one-sentence explanation of what limits a plan (docs/plan.md "Binding wall"): memory
// capacity when the batch is capped by KV space, otherwise the SLA term that the next sequence
// would break and the largest share of the decode iteration (memory traffic, compute, exposed
// communication or fixed overhead) from the estimator's breakdown.
std::string binding_sentence(const Plan& p, const ReplicaModel& rm, int best, int fit_batch,
                             int max_batch, const std::string& next_failure, const Requirements& r,
                             double context) {
  const Accelerator& a = *p.shape.accelerator;
  const int n = p.shape.devices();
  const Bytes kv = r.kv_bytes_per_token * (best * context);
  if (rm.max_num_seqs > 0 && best >= rm.max_num_seqs && best < fit_batch) {
    return fmt::format(
        "the engine's limit binds: {} sequences per replica is its max_num_seqs (TPOT {:.1f} ms, "
        "TTFT p99 {:.2f} s); {} sequences would fit in memory",
        best, p.point.tpot.value() * 1e3, p.point.ttft_p99.value(), fit_batch);
  }
  if (best >= max_batch && best < fit_batch) {
    return fmt::format(
        "the load binds, not the hardware: all {} sequences fit on one replica within the SLA "
        "(TPOT {:.1f} ms, TTFT p99 {:.2f} s); {} sequences would fit in memory",
        best, p.point.tpot.value() * 1e3, p.point.ttft_p99.value(), fit_batch);
  }
  if (best >= fit_batch) {
    return fmt::format(
        "memory capacity binds: {:.1f} GB of weights leave room for only {} sequences of {:.0f} "
        "tokens ({:.1f} GB of KV at {:.0f} KB/token) on {} x {:.0f} GiB; the SLA would allow more",
        gb(r.weights), best, context, gb(kv), r.kv_bytes_per_token.value() / 1e3, n,
        a.memory ? a.memory->value() / (1024.0 * 1024 * 1024) : 0.0);
  }
  const double step_ms = rm.step(decode_batch(best, context)).value() * 1e3;
  if (next_failure.rfind("TTFT", 0) == 0 || next_failure.rfind("prefill", 0) == 0) {
    return fmt::format(
        "prefill binds: prompts take {:.0f}% of each replica's time, so a p99 prompt waits and "
        "runs {:.2f} s; one more sequence per replica gives {}",
        100 * p.point.prefill_share, p.point.ttft_p99.value(), next_failure);
  }
  std::string wall = fmt::format("a decode step over {} sequences takes {:.1f} ms", best, step_ms);
  if (rm.breakdown) {
    const StepShares s = rm.breakdown(decode_batch(best, context));
    const double mem = s.memory.value(), cmp = s.compute.value(), com = s.communication.value(),
                 ovh = s.overhead.value();
    const double top = std::max({mem, cmp, com, ovh});
    const double peak = a.memory_bandwidth ? a.memory_bandwidth->value() : 0.0;
    if (top == mem) {
      wall = fmt::format(
          "decode is memory-bandwidth-bound: {:.1f} ms of the {:.1f} ms step stream {:.1f} GB per "
          "device (weights {:.1f} GB + KV {:.1f} GB over {} devices) against {:.2f} TB/s peak each",
          mem * 1e3, step_ms, s.bytes_moved.value() / 1e9, gb(r.weights), gb(kv), n, peak / 1e12);
    } else if (top == cmp) {
      wall = fmt::format("decode is compute-bound: {:.1f} ms of the {:.1f} ms step is matmul work at batch {}",
                         cmp * 1e3, step_ms, best);
    } else if (top == com) {
      wall = fmt::format(
          "the interconnect binds: exposed tensor/pipeline communication is {:.1f} ms of the {:.1f} "
          "ms step on {}",
          com * 1e3, step_ms, p.shape.node ? p.shape.node->id : "this node");
    } else {
      wall = fmt::format(
          "fixed per-step overhead binds: kernel launches and engine work are {:.1f} ms of the "
          "{:.1f} ms step (memory {:.1f} ms, compute {:.1f} ms)",
          ovh * 1e3, step_ms, mem * 1e3, cmp * 1e3);
    }
  }
  return wall + "; one more sequence per replica gives " + next_failure;
}

}  // namespace

SoftwareFit stack_fit(const Accelerator& a, Precision matmul, const score::EcosystemBook& ecosystem) {
  SoftwareFit fit;
  const score::EcosystemScore eco = score::score_ecosystem(a, ecosystem);
  fit.ecosystem = eco.score;
  if (eco.score) {
    fit.ecosystem_reasons.push_back(fmt::format("{:.1f}/10 on {}", *eco.score, eco.stack.empty() ? a.vendor : eco.stack));
    for (const auto& m : eco.missing) fit.ecosystem_reasons.push_back("no " + m + " support found");
    if (*eco.score < kMatureEcosystem)
      fit.risks.push_back(fmt::format("immature stack: ecosystem {:.1f}/10 < {:g}", *eco.score, kMatureEcosystem));
  } else {
    fit.ecosystem_reasons.push_back("no sourced software facts for " + a.vendor);
    fit.risks.push_back("immature stack: ecosystem unknown (no sourced software facts for " + a.vendor + ")");
  }
  const perf::EfficiencyPrior prior = perf::efficiency_for(perf::default_efficiency(), a, matmul);
  fit.efficiency_calibrated = prior.calibrated;
  fit.efficiency_source = prior.source;
  return fit;
}

SoftwareFit software_fit(const Accelerator& a, Precision weights, Precision kv, const Constraints& c,
                         const SupportMatrix& support, const score::EcosystemBook& ecosystem) {
  SoftwareFit fit;
  // The engine: the requested one, else the first (kEngineIds order) that runs both formats, else
  // the first that runs neither into "unsupported".
  std::vector<std::string> engines = c.engine.empty() ? support.engines_for(a) : std::vector{c.engine};
  if (engines.empty()) engines.push_back("");
  std::optional<std::pair<SupportVerdict, SupportVerdict>> chosen;
  int chosen_rank = -1;
  for (const auto& eng : engines) {
    SupportVerdict w = eng.empty() ? support.weights(a, weights) : support.weights(a, weights, eng);
    SupportVerdict k = eng.empty() ? support.kv(a, kv) : support.kv(a, kv, eng);
    const auto level = [](const SupportVerdict& v) {
      return v.level == SupportLevel::supported ? 2 : v.level == SupportLevel::unknown ? 1 : 0;
    };
    const int r = std::min(level(w), level(k)) * 3 + level(w) + level(k);
    if (r > chosen_rank) {
      chosen_rank = r;
      chosen = std::make_pair(std::move(w), std::move(k));
    }
  }
  const SupportVerdict& w = chosen->first;
  const SupportVerdict& k = chosen->second;
  for (const SupportVerdict* v : {&w, &k}) {
    if (v->level == SupportLevel::unsupported) {
      fit.feasible = false;
      fit.why = "unsupported: " + v->describe();
      return fit;
    }
    fit.support.push_back(v->describe());
    if (v->level == SupportLevel::unknown) fit.risks.push_back("support unknown: " + v->describe());
  }
  fit.engine = w.level == SupportLevel::supported ? w.engine : k.engine;
  const Precision matmul = weights == Precision::fp8_e4m3 && a.supports(weights) ? weights : Precision::bf16;
  SoftwareFit stack = stack_fit(a, matmul, ecosystem);
  fit.ecosystem = stack.ecosystem;
  fit.ecosystem_reasons = std::move(stack.ecosystem_reasons);
  fit.risks.insert(fit.risks.end(), stack.risks.begin(), stack.risks.end());
  fit.efficiency_calibrated = stack.efficiency_calibrated;
  fit.efficiency_source = std::move(stack.efficiency_source);
  return fit;
}

Objective parse_objective(const std::string& s) {
  if (s == "cost") return Objective::cost;
  if (s == "capex") return Objective::capex;
  if (s == "power") return Objective::power;
  if (s == "gpus") return Objective::gpus;
  throw InputError("--objective", s, "cost, capex, power, gpus");
}

std::string to_string(Objective o) {
  switch (o) {
    case Objective::cost: return "cost";
    case Objective::capex: return "capex";
    case Objective::power: return "power";
    case Objective::gpus: return "gpus";
  }
  return "cost";
}

namespace {

// What the pairing of pools needs to know about one shape that ran through the estimator.
struct Candidate {
  ReplicaShape shape;
  ReplicaModel rm;
  int fit_batch = 0;   // decode sequences of the mean context that fit beside the weights
  int decode_cap = 0;  // at most this many per decode replica (memory, closed-loop users)
  std::optional<PoolLink> link;
  std::optional<PrefillProfile> prefill;  // set when one p99 prompt fits and TTFT can be met
  SoftwareFit software;
  // Cost of one device for one hour, linear in its utilisation u (cost/tco.h: board power is
  // linear in u and every priced term is linear in power): value(u) = at0 + u (at1 - at0).
  cost::DeploymentCost at0, at1;
  // Caches by decode batch (negative: not computed yet): the pairing asks for the same batches
  // of a decode shape once per prefill partner.
  mutable std::vector<double> decode_steps, activities;
  Seconds decode_step(int b, double context) const {
    double& t = slot(decode_steps, b);
    if (t < 0) t = rm.step(decode_batch(b, context)).value();
    return Seconds(t);
  }
  double activity(int b, double context) const {
    if (!rm.activity) return 1.0;
    double& a = slot(activities, b);
    if (a < 0) a = rm.activity(decode_batch(b, context));
    return a;
  }
  static double& slot(std::vector<double>& v, int b) {
    if (static_cast<size_t>(b) >= v.size()) v.resize(static_cast<size_t>(b) + 1, -1.0);
    return v[static_cast<size_t>(b)];
  }
};

template <class Q>
std::optional<double> lerp(const std::optional<Q>& at0, const std::optional<Q>& at1, double u) {
  if (!at0 || !at1) return std::nullopt;
  return at0->value() + u * (at1->value() - at0->value());
}

// The objective and the deployment-wide figures the constraints test, for `devices` devices of a
// candidate at utilisation u, without building the full cost record (linear model above).
struct PoolFigures {
  std::optional<double> per_hour, capex, tco, facility_w;
};
PoolFigures pool_figures(const Candidate& c, int devices, double u) {
  PoolFigures f;
  auto scale = [devices](std::optional<double> v) { return v ? std::optional<double>(*v * devices) : v; };
  f.per_hour = scale(lerp(c.at0.per_hour, c.at1.per_hour, u));
  f.capex = scale(lerp(c.at0.capex_total, c.at1.capex_total, u));
  f.tco = scale(lerp(c.at0.tco, c.at1.tco, u));
  f.facility_w = scale(lerp(c.at0.facility_power, c.at1.facility_power, u));
  return f;
}

std::optional<double> add(std::optional<double> a, std::optional<double> b) {
  return a && b ? std::optional<double>(*a + *b) : std::nullopt;
}

std::optional<double> objective_value(Objective o, const PoolFigures& f, int devices, double tokens_per_s) {
  switch (o) {
    case Objective::cost:
      return f.per_hour && tokens_per_s > 0 ? std::optional<double>(*f.per_hour / (tokens_per_s * 3600.0) * 1e6)
                                            : std::nullopt;
    case Objective::capex: return f.capex;
    case Objective::power: return f.facility_w;
    case Objective::gpus: return devices;
  }
  return std::nullopt;
}

// The first deployment-wide constraint broken (empty `why` when they all hold), with the figure
// over its limit (0 when the figure is unknown).
struct Violation {
  std::string why;
  double shortfall = 0;
};
Violation violated(const Constraints& c, int devices, const PoolFigures& f, double tco_years) {
  if (c.max_gpus && devices > *c.max_gpus)
    return {fmt::format("needs {} devices > --max-gpus {}", devices, *c.max_gpus),
            double(devices) / *c.max_gpus};
  if (c.power_cap_w) {
    if (!f.facility_w) return {"power unknown under --power-cap"};
    if (*f.facility_w > *c.power_cap_w)
      return {fmt::format("draws {:.1f} kW > --power-cap {:.1f} kW", *f.facility_w / 1e3, *c.power_cap_w / 1e3),
              *f.facility_w / *c.power_cap_w};
  }
  if (c.budget_usd) {
    if (!f.tco) return {"cost unknown under --budget"};  // finish_plan names the missing prices
    if (*f.tco > *c.budget_usd)
      return {fmt::format("costs ${:.0f} over {:.0f} years > --budget ${:.0f}", *f.tco, tco_years, *c.budget_usd),
              *f.tco / *c.budget_usd};
  }
  return {};
}

// Weights per device over the device's memory: how far a shape that does not fit is from fitting
// (an ordering key among rejections; the estimator's message carries the exact figures).
double memory_shortfall(const Requirements& r, const ReplicaShape& s) {
  const Accelerator& a = *s.accelerator;
  return a.memory && a.memory->value() > 0 ? r.weights.value() / s.devices() / a.memory->value() : 0.0;
}

// The worst latency of an operating point over its SLA target (infinite when it cannot hold).
double sla_shortfall(const OperatingPoint& p, const Sla& sla) {
  if (!p.stable) return std::numeric_limits<double>::infinity();
  double worst = std::max(p.tpot_p99 / sla.tpot_p99, p.ttft_p99 / sla.ttft_p99);
  if (sla.e2e_p99) worst = std::max(worst, p.e2e_p99 / *sla.e2e_p99);
  return worst;
}

template <class Q>
std::optional<double> value_of_opt(const std::optional<Q>& q) {
  return q ? std::optional<double>(q->value()) : std::nullopt;
}

PoolFigures figures_of(const cost::DeploymentCost& c) {
  return {value_of_opt(c.per_hour), value_of_opt(c.capex_total), value_of_opt(c.tco), value_of_opt(c.facility_power)};
}

}  // namespace

std::vector<std::string> explain_first(const InferenceSearchResult& r) {
  std::vector<std::string> out;
  if (r.plans.empty()) return out;
  const Plan& best = r.plans.front();
  auto usd = [](const Plan& p) {
    return p.cost.usd_per_million_tokens ? fmt::format("${:.3f}/M tokens", *p.cost.usd_per_million_tokens)
                                         : std::string("an unknown $/M tokens");
  };
  const Plan* other = nullptr;
  for (const auto& p : r.plans) {
    if (p.shape.accelerator != best.shape.accelerator) {
      other = &p;
      break;
    }
  }
  if (other && best.objective && other->objective && *other->objective > 0) {
    out.push_back(fmt::format("Cost: plan 1 ({}) ranks first at {}; the best plan on another accelerator, {}, "
                              "is {} ({:+.0f}%).",
                              best.describe(), usd(best), other->describe(), usd(*other),
                              100 * (*other->objective / *best.objective - 1)));
  } else {
    out.push_back(fmt::format("Cost: plan 1 ({}) ranks first at {}; no other accelerator has a priced plan.",
                              best.describe(), usd(best)));
  }
  const Plan* safe = nullptr;
  for (const auto& p : r.plans) {
    if (p.software.risks.empty()) {
      safe = &p;
      break;
    }
  }
  if (best.software.risks.empty()) {
    out.push_back(fmt::format("Risk: none flagged ({} runs {}/{}{}; ecosystem {}).",
                              best.software.engine.empty() ? "no named engine" : best.software.engine,
                              to_string(best.shape.weights), to_string(best.shape.kv),
                              best.software.efficiency_calibrated ? "" : "; efficiency from an uncalibrated prior",
                              best.software.ecosystem ? fmt::format("{:.1f}/10", *best.software.ecosystem) : "unknown"));
  } else {
    std::string s = "Risk: flagged: " + fmt::format("{}", fmt::join(best.software.risks, "; "));
    if (safe && safe->objective && best.objective && *best.objective > 0)
      s += fmt::format(". The cheapest plan with no flag is {} at {} ({:+.0f}%); --risk-averse picks it.",
                       safe->describe(), usd(*safe), 100 * (*safe->objective / *best.objective - 1));
    else
      s += ". No plan is free of flags.";
    out.push_back(s);
  }
  auto tpj = [](const Plan& p) {
    return p.cost.tokens_per_joule ? fmt::format("{:.2f} tokens/J", *p.cost.tokens_per_joule)
                                   : std::string("unknown tokens/J");
  };
  out.push_back(fmt::format("Energy: {}{}{}.", tpj(best),
                            best.cost.device.power_source.empty() ? "" : " (power: " + best.cost.device.power_source + ")",
                            other ? fmt::format(" against {} for {}", tpj(*other), other->shape.accelerator->id) : ""));
  return out;
}

std::string Plan::describe() const {
  if (!prefill) return shape.describe();
  return fmt::format("prefill {} x [{}] + decode {} x [{}]", prefill->replicas, prefill->shape.describe(),
                     replicas, shape.describe());
}

InferenceSearchResult search_inference(const ModelSpec& model, const InferenceWorkload& w,
                                       const SearchSpace& space, const Constraints& constraints,
                                       const SearchOptions& options,
                                       const ReplicaModelFactory& factory,
                                       const cost::PriceBook& prices) {
  w.validate();
  options.cost.validate();
  if (space.weight_precisions.empty() || space.kv_precisions.empty()) {
    throw InputError("precisions", "none", "at least one weight and one KV precision");
  }
  // Every request must fit the model's context: the p99 prompt (TTFT p99 is computed on it) and
  // the mean sequence (the steady state's).
  infer::check_context(model, std::llround(w.input.p99), 1);
  infer::check_context(model, std::llround(w.input.mean), std::llround(w.output.mean));
  InferenceSearchResult result;
  result.requirements =
      derive_requirements(model, w, space.weight_precisions.front(), space.kv_precisions.front());
  std::map<std::pair<Precision, Precision>, Requirements> reqs;
  auto requirements_of = [&](Precision wp, Precision kp) -> const Requirements& {
    auto key = std::make_pair(wp, kp);
    if (!reqs.count(key)) reqs.emplace(key, derive_requirements(model, w, wp, kp));
    return reqs.at(key);
  };
  const double context = w.mean_context();
  const SteadyState steady(w);
  const score::EcosystemBook builtin_ecosystem =
      options.ecosystem ? score::EcosystemBook() : score::EcosystemBook::builtin();
  const score::EcosystemBook& ecosystem = options.ecosystem ? *options.ecosystem : builtin_ecosystem;
  const SupportMatrix& support = options.support ? *options.support : SupportMatrix::builtin();
  if (!constraints.engine.empty()) check_engine_id(constraints.engine);

  // Shapes that can serve as a pool of a disaggregated plan, by weight/KV precision.
  std::map<std::pair<Precision, Precision>, std::vector<Candidate>> pools;

  // Applies the objective and the deployment-wide constraints; false (and a rejection) when the
  // plan breaks one.
  auto finish_plan = [&](Plan& plan) {
    plan.objective = objective_value(options.objective, figures_of(plan.cost), plan.devices,
                                     plan.generated_tokens_per_s);
    const Violation broken = violated(constraints, plan.devices, figures_of(plan.cost), plan.cost.tco_years);
    std::string why = broken.why;
    if (why.rfind("cost unknown", 0) == 0 && !plan.cost.device.unknown.empty())
      why += ": missing " + fmt::format("{}", fmt::join(plan.cost.device.unknown, ", "));
    if (why.empty() && constraints.min_ecosystem &&
        (!plan.software.ecosystem || *plan.software.ecosystem < *constraints.min_ecosystem))
      why = plan.software.ecosystem
                ? fmt::format("ecosystem {:.1f}/10 < --min-ecosystem {:g}", *plan.software.ecosystem,
                              *constraints.min_ecosystem)
                : fmt::format("ecosystem unknown under --min-ecosystem {:g}", *constraints.min_ecosystem);
    if (why.empty() && constraints.risk_averse && !plan.software.risks.empty())
      why = "--risk-averse: " + plan.software.risks.front();
    if (!why.empty()) {
      result.rejected.push_back({plan.shape, (plan.prefill ? "disaggregated: " : "") + why,
                                 RejectionStage::constraint, broken.shortfall});
      return false;
    }
    return true;
  };

  for (const Accelerator* a : space.accelerators) {
    if (!vendor_allowed(*a, constraints.domestic_only, constraints.vendors)) continue;
    std::vector<const Node*> nodes;
    for (const Node* n : space.nodes) {
      if (to_lower(n->accelerator) == to_lower(a->id)) nodes.push_back(n);
    }
    if (nodes.empty()) {
      // A module (OAM, SXM, mezzanine) ships only inside its server: without a node in the
      // catalog it cannot be bought, powered or priced alone.
      const std::string ff = to_lower(a->form_factor);
      if (ff.find("oam") != std::string::npos || ff.find("sxm") != std::string::npos ||
          ff.find("module") != std::string::npos || ff.find("mezzanine") != std::string::npos) {
        ReplicaShape shape;
        shape.accelerator = a;
        result.rejected.push_back({shape,
                                   "ships only inside a server (" + a->form_factor +
                                       ") and the catalog has no node of it; add one with --catalog",
                                   RejectionStage::catalog});
        continue;
      }
      nodes.push_back(nullptr);  // a card bought alone (PCIe)
    }
    // The engine and stack verdicts of each precision pair on this accelerator (the same for
    // every node and parallel layout), and the cost of one device of each node at utilisation 0
    // and 1, computed once.
    std::map<std::pair<Precision, Precision>, SoftwareFit> fits;
    for (const Node* node : nodes) {
      std::optional<std::pair<cost::DeploymentCost, cost::DeploymentCost>> unit_costs;
      for (int tp : space.tp) {
        throw_if_cancelled(options.cancel);
        std::vector<int> eps{model.is_moe() ? tp : 1};
        if (model.is_moe() && tp > 1) eps.push_back(1);
        for (int pp : space.pp) {
          if (!node && (tp > 1 || pp > 1)) continue;
          if (node && tp > node->devices) continue;
          if (node && tp * pp > node->devices && !space.fabric) continue;
          if (pp > model.layers) continue;
          if (constraints.max_gpus && tp * pp > *constraints.max_gpus) continue;
          for (int ep : eps) {
          for (Precision asked_wp : space.weight_precisions) {
            for (Precision asked_kp : space.kv_precisions) {
              // A generation without bf16 (Volta) stores the same 16-bit tensors as fp16.
              const bool fp16_for_bf16 = !a->supports(Precision::bf16) && a->supports(Precision::fp16);
              const Precision wp = fp16_for_bf16 && asked_wp == Precision::bf16 ? Precision::fp16 : asked_wp;
              const Precision kp = fp16_for_bf16 && asked_kp == Precision::bf16 ? Precision::fp16 : asked_kp;
              ReplicaShape shape;
              shape.accelerator = a;
              shape.node = node;
              shape.tp = tp;
              shape.pp = pp;
              shape.ep = ep;
              shape.weights = wp;
              shape.kv = kp;
              ++result.shapes;
              auto reject = [&](const std::string& why, RejectionStage stage = RejectionStage::support,
                                double shortfall = 0) {
                result.rejected.push_back({shape, why, stage, shortfall});
              };
              if (!a->memory || !a->memory_bandwidth) {
                reject(std::string("memory ") + (a->memory ? "bandwidth" : "capacity") + " of " + a->id +
                           " unknown in the catalog (blocks every plan on it)",
                       RejectionStage::catalog);
                continue;
              }
              auto known_fit = fits.find({wp, kp});
              if (known_fit == fits.end())
                known_fit = fits.emplace(std::make_pair(wp, kp),
                                         software_fit(*a, wp, kp, constraints, support, ecosystem))
                                .first;
              SoftwareFit fit = known_fit->second;
              if (!fit.feasible) {
                reject(fit.why);
                continue;
              }
              if (node && !node->risk.empty()) fit.risks.push_back(node->id + ": " + node->risk);
              shape.engine = fit.engine;
              ReplicaModel rm;
              try {
                rm = factory(model, shape);
              } catch (const InfeasibleError& e) {
                // The estimator's verdicts: the memory plan's "does not fit", a hardware format
                // path ("has no int4 path"), else a layout that does not divide the model.
                const std::string why = e.what();
                if (why.find("does not fit") != std::string::npos)
                  reject(why, RejectionStage::memory, memory_shortfall(requirements_of(wp, kp), shape));
                else
                  reject(why, why.find(" has no ") != std::string::npos ? RejectionStage::support
                                                                        : RejectionStage::shape);
                continue;
              } catch (const InputError& e) {
                reject(e.what(), RejectionStage::peak);  // a figure missing from the catalog
                continue;
              }
              if (!rm.infeasible.empty()) {
                reject(rm.infeasible, RejectionStage::memory, memory_shortfall(requirements_of(wp, kp), shape));
                continue;
              }
              memoise_steps(rm);
              // The sequences whose KV fits at the mean context, fewer where contexts vary: the
              // cache must hold the sum of their contexts at its p99 (plan/in_flight.h).
              int fit_batch = rm.max_batch(context);
              if (w.context_in_flight_sd > 0 && fit_batch > 0) {
                const double capacity =
                    rm.kv_capacity_tokens > 0 ? double(rm.kv_capacity_tokens) : fit_batch * context;
                fit_batch = std::min(
                    fit_batch, sequences_within_kv(capacity, context, w.context_in_flight_sd));
              }
              // A closed loop never has more sequences in flight than users, and the engine never
              // schedules more than its max_num_seqs (data/engines limits).
              int max_batch =
                  w.load.concurrency
                      ? std::min(fit_batch, static_cast<int>(std::ceil(*w.load.concurrency - 1e-9)))
                      : fit_batch;
              if (rm.max_num_seqs > 0) max_batch = std::min(max_batch, rm.max_num_seqs);
              if (space.disaggregated) {
                Candidate c;
                c.shape = shape;
                c.rm = rm;
                c.fit_batch = fit_batch;
                c.decode_cap = max_batch;
                c.link = pool_link(node, shape.devices(), space.fabric);
                if (c.link && rm.max_batch(w.input.p99) >= 1) {
                  const PrefillProfile pre = profile_prefill(rm, w);
                  result.configurations += 2;
                  if (pre.rho_max > 0) c.prefill = pre;
                }
                if (c.link && (c.prefill || max_batch >= 1)) {
                  c.software = fit;
                  if (!unit_costs)
                    unit_costs.emplace(ranked_cost(*a, 1, 0.0, 0.0, prices, options.cost, node),
                                       ranked_cost(*a, 1, 0.0, 1.0, prices, options.cost, node));
                  c.at0 = unit_costs->first;
                  c.at1 = unit_costs->second;
                  pools[{wp, kp}].push_back(std::move(c));
                }
              }
              if (!space.aggregated) continue;
              if (fit_batch < 1) {
                reject(fmt::format("no room for one sequence of {:.0f} tokens beside the weights", context),
                       RejectionStage::memory, memory_shortfall(requirements_of(wp, kp), shape));
                continue;
              }
              // Largest feasible batch by bisection (feasibility is monotone in the batch).
              std::string why;
              auto feasible = [&](int b, std::string* reason) {
                ++result.configurations;
                return steady.meets_sla_at(rm, b, reason);
              };
              if (!feasible(1, &why)) {
                reject("even one sequence per replica misses the SLA: " + why, RejectionStage::sla,
                       sla_shortfall(steady.at(rm, 1), w.sla));
                continue;
              }
              int lo = 1, hi = max_batch;
              if (feasible(hi, nullptr)) {
                lo = hi;
              } else {
                while (hi - lo > 1) {
                  const int mid = lo + (hi - lo) / 2;
                  (feasible(mid, nullptr) ? lo : hi) = mid;
                }
              }
              const int best = lo;
              std::string next_failure;
              if (best < max_batch) feasible(best + 1, &next_failure);

              // Pareto samples: powers of two below the best batch, and the best batch.
              for (int b = 1;; b *= 2) {
                const int bb = std::min(b, best);
                const OperatingPoint op = steady.rates_at(rm, bb);
                ++result.configurations;
                if (!op.stable) {  // not a point the replica can hold; never on a frontier
                  if (bb == best) break;
                  continue;
                }
                result.throughput_points.push_back(
                    {op.generated_tokens_per_s / shape.devices(), 1.0 / op.tpot.value()});
                result.throughput_labels.push_back(fmt::format("{} @ batch {}", shape.describe(), bb));
                if (bb == best) break;
              }

              const OperatingPoint at_best = steady.at(rm, best);
              const double total_concurrency =
                  w.load.concurrency ? *w.load.concurrency
                                     : *w.load.rate_per_s * at_best.e2e_mean.value();
              // The sequences the replicas must hold: every user (closed loop), or the 99.9th
              // percentile of the Poisson count in flight (open loop; plan/in_flight.h).
              const double held =
                  w.load.concurrency ? total_concurrency : sequences_to_hold(total_concurrency);
              // The plan at a replica count: the load spread evenly over the replicas.
              auto make_plan = [&](int replicas) {
                Plan plan;
                plan.shape = shape;
                plan.point = at_best;
                plan.batch_cap = best;
                plan.replicas = replicas;
                // Report the point the replicas actually run at: the load spread evenly (no more
                // than `best` sequences each, so the SLA still holds by monotonicity).
                const int actual = static_cast<int>(
                    std::max(1.0, std::min<double>(best, std::ceil(held / plan.replicas - 1e-9))));
                if (actual != best) {
                  plan.point = steady.at(rm, actual);
                  ++result.configurations;
                }
                plan.devices = plan.replicas * shape.devices();
                plan.concurrency = total_concurrency;
                plan.generated_tokens_per_s = total_concurrency / plan.point.tpot.value();
                plan.tokens_per_s_per_device = plan.generated_tokens_per_s / plan.devices;
                plan.tokens_per_s_per_user = 1.0 / plan.point.tpot.value();
                const infer::StepBatch busy = decode_batch(best, context);
                const double activity = rm.activity ? rm.activity(busy) : 1.0;
                plan.cost = ranked_cost(*a, plan.devices, plan.generated_tokens_per_s,
                                                  activity, prices, options.cost, node);
                plan.software = fit;
                if (rm.communication_share) {
                  plan.scaling_efficiency = 1.0 - rm.communication_share(busy);
                } else if (shape.devices() == 1) {
                  plan.scaling_efficiency = 1.0;
                }
                plan.binding = binding_sentence(plan, rm, best, fit_batch, max_batch, next_failure,
                                                requirements_of(wp, kp), context);
                return plan;
              };
              // Fewest replicas first (B* each); when those leave devices of the servers they need
              // idle, also the plan that runs replicas on them too (owned servers are bought whole,
              // so more replicas at a smaller batch may cost less per token). The better one stays.
              const double replicas = std::ceil(held / best - 1e-9);
              if (const std::string too_many = beyond_device_bound(replicas, shape.devices());
                  !too_many.empty()) {
                // It meets the SLA and fits: only its size stops it, the furthest a shape gets.
                reject(too_many, RejectionStage::constraint,
                       replicas * shape.devices() / kMaxPlanDevices);
                continue;
              }
              Plan plan = make_plan(static_cast<int>(replicas));
              if (!finish_plan(plan)) continue;
              if (node && node->devices > shape.devices()) {
                const int per_node = node->devices / shape.devices();
                const int servers = (plan.devices + node->devices - 1) / node->devices;
                const int filled =
                    static_cast<int>(std::min<double>(servers * per_node, std::ceil(held - 1e-9)));
                if (filled > plan.replicas) {
                  Plan alt = make_plan(filled);
                  const size_t rejected = result.rejected.size();
                  if (!finish_plan(alt)) {
                    result.rejected.erase(result.rejected.begin() + static_cast<std::ptrdiff_t>(rejected),
                                          result.rejected.end());
                  } else if (alt.objective && plan.objective && *alt.objective < *plan.objective) {
                    alt.binding = fmt::format(
                        "{} replicas fill the {} server(s) the plan buys anyway, {} sequences each; "
                        "at the largest batch: {}",
                        alt.replicas, servers, alt.point.batch, alt.binding);
                    plan = std::move(alt);
                  }
                }
              }
              result.plans.push_back(std::move(plan));
            }
          }
          }
        }
      }
    }
  }

  // Disaggregated plans: every prefill shape with every decode shape of the same precisions.
  for (auto& [key, cands] : pools) {
    const Requirements& req = requirements_of(key.first, key.second);
    for (const Candidate& d : cands) {
      throw_if_cancelled(options.cancel);
      if (d.decode_cap < 1) continue;
      const auto step = [&](int b) { return d.decode_step(b, context); };
      const Candidate* best = nullptr;
      PoolsPoint best_point;
      std::optional<double> best_objective;
      int best_devices = 0;
      // The decode pool depends on the prefill shape only through the transfer time, which takes
      // a few values (one per distinct link): solve it once per value.
      std::vector<std::pair<double, DecodePool>> decode_pools;
      for (const Candidate& pc : cands) {
        if (!pc.prefill) continue;
        ++result.pool_pairs;
        const Seconds t_mean = kv_transfer_time(req.kv_bytes_per_token, w.input.mean, *pc.link, *d.link);
        const Seconds t_p99 = kv_transfer_time(req.kv_bytes_per_token, w.input.p99, *pc.link, *d.link);
        auto known = std::find_if(decode_pools.begin(), decode_pools.end(),
                                  [&](const auto& e) { return e.first == t_mean.value(); });
        if (known == decode_pools.end())
          known = decode_pools.emplace(decode_pools.end(), t_mean.value(),
                                       decode_pool(w, t_mean, d.decode_cap, step));
        const PoolsPoint pt = pools_point(w, *pc.prefill, t_mean, t_p99, known->second);
        if (!pt.feasible) continue;
        if (double(pt.prefill_replicas) * pc.shape.devices() +
                double(pt.decode_replicas) * d.shape.devices() >
            kMaxPlanDevices)
          continue;
        const int pre_devices = pt.prefill_replicas * pc.shape.devices();
        const int dec_devices = pt.decode_replicas * d.shape.devices();
        const PoolFigures fp = pool_figures(pc, pre_devices, pt.prefill_utilisation * pc.prefill->activity);
        const PoolFigures fd = pool_figures(d, dec_devices, d.activity(pt.decode_batch, context));
        const PoolFigures f{add(fp.per_hour, fd.per_hour), add(fp.capex, fd.capex), add(fp.tco, fd.tco),
                            add(fp.facility_w, fd.facility_w)};
        const int devices = pre_devices + dec_devices;
        if (!violated(constraints, devices, f, options.cost.tco_years).why.empty()) continue;
        const std::optional<double> obj = objective_value(options.objective, f, devices, pt.generated_tokens_per_s);
        const bool better = !best || (obj && (!best_objective || *obj < *best_objective)) ||
                            (!obj && !best_objective && devices < best_devices);
        if (!better) continue;
        best = &pc;
        best_point = pt;
        best_objective = obj;
        best_devices = devices;
      }
      if (!best) continue;
      const PoolsPoint& pt = best_point;
      const Candidate& pc = *best;
      Plan plan;
      plan.shape = d.shape;
      PrefillPool pool;
      pool.shape = pc.shape;
      pool.replicas = pt.prefill_replicas;
      pool.utilisation = pt.prefill_utilisation;
      pool.prompt_mean = pc.prefill->prompt_mean;
      pool.prompt_p99 = pc.prefill->prompt_p99;
      pool.kv_transfer_mean = pt.transfer_mean;
      pool.kv_transfer_p99 = pt.transfer_p99;
      pool.link = std::min(pc.link->bandwidth, d.link->bandwidth);
      pool.link_latency = std::max(pc.link->latency, d.link->latency);
      pool.cost = ranked_cost(*pc.shape.accelerator, pt.prefill_replicas * pc.shape.devices(), 0.0,
                                        pt.prefill_utilisation * pc.prefill->activity, prices, options.cost,
                                        pc.shape.node);
      const cost::DeploymentCost decode_cost =
          ranked_cost(*d.shape.accelerator, pt.decode_replicas * d.shape.devices(),
                                pt.generated_tokens_per_s, d.activity(pt.decode_batch, context), prices, options.cost,
                                d.shape.node);
      plan.cost = cost::combine(decode_cost, pool.cost);
      OperatingPoint& op = plan.point;
      op.batch = pt.decode_batch;
      op.decode_step = pt.decode_step;
      op.prefill_mean = pool.prompt_mean;
      op.prefill_p99 = pool.prompt_p99;
      op.prefill_share = pt.prefill_utilisation;
      op.tpot = pt.tpot;
      op.tpot_p99 = pt.tpot_p99;
      op.ttft_mean = pt.ttft_mean;
      op.ttft_p99 = pt.ttft_p99;
      op.e2e_mean = pt.e2e_mean;
      op.e2e_p99 = pt.e2e_p99;
      op.requests_per_s = pt.lambda / pt.decode_replicas;
      op.generated_tokens_per_s = pt.generated_tokens_per_s / pt.decode_replicas;
      plan.batch_cap = pt.batch_cap;
      plan.replicas = pt.decode_replicas;
      plan.devices = best_devices;
      plan.concurrency = w.load.concurrency ? *w.load.concurrency : pt.lambda * pt.e2e_mean.value();
      plan.generated_tokens_per_s = pt.generated_tokens_per_s;
      plan.tokens_per_s_per_device = pt.generated_tokens_per_s / plan.devices;
      plan.tokens_per_s_per_user = 1.0 / pt.tpot.value();
      if (d.rm.communication_share) {
        plan.scaling_efficiency = 1.0 - d.rm.communication_share(decode_batch(pt.decode_batch, context));
      }
      const std::string cap =
          pt.batch_cap >= d.fit_batch   ? fmt::format("memory ({} sequences fit)", d.fit_batch)
          : pt.batch_cap >= d.decode_cap ? std::string("the number of users")
                                         : fmt::format("the TPOT target ({:g} ms)", w.sla.tpot_p99.value() * 1e3);
      plan.binding = fmt::format(
          "disaggregated: {} prefill replicas at {:.0f}% utilisation hold TTFT p99 at {:.2f} s (a p99 "
          "prompt alone runs {:.2f} s); the KV of a mean prompt ({:.0f} MB) crosses {:.0f} GB/s in {:.1f} ms; "
          "each decode replica holds {} sequences at TPOT {:.1f} ms, its batch capped by {}",
          pool.replicas, 100 * pool.utilisation, pt.ttft_p99.value(), pool.prompt_p99.value(),
          req.kv_bytes_per_token.value() * w.input.mean / 1e6, pool.link.value() / 1e9,
          pt.transfer_mean.value() * 1e3, pt.decode_batch, pt.tpot.value() * 1e3, cap);
      plan.prefill = std::move(pool);
      plan.software = d.software;
      for (const auto& r : pc.software.risks) {
        if (std::find(plan.software.risks.begin(), plan.software.risks.end(), r) == plan.software.risks.end())
          plan.software.risks.push_back("prefill pool: " + r);
      }
      if (!finish_plan(plan)) continue;
      result.throughput_points.push_back({plan.tokens_per_s_per_device, plan.tokens_per_s_per_user});
      result.throughput_labels.push_back(plan.describe());
      result.plans.push_back(std::move(plan));
    }
  }

  // Rank: known objective ascending (ties broken by fewer devices, then name for determinism),
  // then plans whose objective is unknown.
  std::stable_sort(result.plans.begin(), result.plans.end(), [](const Plan& x, const Plan& y) {
    if (x.objective.has_value() != y.objective.has_value()) return x.objective.has_value();
    if (x.objective && *x.objective != *y.objective) return *x.objective < *y.objective;
    if (x.devices != y.devices) return x.devices < y.devices;
    return x.describe() < y.describe();
  });
  for (size_t i = 1; i < result.plans.size(); ++i) {
    const auto& prev = result.plans[i - 1].objective;
    const auto& cur = result.plans[i].objective;
    if (prev && cur && *cur <= *prev * (1.0 + options.near_tie_fraction)) result.plans[i].near_tie = true;
  }
  result.throughput_front = pareto_front(result.throughput_points, true, true);
  std::vector<Objective2> cl;
  std::vector<size_t> priced;
  for (size_t i = 0; i < result.plans.size(); ++i) {
    if (!result.plans[i].cost.usd_per_million_tokens) continue;
    cl.push_back({*result.plans[i].cost.usd_per_million_tokens, result.plans[i].point.e2e_mean.value()});
    priced.push_back(i);
  }
  for (size_t k : pareto_front(cl, false, false)) result.cost_latency_front.push_back(priced[k]);
  return result;
}

}  // namespace memwall::plan
