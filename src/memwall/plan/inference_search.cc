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
std::string binding_sentence(Plan& p, const ReplicaModel& rm, int best, int fit_batch,
                             int max_batch, const std::string& next_failure, const Requirements& r,
                             double context) {
  const Accelerator& a = *p.shape.accelerator;
  const int n = p.shape.devices();
  const Bytes kv = r.kv_bytes_per_token * (best * context);
  if (rm.max_num_seqs > 0 && best >= rm.max_num_seqs && best < fit_batch) {
    p.wall = BindingWall::engine_limit;
    return fmt::format(
        "the engine's limit binds: {} sequences per replica is its max_num_seqs (TPOT {:.1f} ms, "
        "TTFT p99 {:.2f} s); {} sequences would fit in memory",
        best, p.point.tpot.value() * 1e3, p.point.ttft_p99.value(), fit_batch);
  }
  if (best >= max_batch && best < fit_batch) {
    p.wall = BindingWall::load;
    return fmt::format(
        "the load binds, not the hardware: all {} sequences fit on one replica within the SLA "
        "(TPOT {:.1f} ms, TTFT p99 {:.2f} s); {} sequences would fit in memory",
        best, p.point.tpot.value() * 1e3, p.point.ttft_p99.value(), fit_batch);
  }
  if (best >= fit_batch) {
    p.wall = BindingWall::memory_capacity;
    return fmt::format(
        "memory capacity binds: {:.1f} GB of weights leave room for only {} sequences of {:.0f} "
        "tokens ({:.1f} GB of KV at {:.0f} KB/token) on {} x {:.0f} GiB; the SLA would allow more",
        gb(r.weights), best, context, gb(kv), r.kv_bytes_per_token.value() / 1e3, n,
        a.memory ? a.memory->value() / (1024.0 * 1024 * 1024) : 0.0);
  }
  const double step_ms = rm.step(decode_batch(best, context)).value() * 1e3;
  if (next_failure.rfind("TTFT", 0) == 0 || next_failure.rfind("prefill", 0) == 0) {
    p.wall = BindingWall::compute;  // prompt processing: matmul work over the whole prompt
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
      p.wall = BindingWall::memory_bandwidth;
      wall = fmt::format(
          "decode is memory-bandwidth-bound: {:.1f} ms of the {:.1f} ms step stream {:.1f} GB per "
          "device (weights {:.1f} GB + KV {:.1f} GB over {} devices) against {:.2f} TB/s peak each",
          mem * 1e3, step_ms, s.bytes_moved.value() / 1e9, gb(r.weights), gb(kv), n, peak / 1e12);
    } else if (top == cmp) {
      p.wall = BindingWall::compute;
      wall = fmt::format("decode is compute-bound: {:.1f} ms of the {:.1f} ms step is matmul work at batch {}",
                         cmp * 1e3, step_ms, best);
    } else if (top == com) {
      p.wall = BindingWall::interconnect;
      wall = fmt::format(
          "the interconnect binds: exposed tensor/pipeline communication is {:.1f} ms of the {:.1f} "
          "ms step on {}",
          com * 1e3, step_ms, p.shape.node ? p.shape.node->id : "this node");
    } else {
      p.wall = BindingWall::overhead;
      wall = fmt::format(
          "fixed per-step overhead binds: kernel launches and engine work are {:.1f} ms of the "
          "{:.1f} ms step (memory {:.1f} ms, compute {:.1f} ms)",
          ovh * 1e3, step_ms, mem * 1e3, cmp * 1e3);
    }
  }
  return wall + "; one more sequence per replica gives " + next_failure;
}

}  // namespace

std::string_view to_string(BindingWall w) {
  switch (w) {
    case BindingWall::memory_capacity: return "memory capacity";
    case BindingWall::memory_bandwidth: return "memory bandwidth";
    case BindingWall::compute: return "compute";
    case BindingWall::interconnect: return "interconnect";
    case BindingWall::overhead: return "overhead";
    case BindingWall::load: return "load";
    case BindingWall::engine_limit: return "engine limit";
    case BindingWall::latency: return "TPOT target";
    case BindingWall::unknown: return "unknown";
  }
  return "unknown";
}

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
  if (!a.risk.empty()) fit.risks.push_back(a.id + ": " + a.risk);
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

