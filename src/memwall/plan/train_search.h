// Training planning: from a model, a token count and a deadline (and optionally a budget), the
// cheapest feasible training runs over accelerator x GPU count x TP/PP/DP/CP/EP x virtual stages x
// micro-batch x recomputation x ZeRO stage x precision, each with its MFU, time, energy, cost, the
// network it assumes and what a cheaper network would cost in time. Every configuration is timed
// by the training estimator (train::estimate_training); the planner only enumerates and ranks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/cost/tco.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"
#include "memwall/model/transformer.h"
#include "memwall/score/ecosystem.h"
#include "memwall/train/config.h"
#include "memwall/train/estimate.h"

namespace memwall::plan {

struct TrainGoal {
  double tokens = 0;       // tokens to train on
  double days = 0;         // deadline
  std::optional<double> budget_usd;
  int64_t seq = 4096;      // tokens per sequence
  // Most tokens per optimizer step: 4M = 2^22, the order of GPT-3 175B's 3.2M (Brown et al. 2020
  // Table 2.1). Rounded down to whole micro-batches x DP, never above.
  double batch_tokens = 4.0 * 1024 * 1024;
  int max_gpus = 4096;
  void validate() const;
};

struct TrainSpace {
  std::vector<const Accelerator*> accelerators;
  std::vector<const Node*> nodes;     // a run needs a node of its accelerator
  const Fabric* fabric = nullptr;     // the cluster network assumed
  const Fabric* cheaper_fabric = nullptr;  // re-timed on this for "what a cheaper network costs"
  std::vector<std::string> vendors;   // lower-case prefixes; empty = all
  bool domestic_only = false;
  std::optional<double> min_ecosystem;  // drop accelerators whose ecosystem score is below (or unknown)
  bool risk_averse = false;           // drop accelerators on immature stacks
  const score::EcosystemBook* ecosystem = nullptr;  // nullptr: EcosystemBook::builtin()
  // Matmul precisions searched (fp8 only where the device has it) and the fp8 scalings allowed
  // (block-scaled off Blackwell, MXFP8 on it); plan::apply_training_quality narrows both.
  std::vector<Precision> precisions{Precision::bf16, Precision::fp8_e4m3};
  std::vector<Fp8Recipe> fp8_recipes{Fp8Recipe::blockwise, Fp8Recipe::mxfp8};
};

struct TrainPlan {
  const Accelerator* accelerator = nullptr;
  const Node* node = nullptr;
  train::TrainConfig config;
  double tokens_per_s = 0;
  double mfu = 0;
  train::StepBreakdown breakdown;      // of one optimizer step (what the step time is made of)
  double days = 0;
  double gpu_hours = 0;
  std::optional<double> energy_kwh;
  cost::DeviceHourCost device;         // one GPU-hour at the run's modelled activity
  std::optional<double> cost_usd;      // gpu_hours x $/GPU-hour
  Bytes memory_per_gpu;
  std::string network;                 // node scale-up and the fabric, in words
  std::optional<double> cheaper_network_days;  // the same configuration on cheaper_fabric
  bool near_tie = false;
  int servers = 0;                     // whole nodes bought (owned) or rented
  std::optional<double> energy_usd;    // facility energy x $/kWh (owned)
  std::optional<double> tokens_per_joule;  // trained tokens / wall energy
  std::string ecosystem_summary;       // "6.5/10 on CANN"
  std::optional<double> ecosystem;
  std::vector<std::string> risks;
  bool efficiency_calibrated = true;
  std::string efficiency_source;
};

struct TrainSearchResult {
  std::vector<TrainPlan> plans;   // the cheapest feasible run per accelerator/node, cheapest first
  std::vector<std::string> rejected;  // per accelerator/node: why no run meets the goal
  int64_t configurations = 0;     // configurations timed by the estimator
  // Per GPU count, a configuration whose smallest step (micro-batch x DP) is above the target
  // batch and that would be faster than the best within it: never planned, listed as needing a
  // larger batch.
  std::vector<std::string> larger_batch;
};

// Space (docs/plan.md "Training"): GPU counts node.devices x {1, 2, 3, 4, 6, 8, 12, ...} up to
// max_gpus; TP {1,2,4,8} within the node, sequence parallel whenever TP > 1; PP {1,2,4,8,16,32};
// virtual stages {1,2} when PP > 1 (uneven layer splits as the estimator places them); schedule
// 1F1B, and DualPipe for MoE models with an even PP; fp8 with the block-scaled recipe (MXFP8 on
// Blackwell); CP {1,2}
// for sequences of 16k tokens or more; EP {1,2,4,...,256} up to DP x CP for MoE models; the
// global batch is the largest multiple of micro-batch x DP within the target batch (never above); micro-batch {1,2,4}; recompute {none, selective, full}; ZeRO {1,2,3} (ZeRO-0 is
// never faster than ZeRO-1 and holds more memory); precision bf16 and fp8 where the device has it.
// Exhaustive but for one provable cut: recompute levels and ZeRO stages are tried cheapest first and
// the first that fits ends the line (both only add time). Every other combination is timed; the fastest
// per GPU count is kept, and the cheapest GPU count that meets the deadline (and budget) wins.
TrainSearchResult search_training(const ModelSpec& model, const TrainGoal& goal,
                                  const TrainSpace& space, const cost::CostOverrides& cost_options,
                                  const cost::PriceBook& prices);

// "2T", "300B", "1.5e12", "500M" -> tokens; InputError naming --tokens otherwise.
double parse_token_count(const std::string& s);

}  // namespace memwall::plan
