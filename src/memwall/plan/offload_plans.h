// Offload plans beside the all-GPU ones: one GPU with its host holding what the GPU cannot
// (layers, routed experts, KV cache), for each accelerator and weight precision of the search
// space on which the model does not fit one device, with the wall that binds (PCIe, DRAM
// bandwidth, CPU FLOP/s, HBM) and the cost of the GPU and of its host (CPUs, DRAM, NVMe;
// cost/host_cost.h), ranked by the total.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/host_cost.h"
#include "memwall/cost/prices.h"
#include "memwall/cost/tco.h"
#include "memwall/offload/placement.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/workload.h"

namespace memwall::plan {

struct OffloadPlan {
  std::string gpu;  // catalog id
  Precision weight = Precision::int4;
  offload::HostSetup host;
  offload::Estimate estimate;
  int64_t batch = 1;                  // sequences in flight (the concurrency; 1 for a rate)
  double generated_tokens_per_s = 0;  // decode steady state: batch / TPOT
  bool meets_sla = false;             // TTFT and TPOT (mean-length request) within the SLA
  std::string binding;                // the wall and its numbers, one sentence
  cost::DeploymentCost cost;          // the GPU only
  cost::HostCost host_cost;           // the host (CPUs busy the decode step's CPU share)
  cost::WithHost total;               // GPU + host; unknown when either is
};

// Plans ranked by the total (GPU + host) $ per million tokens; plans whose total is unknown after
// those with one, by the GPU's alone; at most `top`.
std::vector<OffloadPlan> search_offload(const Catalog& catalog, const ModelSpec& model,
                                        const InferenceWorkload& w, const SearchSpace& space,
                                        const cost::PriceBook& prices,
                                        const cost::CostOverrides& overrides, int top);

Json offload_plans_json(const std::vector<OffloadPlan>& plans);
// The host's figures: capex and its parts, $/hour, power, what it covers and leaves out, unknowns.
Json host_cost_json(const cost::HostCost& h);

}  // namespace memwall::plan