namespace {

// A shape the estimator can run, with what the later stages read of it.
struct Replica {
  ReplicaShape shape;
  ReplicaModel rm;
  SoftwareFit fit;
  int fit_batch = 0;  // sequences of the mean context whose KV fits (at its p99 spread)
  int max_batch = 0;  // at most this many per replica: memory, closed-loop users, max_num_seqs
};

// The operating point of an aggregated replica at its largest batch within the SLA.
struct Sizing {
  int best = 0;              // B*
  std::string next_failure;  // why B* + 1 misses the SLA ("" when B* is the cap)
  OperatingPoint at_best;
};

// One prefill partner of a decode shape in the pairing, before its pools are solved.
struct Partner {
  const Candidate* prefill = nullptr;
  size_t index = 0;   // its place in the candidate list: the tie-break of the sequential scan
  Seconds transfer_mean;
  size_t pool = 0;    // the decode pool at that transfer time
  std::optional<double> bound;  // lower bound of the pair's objective; nullopt: it is unknown
  int devices = 0;              // lower bound of its devices (one prefill replica)
};

// A solved pair that meets the constraints.
struct PairChoice {
  const Candidate* prefill = nullptr;
  size_t index = 0;
  PoolsPoint point;
  std::optional<double> objective;
  int devices = 0;
};

// The decode pool of one decode shape at one KV-transfer time, and the decode side's share of
// the objective's figures (the same for every prefill partner at that time).
struct DecodeSide {
  double transfer_mean = 0;
  DecodePool pool;
  bool within_bound = false;  // the decode pool alone is within kMaxPlanDevices
  int devices = 0;
  PoolFigures figures;
};

// The lowest value a candidate's one-device figure takes over utilisations in [0, 1] (linear in
// u), a little lower for the rounding of u just above 1; nullopt when the figure is unknown.
template <class Q>
std::optional<double> lowest(const std::optional<Q>& at0, const std::optional<Q>& at1) {
  if (!at0 || !at1) return std::nullopt;
  const double v0 = at0->value(), v1 = at1->value();
  return std::min(v0, v1) - 1e-6 * std::abs(v1 - v0);
}

// One search over the space (docs/plan.md "Search"), in stages that run in this order for each
// shape: replica shapes (the layouts the space allows, and the catalog's rejections), the
// estimator (software fit, memory plan, batch limits), the shape's pool candidate, its aggregated
// operating point (B* by bisection, the throughput samples), pricing (the plan at its replica
// count, constraints); then the pairing of disaggregated pools and the ranking.
class InferenceSearch {
 public:
  InferenceSearch(const ModelSpec& model, const InferenceWorkload& w, const SearchSpace& space,
                  const Constraints& constraints, const SearchOptions& options,
                  const ReplicaModelFactory& factory, const cost::PriceBook& prices)
      : model_(model),
        w_(w),
        space_(space),
        constraints_(constraints),
        options_(options),
        factory_(factory),
        prices_(prices),
        context_(w.mean_context()),
        request_gaps_(request_gaps(w.output)),
        steady_(w),
        builtin_ecosystem_(options.ecosystem ? score::EcosystemBook() : score::EcosystemBook::builtin()),
        ecosystem_(options.ecosystem ? *options.ecosystem : builtin_ecosystem_),
        support_(options.support ? *options.support : SupportMatrix::builtin()) {}

  InferenceSearchResult run() {
    result_.requirements =
        derive_requirements(model_, w_, space_.weight_precisions.front(), space_.kv_precisions.front());
    if (!constraints_.engine.empty()) check_engine_id(constraints_.engine);
    for (const Accelerator* a : space_.accelerators) search_accelerator(*a);
    pair_pools();
    rank();
    return std::move(result_);
  }

 private:
  const Requirements& requirements_of(Precision wp, Precision kp) {
    auto key = std::make_pair(wp, kp);
    if (!reqs_.count(key)) reqs_.emplace(key, derive_requirements(model_, w_, wp, kp));
    return reqs_.at(key);
  }
  void reject(const ReplicaShape& shape, const std::string& why,
              RejectionStage stage = RejectionStage::support, double shortfall = 0) {
    result_.rejected.push_back({shape, why, stage, shortfall});
  }

  // Stage 1, replica shapes: the nodes of the accelerator (a module without one is rejected: it
  // ships only inside its server), then every TP x PP x EP x weight x KV precision that fits the
  // node, the model and --max-gpus, each handed to the later stages in turn.
  void search_accelerator(const Accelerator& a) {
    if (!vendor_allowed(a, constraints_.domestic_only, constraints_.vendors)) return;
    std::vector<const Node*> nodes;
    for (const Node* n : space_.nodes) {
      if (iequals(n->accelerator, a.id)) nodes.push_back(n);
    }
    if (nodes.empty()) {
      // A module (OAM, SXM, mezzanine) ships only inside its server: without a node in the
      // catalog it cannot be bought, powered or priced alone.
      const std::string ff = to_lower(a.form_factor);
      if (ff.find("oam") != std::string::npos || ff.find("sxm") != std::string::npos ||
          ff.find("module") != std::string::npos || ff.find("mezzanine") != std::string::npos) {
        ReplicaShape shape;
        shape.accelerator = &a;
        reject(shape,
               "ships only inside a server (" + a.form_factor +
                   ") and the catalog has no node of it; add one with --catalog",
               RejectionStage::catalog);
        return;
      }
      nodes.push_back(nullptr);  // a card bought alone (PCIe)
    }
    // The engine and stack verdicts of each precision pair are the same on every node and layout.
    fits_.clear();
    for (const Node* node : nodes) {
      unit_costs_.reset();
      for (int tp : space_.tp) {
        throw_if_cancelled(options_.cancel);
        std::vector<int> eps{model_.is_moe() ? tp : 1};
        if (model_.is_moe() && tp > 1) eps.push_back(1);
        for (int pp : space_.pp) {
          if (!node && (tp > 1 || pp > 1)) continue;
          if (node && tp > node->devices) continue;
          if (node && tp * pp > node->devices && !space_.fabric) continue;
          if (pp > model_.layers) continue;
          if (constraints_.max_gpus && tp * pp > *constraints_.max_gpus) continue;
          for (int ep : eps) {
            for (Precision asked_wp : space_.weight_precisions) {
              for (Precision asked_kp : space_.kv_precisions) {
                // A generation without bf16 (Volta) stores the same 16-bit tensors as fp16; so
                // does a card whose vendor states an fp16 peak and none for bf16 (Kunlun R200):
                // the plan runs at the precision the datasheet gives, never at an invented peak.
                const bool fp16_for_bf16 =
                    (!a.supports(Precision::bf16) || !a.peak(Precision::bf16)) && a.peak(Precision::fp16);
                ReplicaShape shape;
                shape.accelerator = &a;
                shape.node = node;
                shape.tp = tp;
                shape.pp = pp;
                shape.ep = ep;
                shape.weights = fp16_for_bf16 && asked_wp == Precision::bf16 ? Precision::fp16 : asked_wp;
                shape.kv = fp16_for_bf16 && asked_kp == Precision::bf16 ? Precision::fp16 : asked_kp;
                ++result_.shapes;
                search_shape(std::move(shape));
              }
            }
          }
        }
      }
    }
  }

