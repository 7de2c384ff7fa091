// Offload plans beside the all-GPU ones: one GPU with its host holding what the GPU cannot
// (layers, routed experts, KV cache), for each accelerator and weight precision of the search
// space on which the model does not fit one device, with the wall that binds (PCIe, DRAM
// bandwidth, CPU FLOP/s, HBM) and the GPU's cost. The host (CPU, DRAM, NVMe) is not priced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
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
};

// Plans ranked by $ per million tokens (unknown cost last), at most `top`.
std::vector<OffloadPlan> search_offload(const Catalog& catalog, const ModelSpec& model,
                                        const InferenceWorkload& w, const SearchSpace& space,
                                        const cost::PriceBook& prices,
                                        const cost::CostOverrides& overrides, int top);

Json offload_plans_json(const std::vector<OffloadPlan>& plans);

}  // namespace memwall::plan
