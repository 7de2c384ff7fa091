// Training offload plans beside the all-GPU ones (`plan train` when no all-GPU run meets the goal):
// a few GPUs of each accelerator with the model states DeepSpeed ZeRO-Offload / ZeRO-Infinity put
// in host DRAM or on NVMe (train/offload.h), the fastest per accelerator, with its days, GPU-hours
// and the cost of the GPUs and their hosts: a node's price already includes its host (its platform
// share when owned, the instance when rented; docs/cost.md), otherwise the offload host's CPUs,
// DRAM and NVMe (cost/host_cost.h) are added per node.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/host_cost.h"
#include "memwall/cost/prices.h"
#include "memwall/cost/tco.h"
#include "memwall/plan/train_search.h"
#include "memwall/train/offload.h"

namespace memwall::plan {

struct TrainOffloadPlan {
  const Accelerator* accelerator = nullptr;
  const Node* node = nullptr;
  train::TrainConfig config;
  train::OffloadSpec spec;
  std::string host;  // "2 x intel-xeon-platinum-8168, 1536 GiB"
  double tokens_per_s = 0;
  double mfu = 0;
  double days = 0;
  double gpu_hours = 0;
  bool meets_deadline = false;
  std::optional<double> cost_usd;  // GPU-hours x $/GPU-hour (a node's host share included, see below)
  int nodes = 1;                   // hosts: one per node in use
  cost::HostCost host_cost;        // one node's offload host (CPUs, DRAM, NVMe)
  bool host_in_gpu_price = false;  // the GPU's $/hour already carries its node's host
  std::optional<double> total_cost_usd;  // GPUs + hosts: cost_usd, plus the hosts when not included
  Bytes memory_per_gpu, host_per_node, nvme_per_node;
  std::string bound;  // the offload's wall
};

// GPU counts 1, 2, 4 and whole nodes up to 4 (within goal.max_gpus); TP 1 and PP 1 (DeepSpeed's
// offload runs on ZeRO data parallelism); offloads optimizer:cpu (ZeRO-2),
// optimizer:cpu,params:cpu and optimizer:nvme,params:nvme (ZeRO-3); micro-batch 1, 2, 4, 8;
// full recomputation; bf16 (fp16 where the GPU has no bf16). The fastest fitting configuration
// per accelerator, those meeting the deadline first, then by days; at most `top`.
std::vector<TrainOffloadPlan> search_training_offload(const Catalog& catalog,
                                                      const ModelSpec& model, const TrainGoal& goal,
                                                      const TrainSpace& space,
                                                      const cost::CostOverrides& cost_options,
                                                      const cost::PriceBook& prices, int top);

Json train_offload_plans_json(const std::vector<TrainOffloadPlan>& plans);

}  // namespace memwall::plan