  // One shape through the later stages: the estimator, its pool candidate, its aggregated plan.
  void search_shape(ReplicaShape shape) {
    std::optional<Replica> r = estimate_replica(std::move(shape));
    if (!r) return;
    if (space_.disaggregated) add_pool_candidate(*r);
    if (!space_.aggregated) return;
    if (r->fit_batch < 1) {
      reject(r->shape, fmt::format("no room for one sequence of {:.0f} tokens beside the weights", context_),
             RejectionStage::memory, memory_shortfall(requirements_of(r->shape.weights, r->shape.kv), r->shape));
      return;
    }
    std::optional<Sizing> sizing = size_replica(*r);
    if (sizing) price_aggregated(*r, *sizing);
  }

  // Stage 2, the estimator: the software verdicts (engine, support, ecosystem), the replica model
  // of the factory (memory plan, step times; its verdicts become rejections by stage) and the
  // batch limits. nullopt (with the rejection recorded) when the shape cannot run.
  std::optional<Replica> estimate_replica(ReplicaShape shape) {
    const Accelerator& a = *shape.accelerator;
    const Precision wp = shape.weights, kp = shape.kv;
    if (!a.memory || !a.memory_bandwidth) {
      reject(shape,
             std::string("memory ") + (a.memory ? "bandwidth" : "capacity") + " of " + a.id +
                 " unknown in the catalog (blocks every plan on it)",
             RejectionStage::catalog);
      return std::nullopt;
    }
    auto known_fit = fits_.find({wp, kp});
    if (known_fit == fits_.end())
      known_fit =
          fits_.emplace(std::make_pair(wp, kp), software_fit(a, wp, kp, constraints_, support_, ecosystem_)).first;
    Replica r;
    r.fit = known_fit->second;
    if (!r.fit.feasible) {
      reject(shape, r.fit.why);
      return std::nullopt;
    }
    if (shape.node && !shape.node->risk.empty()) r.fit.risks.push_back(shape.node->id + ": " + shape.node->risk);
    shape.engine = r.fit.engine;
    try {
      r.rm = factory_(model_, shape);
    } catch (const InfeasibleError& e) {
      // The estimator's verdicts: the memory plan's "does not fit", a hardware format path ("has
      // no int4 path"), else a layout that does not divide the model.
      const std::string why = e.what();
      if (why.find("does not fit") != std::string::npos)
        reject(shape, why, RejectionStage::memory, memory_shortfall(requirements_of(wp, kp), shape));
      else
        reject(shape, why, why.find(" has no ") != std::string::npos ? RejectionStage::support : RejectionStage::shape);
      return std::nullopt;
    } catch (const InputError& e) {
      reject(shape, e.what(), RejectionStage::peak);  // a figure missing from the catalog
      return std::nullopt;
    }
    if (!r.rm.infeasible.empty()) {
      reject(shape, r.rm.infeasible, RejectionStage::memory, memory_shortfall(requirements_of(wp, kp), shape));
      return std::nullopt;
    }
    memoise_steps(r.rm);
    // The sequences whose KV fits at the mean context, fewer where contexts vary: the cache must
    // hold the sum of their contexts at its p99 (plan/in_flight.h).
    r.fit_batch = r.rm.max_batch(context_);
    if (w_.context_in_flight_sd > 0 && r.fit_batch > 0) {
      const double capacity =
          r.rm.kv_capacity_tokens > 0 ? double(r.rm.kv_capacity_tokens) : r.fit_batch * context_;
      r.fit_batch = std::min(r.fit_batch, sequences_within_kv(capacity, context_, w_.context_in_flight_sd));
    }
    // A closed loop never has more sequences in flight than users, and the engine never schedules
    // more than its max_num_seqs (data/engines limits).
    r.max_batch = w_.load.concurrency
                      ? std::min(r.fit_batch, static_cast<int>(std::ceil(*w_.load.concurrency - 1e-9)))
                      : r.fit_batch;
    if (r.rm.max_num_seqs > 0) r.max_batch = std::min(r.max_batch, r.rm.max_num_seqs);
    r.shape = std::move(shape);
    return r;
  }

