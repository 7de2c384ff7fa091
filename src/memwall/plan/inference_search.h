// Inference planning: from a model, a load and an SLA, every feasible deployment (accelerator x
// node x TP x PP x EP x weight/KV precision x batch x replicas, aggregated or with disaggregated
// prefill/decode pools on possibly different hardware), ranked by an objective, with Pareto
// frontiers and the wall that binds each plan. The estimator answers through ReplicaModelFactory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/cancel.h"
#include "memwall/cost/tco.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/support.h"
#include "memwall/plan/pareto.h"
#include "memwall/plan/replica_model.h"
#include "memwall/plan/requirements.h"
#include "memwall/plan/steady_state.h"
#include "memwall/plan/vendors.h"
#include "memwall/score/ecosystem.h"

namespace memwall::plan {

enum class Objective { cost, capex, power, gpus };
Objective parse_objective(const std::string& s);  // InputError naming --objective
std::string to_string(Objective o);

struct SearchSpace {
  std::vector<const Accelerator*> accelerators;
  std::vector<const Node*> nodes;   // matched to accelerators by Node::accelerator
  const Fabric* fabric = nullptr;   // between nodes when a replica spans several (PP)
  std::vector<int> tp{1, 2, 4, 8};
  std::vector<int> pp{1, 2, 4, 8};
  // MoE models: expert parallelism over the whole tensor-parallel group (EP = TP) and experts
  // tensor-sliced like dense layers (EP = 1) are both searched.
  bool aggregated = true;     // prefill and decode share each replica (continuous batching)
  bool disaggregated = true;  // separate prefill and decode pools (needs `fabric` for the KV move)
  std::vector<Precision> weight_precisions{Precision::bf16, Precision::fp8_e4m3, Precision::int4};
  std::vector<Precision> kv_precisions{Precision::bf16, Precision::fp8_e4m3};
};

// `names` resolved through the catalog (aliases included), each accelerator once in the order first
// named: `h100,nvidia-h100-sxm` is one accelerator, not every plan twice (ui-audit-3 D2c). Empty
// names: every accelerator of the catalog.
std::vector<const Accelerator*> accelerators_named(const Catalog& catalog,
                                                   const std::vector<std::string>& names);

struct Constraints {
  std::optional<double> budget_usd;    // total cost over the TCO horizon
  std::optional<double> power_cap_w;   // facility power (board x PUE) of the whole deployment
  std::optional<int> max_gpus;
  std::vector<std::string> vendors;    // lower-case vendor prefixes; empty = all
  bool domestic_only = false;          // Chinese domestic vendors (vendors.h)
  std::optional<double> min_ecosystem;  // drop plans whose ecosystem score is below (or unknown)
  bool risk_averse = false;            // drop plans that carry a risk (immature stack, unknown support)
  std::string engine;                  // only this engine's support counts (kEngineIds); empty: any
};

// An ecosystem score below this marks an immature stack (a risk in every plan that uses it).
inline constexpr double kMatureEcosystem = 6.0;

// The software side of one accelerator x weight/KV precision (docs/plan.md "Software and risk").
struct SoftwareFit {
  bool feasible = true;            // false: the support matrix marks a format unsupported
  std::string why;                 // when infeasible: the verdict with its source
  std::string engine;              // the engine that runs it ("" when none is known)
  std::vector<std::string> support;  // the verdicts used, with sources (or "unknown")
  std::optional<double> ecosystem;   // 0-10 (score/ecosystem.h); nullopt: no sourced facts
  std::vector<std::string> ecosystem_reasons;
  std::vector<std::string> risks;    // immature stack, unknown support
  bool efficiency_calibrated = true;
  std::string efficiency_source;
};
SoftwareFit software_fit(const Accelerator& a, Precision weights, Precision kv, const Constraints& c,
                         const SupportMatrix& support, const score::EcosystemBook& ecosystem);
// The stack half of software_fit (ecosystem score, its reasons and risk, efficiency calibration),
// for questions with no serving engine (training).
SoftwareFit stack_fit(const Accelerator& a, Precision matmul, const score::EcosystemBook& ecosystem);

// The prefill pool of a disaggregated plan (the Plan's shape, replicas and batch are its decode
// pool). docs/plan.md "Disaggregated pools".
struct PrefillPool {
  ReplicaShape shape;
  int replicas = 0;
  double utilisation = 0;           // rho of each prefill replica (M/M/1)
  Seconds prompt_mean, prompt_p99;  // one prompt alone on a prefill replica
  Seconds kv_transfer_mean, kv_transfer_p99;  // KV of a mean / p99 prompt over the pool link
  BytesPerSecond link;              // slower of the two replicas' scale-out links
  Seconds link_latency;             // the larger of their latencies
  cost::DeploymentCost cost;        // the prefill pool alone
};

// What binds a plan (docs/plan.md "Binding wall"), as a category the scenario ranking reads: the
// branch of the binding sentence that was taken.
enum class BindingWall {
  memory_capacity,   // KV space caps the batch
  memory_bandwidth,  // decode streams weights and KV: memory traffic is the largest share
  compute,           // matmul work, or prefill (prompt processing) holding TTFT
  interconnect,      // exposed tensor/pipeline communication
  overhead,          // fixed per-step launches and engine work
  load,              // every sequence fits: the load, not the hardware
  engine_limit,      // the engine's max_num_seqs
  latency,           // a disaggregated decode pool capped by the TPOT target
  unknown
};
std::string_view to_string(BindingWall w);  // "memory capacity", "memory bandwidth", ...

struct Plan {
  ReplicaShape shape;  // disaggregated: the decode pool's replica
  OperatingPoint point;
  int batch_cap = 0;  // B*: the most sequences per replica that meet the SLA (search.h rule)
  int replicas = 0;                  // disaggregated: decode replicas
  int devices = 0;                   // all devices (both pools)
  std::optional<PrefillPool> prefill;  // set: disaggregated serving
  double concurrency = 0;            // sequences in flight over all replicas
  double generated_tokens_per_s = 0;  // whole deployment
  double tokens_per_s_per_device = 0;
  double tokens_per_s_per_user = 0;  // 1 / TPOT
  cost::DeploymentCost cost;         // the whole deployment (both pools)
  std::optional<double> objective;   // nullopt when a needed price/power figure is unknown
  std::optional<double> scaling_efficiency;
  std::string binding;               // one sentence: the wall and its numbers
  BindingWall wall = BindingWall::unknown;  // the wall that sentence names
  bool near_tie = false;             // within 2% of the plan ranked above it
  SoftwareFit software;              // engine, support verdicts, ecosystem, risks (decode pool)
  bool disaggregated() const { return prefill.has_value(); }
  // "4x nvidia-h100-sxm (hgx-h100) TP4 ..." or "prefill 2 x [...] + decode 3 x [...]"
  std::string describe() const;
};

// How far a shape got through the planner's checks before it was turned down, in their order:
// the catalog has the facts to plan it at all; the stack runs its formats; the catalog has the
// peak its matmuls run at; the parallel layout divides the model; it fits in memory; one sequence
// meets the SLA; the deployment meets the budget, power, device and risk constraints. The
// accelerator's binding reason is that of its shape that got furthest (plan/rejections.h).
enum class RejectionStage { catalog, support, peak, shape, memory, sla, constraint };

struct ShapeVerdict {  // why a shape produced no plan
  ReplicaShape shape;
  std::string reason;
  RejectionStage stage = RejectionStage::support;
  // How far off it was at its stage, as needed / available (memory: weights per device / device
  // memory; SLA: the worst latency at batch 1 / its target; constraints: the figure / its limit);
  // lower is closer; 0 when not measured.
  double shortfall = 0;
};

struct InferenceSearchResult {
  Requirements requirements;       // at the first weight/KV precisions of the space (bf16/bf16)
  std::vector<Plan> plans;         // feasible, ranked (priced first, then unknown cost)
  std::vector<Objective2> throughput_points;  // (tokens/s/device, tokens/s/user) of every feasible point
  std::vector<std::string> throughput_labels;  // "shape @ batch B" for each point
  std::vector<size_t> throughput_front;       // indices into throughput_points
  std::vector<size_t> cost_latency_front;     // indices into plans: ($/M tokens, e2e mean)
  std::vector<ShapeVerdict> rejected;
  int64_t shapes = 0;               // replica shapes considered
  int64_t configurations = 0;       // (shape, batch) operating points evaluated
  int64_t pool_pairs = 0;           // (prefill shape, decode shape) pairs evaluated
};

struct SearchOptions {
  Objective objective = Objective::cost;
  cost::CostOverrides cost;
  double near_tie_fraction = 0.02;
  const SupportMatrix* support = nullptr;            // nullptr: SupportMatrix::builtin()
  const score::EcosystemBook* ecosystem = nullptr;   // nullptr: EcosystemBook::builtin()
  const CancelFlag* cancel = nullptr;                // checked between shapes (core/cancel.h)
};

// Exhaustive over the space, with one provable pruning per shape (docs/plan.md "Search"): step
// time is non-decreasing in the batch (the roofline's compute and memory terms both grow with it),
// so TPOT, TTFT and e2e are non-decreasing in the batch and the feasible batches of a shape form
// an interval [1, B*]. Replicas = ceil(load / B) is non-increasing in B, so B* (found by bisection)
// minimises every objective for that shape; smaller batches are evaluated only at powers of two
// for the Pareto frontier. Disaggregated plans pair every prefill shape with every decode shape of
// the same weight/KV precisions; each decode shape keeps its best partner under the objective,
// found by an exact branch and bound over lower bounds of the pairs' objectives (docs/plan.md
// "pairing"): the partner a scan of every pair would keep.
InferenceSearchResult search_inference(const ModelSpec& model, const InferenceWorkload& w,
                                       const SearchSpace& space, const Constraints& constraints,
                                       const SearchOptions& options,
                                       const ReplicaModelFactory& factory,
                                       const cost::PriceBook& prices);

// Why the first plan won, in three sentences: cost against the best plan on another accelerator,
// risk (its flags, or that none were raised, and the cheapest plan without flags), and energy
// (tokens per joule of both, with the power figure's source). Empty when there is no plan.
std::vector<std::string> explain_first(const InferenceSearchResult& r);

}  // namespace memwall::plan
