// Inference planning: from a model, a load and an SLA, every feasible deployment (accelerator x
// node x TP x PP x weight/KV precision x batch x replicas), ranked by an objective, with Pareto
// frontiers and the wall that binds each plan. The estimator answers through ReplicaModelFactory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/cost/tco.h"
#include "memwall/hw/fabric.h"
#include "memwall/plan/pareto.h"
#include "memwall/plan/replica_model.h"
#include "memwall/plan/requirements.h"
#include "memwall/plan/steady_state.h"

namespace memwall::plan {

enum class Objective { cost, capex, power, gpus };
Objective parse_objective(const std::string& s);  // InputError naming --objective
std::string to_string(Objective o);

struct SearchSpace {
  std::vector<const Accelerator*> accelerators;
  std::vector<const Node*> nodes;   // matched to accelerators by Node::accelerator
  const Fabric* fabric = nullptr;   // between nodes when a replica spans several (PP)
  std::vector<int> tp{1, 2, 4, 8};
  std::vector<int> pp{1, 2, 4};
  std::vector<Precision> weight_precisions{Precision::bf16, Precision::fp8_e4m3, Precision::int4};
  std::vector<Precision> kv_precisions{Precision::bf16, Precision::fp8_e4m3};
};

struct Constraints {
  std::optional<double> budget_usd;    // total cost over the TCO horizon
  std::optional<double> power_cap_w;   // facility power (board x PUE) of the whole deployment
  std::optional<int> max_gpus;
  std::vector<std::string> vendors;    // lower-case vendor prefixes; empty = all
  bool domestic_only = false;          // Huawei, Cambricon, Hygon (Chinese domestic vendors)
};

struct Plan {
  ReplicaShape shape;
  OperatingPoint point;
  int batch_cap = 0;  // B*: the most sequences per replica that meet the SLA (search.h rule)
  int replicas = 0;
  int devices = 0;
  double concurrency = 0;            // sequences in flight over all replicas
  double generated_tokens_per_s = 0;  // whole deployment
  double tokens_per_s_per_device = 0;
  double tokens_per_s_per_user = 0;  // 1 / TPOT
  cost::DeploymentCost cost;
  std::optional<double> objective;   // nullopt when a needed price/power figure is unknown
  std::optional<double> scaling_efficiency;
  std::string binding;               // one sentence: the wall and its numbers
  bool near_tie = false;             // within 2% of the plan ranked above it
};

struct ShapeVerdict {             // why a shape produced no plan
  ReplicaShape shape;
  std::string reason;
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
};

struct SearchOptions {
  Objective objective = Objective::cost;
  cost::CostOverrides cost;
  double near_tie_fraction = 0.02;
};

// Exhaustive over the space, with one provable pruning per shape (docs/plan.md "Search"): step
// time is non-decreasing in the batch (the roofline's compute and memory terms both grow with it),
// so TPOT, TTFT and e2e are non-decreasing in the batch and the feasible batches of a shape form
// an interval [1, B*]. Replicas = ceil(load / B) is non-increasing in B, so B* (found by bisection)
// minimises every objective for that shape; smaller batches are evaluated only at powers of two
// for the Pareto frontier.
InferenceSearchResult search_inference(const ModelSpec& model, const InferenceWorkload& w,
                                       const SearchSpace& space, const Constraints& constraints,
                                       const SearchOptions& options,
                                       const ReplicaModelFactory& factory,
                                       const cost::PriceBook& prices);

// Domestic (Chinese) accelerator vendors, lower case.
bool is_domestic_vendor(const std::string& vendor);

}  // namespace memwall::plan