  // Stage 3, pool candidates: a shape with a scale-out link can serve as a decode pool (when one
  // sequence fits) and as a prefill pool (when a p99 prompt fits and an idle replica meets TTFT);
  // kept by precision pair for the pairing, with its one-device cost at utilisation 0 and 1.
  void add_pool_candidate(const Replica& r) {
    Candidate c;
    c.shape = r.shape;
    c.rm = r.rm;
    c.fit_batch = r.fit_batch;
    c.decode_cap = r.max_batch;
    c.link = pool_link(r.shape.node, r.shape.devices(), space_.fabric);
    if (c.link && r.rm.max_batch(w_.input.p99) >= 1) {
      const PrefillProfile pre = profile_prefill(r.rm, w_);
      result_.configurations += 2;
      if (pre.rho_max > 0) c.prefill = pre;
    }
    if (!c.link || !(c.prefill || r.max_batch >= 1)) return;
    c.software = r.fit;
    if (!unit_costs_)
      unit_costs_.emplace(
          ranked_cost(*r.shape.accelerator, 1, 0.0, 0.0, prices_, options_.cost, r.shape.node),
          ranked_cost(*r.shape.accelerator, 1, 0.0, 1.0, prices_, options_.cost, r.shape.node));
    c.at0 = unit_costs_->first;
    c.at1 = unit_costs_->second;
    pools_[{r.shape.weights, r.shape.kv}].push_back(std::move(c));
  }

  // Stage 4, operating points: the largest batch B* that meets the SLA, by bisection (feasibility
  // is monotone in the batch), why B* + 1 fails, and the throughput samples at powers of two
  // below B* and at B*. nullopt (and a rejection) when even one sequence misses the SLA.
  std::optional<Sizing> size_replica(const Replica& r) {
    auto feasible = [&](int b, std::string* reason) {
      ++result_.configurations;
      return steady_.meets_sla_at(r.rm, b, reason);
    };
    std::string why;
    if (!feasible(1, &why)) {
      reject(r.shape, "even one sequence per replica misses the SLA: " + why, RejectionStage::sla,
             sla_shortfall(steady_.at(r.rm, 1), w_.sla));
      return std::nullopt;
    }
    int lo = 1, hi = r.max_batch;
    if (feasible(hi, nullptr)) {
      lo = hi;
    } else {
      while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (feasible(mid, nullptr) ? lo : hi) = mid;
      }
    }
    Sizing s;
    s.best = lo;
    if (s.best < r.max_batch) feasible(s.best + 1, &s.next_failure);

    // Pareto samples: powers of two below the best batch, and the best batch.
    for (int b = 1;; b *= 2) {
      const int bb = std::min(b, s.best);
      const OperatingPoint op = steady_.rates_at(r.rm, bb);
      ++result_.configurations;
      if (!op.stable) {  // not a point the replica can hold; never on a frontier
        if (bb == s.best) break;
        continue;
      }
      result_.throughput_points.push_back({op.generated_tokens_per_s / r.shape.devices(), 1.0 / op.tpot.value()});
      result_.throughput_labels.push_back(fmt::format("{} @ batch {}", r.shape.describe(), bb));
      if (bb == s.best) break;
    }
    s.at_best = steady_.at(r.rm, s.best);
    return s;
  }

  // Stage 5, pricing (aggregated): the plan with the fewest replicas at B*, and, when those leave
  // devices of the servers they need idle, the plan that runs replicas on them too (owned servers
  // are bought whole, so more replicas at a smaller batch may cost less per token); the better
  // one that meets the constraints is kept.
  void price_aggregated(const Replica& r, const Sizing& s) {
    const ReplicaShape& shape = r.shape;
    const double total_concurrency =
        w_.load.concurrency ? *w_.load.concurrency : *w_.load.rate_per_s * s.at_best.e2e_mean.value();
    // The sequences the replicas must hold: every user (closed loop), or the 99.9th percentile
    // of the Poisson count in flight (open loop; plan/in_flight.h).
    const double held = w_.load.concurrency ? total_concurrency : sequences_to_hold(total_concurrency);
    const double replicas = std::ceil(held / s.best - 1e-9);
    if (const std::string too_many = beyond_device_bound(replicas, shape.devices()); !too_many.empty()) {
      // It meets the SLA and fits: only its size stops it, the furthest a shape gets.
      reject(shape, too_many, RejectionStage::constraint, replicas * shape.devices() / kMaxPlanDevices);
      return;
    }
    Plan plan = aggregated_plan(r, s, static_cast<int>(replicas), total_concurrency, held);
    if (!finish_plan(plan)) return;
    const Node* node = shape.node;
    if (node && node->devices > shape.devices()) {
      const int per_node = node->devices / shape.devices();
      const int servers = (plan.devices + node->devices - 1) / node->devices;
      const int filled = static_cast<int>(std::min<double>(servers * per_node, std::ceil(held - 1e-9)));
      if (filled > plan.replicas) {
        Plan alt = aggregated_plan(r, s, filled, total_concurrency, held);
        const size_t rejected = result_.rejected.size();
        if (!finish_plan(alt)) {
          result_.rejected.erase(result_.rejected.begin() + static_cast<std::ptrdiff_t>(rejected),
                                 result_.rejected.end());
        } else if (alt.objective && plan.objective && *alt.objective < *plan.objective) {
          alt.binding = fmt::format(
              "{} replicas fill the {} server(s) the plan buys anyway, {} sequences each; at the "
              "largest batch: {}",
              alt.replicas, servers, alt.point.batch, alt.binding);
          plan = std::move(alt);
        }
      }
    }
    result_.plans.push_back(std::move(plan));
  }

  // The aggregated plan at a replica count: the load spread evenly over the replicas (no more
  // than B* sequences each, so the SLA still holds by monotonicity), priced at the activity of a
  // replica at B*.
  Plan aggregated_plan(const Replica& r, const Sizing& s, int replicas, double total_concurrency,
                       double held) {
    const ReplicaShape& shape = r.shape;
    Plan plan;
    plan.shape = shape;
    plan.point = s.at_best;
    plan.batch_cap = s.best;
    plan.replicas = replicas;
    const int actual =
        static_cast<int>(std::max(1.0, std::min<double>(s.best, std::ceil(held / plan.replicas - 1e-9))));
    if (actual != s.best) {
      plan.point = steady_.at(r.rm, actual);
      ++result_.configurations;
    }
    plan.devices = plan.replicas * shape.devices();
    plan.concurrency = total_concurrency;
    plan.generated_tokens_per_s = total_concurrency / plan.point.tpot.value();
    plan.tokens_per_s_per_device = plan.generated_tokens_per_s / plan.devices;
    plan.tokens_per_s_per_user = 1.0 / plan.point.tpot.value();
    const infer::StepBatch busy = decode_batch(s.best, context_);
    const double activity = r.rm.activity ? r.rm.activity(busy) : 1.0;
    plan.cost = ranked_cost(*shape.accelerator, plan.devices, plan.generated_tokens_per_s, activity, prices_,
                            options_.cost, shape.node);
    plan.software = r.fit;
    if (r.rm.communication_share) {
      plan.scaling_efficiency = 1.0 - r.rm.communication_share(busy);
    } else if (shape.devices() == 1) {
      plan.scaling_efficiency = 1.0;
    }
    plan.binding = binding_sentence(plan, r.rm, s.best, r.fit_batch, r.max_batch, s.next_failure,
                                    requirements_of(shape.weights, shape.kv), context_);
    return plan;
  }

  // Applies the objective and the deployment-wide constraints; false (and a rejection) when the
  // plan breaks one.
  bool finish_plan(Plan& plan) {
    const Constraints& c = constraints_;
    plan.objective =
        objective_value(options_.objective, figures_of(plan.cost), plan.devices, plan.generated_tokens_per_s);
    const Violation broken = violated(c, plan.devices, figures_of(plan.cost), plan.cost.tco_years);
    std::string why = broken.why;
    if (why.rfind("cost unknown", 0) == 0 && !plan.cost.device.unknown.empty())
      why += ": missing " + fmt::format("{}", fmt::join(plan.cost.device.unknown, ", "));
    if (why.empty() && c.min_ecosystem &&
        (!plan.software.ecosystem || *plan.software.ecosystem < *c.min_ecosystem))
      why = plan.software.ecosystem
                ? fmt::format("ecosystem {:.1f}/10 < --min-ecosystem {:g}", *plan.software.ecosystem,
                              *c.min_ecosystem)
                : fmt::format("ecosystem unknown under --min-ecosystem {:g}", *c.min_ecosystem);
    if (why.empty() && c.risk_averse && !plan.software.risks.empty())
      why = "--risk-averse: " + plan.software.risks.front();
    if (!why.empty()) {
      result_.rejected.push_back(
          {plan.shape, (plan.prefill ? "disaggregated: " : "") + why, RejectionStage::constraint, broken.shortfall});
      return false;
    }
    return true;
  }

  // Whether a prefill replica of `pre` can hand its KV cache to a decode replica of `dec`. The
  // transfer is the engine's own (vLLM's KV connectors, SGLang's disaggregation transfer backend,
  // TensorRT-LLM's cache transceiver), so both pools run one engine. And one vendor's build of it:
  // vLLM's NIXL handshake refuses a peer whose vLLM version, attention backend or KV dtype differ
  // (compute_nixl_compatibility_hash, vllm/distributed/kv_transfer/kv_connector/v1/
  // nixl_connector.py at vllm-project/vllm 002a1057; PR #29503), and each vendor's platform has
  // its own attention backends. Different accelerators of one vendor pair (Splitwise-HA, Patel et
  // al. ISCA 2024: A100 token machines beside H100 prompt machines).
  static bool kv_handover(const ReplicaShape& pre, const ReplicaShape& dec) {
    return pre.engine == dec.engine && pre.accelerator->vendor == dec.accelerator->vendor;
  }

  // Stage 6, disaggregated pools: every decode shape with every prefill shape of the same
  // precisions, engine and vendor (kv_handover); each decode shape keeps its best partner under
  // the objective, priced as one plan.
  void pair_pools() {
    for (auto& [key, cands] : pools_) {
      const Requirements& req = requirements_of(key.first, key.second);
      for (const Candidate& d : cands) {
        throw_if_cancelled(options_.cancel);
        if (d.decode_cap < 1) continue;
        std::optional<PairChoice> best = best_partner(d, cands, req);
        if (!best) continue;
        // The decode pools were sized without their TPOT p99: the kept pair's, now.
        best->point.tpot_p99 = decode_tpot_p99(w_, request_gaps_, best->point.transfer_mean, best->point.decode_step);
        Plan plan = disaggregated_plan(d, *best, req);
        if (!finish_plan(plan)) continue;
        result_.throughput_points.push_back({plan.tokens_per_s_per_device, plan.tokens_per_s_per_user});
        result_.throughput_labels.push_back(plan.describe());
        result_.plans.push_back(std::move(plan));
      }
    }
  }

  // The best prefill partner of decode shape `d`: the same as solving every pair in candidate
  // order and keeping a pair only when it is strictly better (a known objective below the best
  // known one; while none is known, fewer devices), i.e. the first pair of least known objective,
  // else the first of fewest devices. An exact branch and bound: each pair first gets a lower
  // bound of its objective (one prefill replica at its cheapest utilisation, the decode pool's own
  // figures, the most tokens the closed loop allows) and of its devices; the pairs are solved in
  // order of the bound until the next one cannot beat the best found. Solving all ~250,000 pairs of
  // the README question took a third of the search.
  std::optional<PairChoice> best_partner(const Candidate& d, const std::vector<Candidate>& cands,
                                         const Requirements& req) {
    const auto step = [&](int b) { return d.decode_step(b, context_); };
    // The decode pool depends on the prefill shape only through the transfer time, which takes a
    // few values (one per distinct link): solved once per value.
    std::vector<DecodeSide> sides;
    std::vector<Partner> partners;
    bool ordered = true;  // every bound is a number (NaN figures: solve in candidate order)
    for (size_t i = 0; i < cands.size(); ++i) {
      const Candidate& pc = cands[i];
      if (!pc.prefill || !kv_handover(pc.shape, d.shape)) continue;
      ++result_.pool_pairs;
      const Seconds t_mean = kv_transfer_time(req.kv_bytes_per_token, w_.input.mean, *pc.link, *d.link);
      auto side = std::find_if(sides.begin(), sides.end(),
                               [&](const DecodeSide& s) { return s.transfer_mean == t_mean.value(); });
      if (side == sides.end()) side = sides.insert(sides.end(), decode_side(d, t_mean, step));
      // No pair without a decode pool (pools_point is infeasible), or with one beyond the device
      // bound by itself (the pair's check below rejects it).
      if (!side->pool.feasible || !side->within_bound) continue;
      Partner p{&pc, i, t_mean, static_cast<size_t>(side - sides.begin()), bound(pc, *side),
                pc.shape.devices() + side->devices};
      if (p.bound && std::isnan(*p.bound)) ordered = false;
      partners.push_back(p);
    }
    auto solve = [&](const Partner& p) { return solve_pair(d, p, sides[p.pool], req); };
    // The definition itself, for the cases where the bounds give no order (a NaN figure).
    auto scan = [&]() {
      std::optional<PairChoice> best;
      for (const Partner& p : partners) {
        std::optional<PairChoice> c = solve(p);
        if (c && sequentially_better(*c, best)) best = std::move(c);
      }
      return best;
    };
    if (!ordered) return scan();
    // Pairs with a bounded objective, least bound first (ties in candidate order).
    std::vector<const Partner*> heap, unknown;
    for (const Partner& p : partners) (p.bound ? heap : unknown).push_back(&p);
    const auto later = [](const Partner* x, const Partner* y) {
      return *x->bound != *y->bound ? *x->bound > *y->bound : x->index > y->index;
    };
    std::make_heap(heap.begin(), heap.end(), later);
    std::optional<PairChoice> best_known, best_unknown;
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const Partner& p = *heap.back();
      heap.pop_back();
      // The bound less a margin far above the rounding of the figures it sums.
      if (best_known && *p.bound - 1e-9 * std::abs(*p.bound) >= *best_known->objective) break;
      std::optional<PairChoice> c = solve(p);
      if (!c) continue;
      if (c->objective && std::isnan(*c->objective)) return scan();
      std::optional<PairChoice>& slot = c->objective ? best_known : best_unknown;
      if (!slot || earlier_in_order(*c, *slot)) slot = std::move(c);
    }
    if (best_known) return best_known;
    // No pair has a known objective (every bounded one was solved): the rest compete on devices,
    // fewest first by their bound.
    const auto more_devices = [](const Partner* x, const Partner* y) {
      return x->devices != y->devices ? x->devices > y->devices : x->index > y->index;
    };
    std::make_heap(unknown.begin(), unknown.end(), more_devices);
    while (!unknown.empty()) {
      std::pop_heap(unknown.begin(), unknown.end(), more_devices);
      const Partner& p = *unknown.back();
      unknown.pop_back();
      if (best_unknown && (p.devices > best_unknown->devices ||
                           (p.devices == best_unknown->devices && p.index > best_unknown->index)))
        break;
      std::optional<PairChoice> c = solve(p);
      if (!c) continue;
      if (c->objective) return scan();  // an unknown bound always means an unknown objective
      if (!best_unknown || earlier_in_order(*c, *best_unknown)) best_unknown = std::move(c);
    }
    return best_unknown;
  }

  // The sequential scan's rule: `c` replaces `best` when it is the first, or has a known objective
  // below the best's (or the best's is unknown), or neither is known and it needs fewer devices.
  static bool sequentially_better(const PairChoice& c, const std::optional<PairChoice>& best) {
    return !best || (c.objective && (!best->objective || *c.objective < *best->objective)) ||
           (!c.objective && !best->objective && c.devices < best->devices);
  }
  // Among pairs whose objectives are both known (or both unknown), the one the scan keeps: the
  // least objective (or fewest devices), the earlier candidate on a tie.
  static bool earlier_in_order(const PairChoice& c, const PairChoice& best) {
    if (c.objective) {
      if (*c.objective != *best.objective) return *c.objective < *best.objective;
    } else if (c.devices != best.devices) {
      return c.devices < best.devices;
    }
    return c.index < best.index;
  }

  DecodeSide decode_side(const Candidate& d, Seconds t_mean, const std::function<Seconds(int)>& step) {
    DecodeSide s;
    s.transfer_mean = t_mean.value();
    s.pool = decode_pool_sized(w_, request_gaps_, t_mean, d.decode_cap, step);
    if (!s.pool.feasible) return s;
    s.within_bound = double(s.pool.replicas) * d.shape.devices() <= kMaxPlanDevices;
    if (!s.within_bound) return s;
    s.devices = s.pool.replicas * d.shape.devices();
    s.figures = pool_figures(d, s.devices, d.activity(s.pool.batch, context_));
    return s;
  }

  // A lower bound of the objective of pairing prefill candidate `pc` with a decode side: at least
  // one prefill replica, at no less than its cheapest one-device figure; the decode side exactly;
  // for $/M tokens, no more tokens than lambda <= users / (mean prompt + (out - 1) TPOT) (the
  // closed loop's fixed point starts there and only waits add to it; an open loop's lambda is its
  // rate). nullopt exactly when the pair's objective is unknown; -inf when no useful bound holds.
  std::optional<double> bound(const Candidate& pc, const DecodeSide& side) const {
    const double devices = pc.shape.devices();
    const double minus_inf = -std::numeric_limits<double>::infinity();
    auto figure = [&](std::optional<double> one_device, std::optional<double> decode) -> std::optional<double> {
      if (!one_device || !decode) return std::nullopt;
      if (*one_device < 0) return minus_inf;  // more replicas would not cost more
      return devices * *one_device + *decode;
    };
    switch (options_.objective) {
      case Objective::cost: {
        const std::optional<double> per_hour =
            figure(lowest(pc.at0.per_hour, pc.at1.per_hour), side.figures.per_hour);
        if (!per_hour || *per_hour == minus_inf) return per_hour;
        const double s = pc.prefill->prompt_mean.value(), out = w_.output.mean;
        const double lambda = w_.load.rate_per_s
                                  ? *w_.load.rate_per_s
                                  : *w_.load.concurrency / (s + (out - 1.0) * side.pool.tpot.value());
        if (!(*per_hour >= 0) || !(lambda * out > 0) || !std::isfinite(lambda)) return minus_inf;
        return *per_hour / (lambda * out * 3600.0) * 1e6;
      }
      case Objective::capex: return figure(lowest(pc.at0.capex_total, pc.at1.capex_total), side.figures.capex);
      case Objective::power:
        return figure(lowest(pc.at0.facility_power, pc.at1.facility_power), side.figures.facility_w);
      case Objective::gpus: return devices + side.devices;
    }
    return minus_inf;
  }

  // The two pools of one pair at the workload, when they meet the SLA, the device bound and the
  // deployment-wide constraints.
  std::optional<PairChoice> solve_pair(const Candidate& d, const Partner& p, const DecodeSide& side,
                                       const Requirements& req) const {
    const Candidate& pc = *p.prefill;
    const Seconds t_p99 = kv_transfer_time(req.kv_bytes_per_token, w_.input.p99, *pc.link, *d.link);
    const PoolsPoint pt = pools_point(w_, *pc.prefill, p.transfer_mean, t_p99, side.pool);
    if (!pt.feasible) return std::nullopt;
    if (double(pt.prefill_replicas) * pc.shape.devices() + double(pt.decode_replicas) * d.shape.devices() >
        kMaxPlanDevices)
      return std::nullopt;
    const int pre_devices = pt.prefill_replicas * pc.shape.devices();
    const int dec_devices = pt.decode_replicas * d.shape.devices();
    const PoolFigures fp = pool_figures(pc, pre_devices, pt.prefill_utilisation * pc.prefill->activity);
    const PoolFigures fd = pool_figures(d, dec_devices, d.activity(pt.decode_batch, context_));
    const PoolFigures f{add(fp.per_hour, fd.per_hour), add(fp.capex, fd.capex), add(fp.tco, fd.tco),
                        add(fp.facility_w, fd.facility_w)};
    const int devices = pre_devices + dec_devices;
    if (!violated(constraints_, devices, f, options_.cost.tco_years).why.empty()) return std::nullopt;
    return PairChoice{&pc, p.index, pt,
                      objective_value(options_.objective, f, devices, pt.generated_tokens_per_s), devices};
  }

  // Stage 5 for a pair, pricing (disaggregated): the plan of decode shape `d` with its chosen
  // prefill pool, costed as the two pools' sum.
  Plan disaggregated_plan(const Candidate& d, const PairChoice& choice, const Requirements& req) {
    const PoolsPoint& pt = choice.point;
    const Candidate& pc = *choice.prefill;
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
                            pt.prefill_utilisation * pc.prefill->activity, prices_, options_.cost, pc.shape.node);
    const cost::DeploymentCost decode_cost =
        ranked_cost(*d.shape.accelerator, pt.decode_replicas * d.shape.devices(), pt.generated_tokens_per_s,
                    d.activity(pt.decode_batch, context_), prices_, options_.cost, d.shape.node);
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
    plan.devices = choice.devices;
    plan.concurrency = w_.load.concurrency ? *w_.load.concurrency : pt.lambda * pt.e2e_mean.value();
    plan.generated_tokens_per_s = pt.generated_tokens_per_s;
    plan.tokens_per_s_per_device = pt.generated_tokens_per_s / plan.devices;
    plan.tokens_per_s_per_user = 1.0 / pt.tpot.value();
    if (d.rm.communication_share) {
      plan.scaling_efficiency = 1.0 - d.rm.communication_share(decode_batch(pt.decode_batch, context_));
    }
    const std::string cap = pt.batch_cap >= d.fit_batch    ? fmt::format("memory ({} sequences fit)", d.fit_batch)
                            : pt.batch_cap >= d.decode_cap ? std::string("the number of users")
                                                           : fmt::format("the TPOT target ({:g} ms)",
                                                                         w_.sla.tpot_p99.value() * 1e3);
    plan.wall = pt.batch_cap >= d.fit_batch    ? BindingWall::memory_capacity
                : pt.batch_cap >= d.decode_cap ? BindingWall::load
                                               : BindingWall::latency;
    plan.binding = fmt::format(
        "disaggregated: {} prefill replicas at {:.0f}% utilisation hold TTFT p99 at {:.2f} s (a p99 "
        "prompt alone runs {:.2f} s); the KV of a mean prompt ({:.0f} MB) crosses {:.0f} GB/s in {:.1f} ms; "
        "each decode replica holds {} sequences at TPOT {:.1f} ms, its batch capped by {}",
        pool.replicas, 100 * pool.utilisation, pt.ttft_p99.value(), pool.prompt_p99.value(),
        req.kv_bytes_per_token.value() * w_.input.mean / 1e6, pool.link.value() / 1e9,
        pt.transfer_mean.value() * 1e3, pt.decode_batch, pt.tpot.value() * 1e3, cap);
    plan.prefill = std::move(pool);
    plan.software = d.software;
    for (const auto& r : pc.software.risks) {
      if (std::find(plan.software.risks.begin(), plan.software.risks.end(), r) == plan.software.risks.end())
        plan.software.risks.push_back("prefill pool: " + r);
    }
    return plan;
  }

  // Stage 7, ranking: known objective ascending (ties broken by fewer devices, then name for
  // determinism), then plans whose objective is unknown; near ties flagged; the throughput and
  // cost-latency Pareto fronts.
  void rank() {
    std::vector<Plan>& plans = result_.plans;
    std::stable_sort(plans.begin(), plans.end(), [](const Plan& x, const Plan& y) {
      if (x.objective.has_value() != y.objective.has_value()) return x.objective.has_value();
      if (x.objective && *x.objective != *y.objective) return *x.objective < *y.objective;
      if (x.devices != y.devices) return x.devices < y.devices;
      return x.describe() < y.describe();
    });
    for (size_t i = 1; i < plans.size(); ++i) {
      const auto& prev = plans[i - 1].objective;
      const auto& cur = plans[i].objective;
      if (prev && cur && *cur <= *prev * (1.0 + options_.near_tie_fraction)) plans[i].near_tie = true;
    }
    result_.throughput_front = pareto_front(result_.throughput_points, true, true);
    std::vector<Objective2> cl;
    std::vector<size_t> priced;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (!plans[i].cost.usd_per_million_tokens) continue;
      cl.push_back({*plans[i].cost.usd_per_million_tokens, plans[i].point.e2e_mean.value()});
      priced.push_back(i);
    }
    for (size_t k : pareto_front(cl, false, false)) result_.cost_latency_front.push_back(priced[k]);
  }

  const ModelSpec& model_;
  const InferenceWorkload& w_;
  const SearchSpace& space_;
  const Constraints& constraints_;
  const SearchOptions& options_;
  const ReplicaModelFactory& factory_;
  const cost::PriceBook& prices_;
  const double context_;  // mean context of a sequence in flight
  const std::vector<WeightedLength> request_gaps_;  // of the outputs (steady_state.h)
  const SteadyState steady_;
  const score::EcosystemBook builtin_ecosystem_;
  const score::EcosystemBook& ecosystem_;
  const SupportMatrix& support_;
  InferenceSearchResult result_;
  std::map<std::pair<Precision, Precision>, Requirements> reqs_;
  // Shapes that can serve as a pool of a disaggregated plan, by weight/KV precision.
  std::map<std::pair<Precision, Precision>, std::vector<Candidate>> pools_;
  // Of the accelerator being searched: its software verdicts by precision pair; of the node being
  // searched: the cost of one device at utilisation 0 and 1.
  std::map<std::pair<Precision, Precision>, SoftwareFit> fits_;
  std::optional<std::pair<cost::DeploymentCost, cost::DeploymentCost>> unit_costs_;
};

}  // namespace

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
  return InferenceSearch(model, w, space, constraints, options, factory, prices).run();
}

}  // namespace memwall::plan
