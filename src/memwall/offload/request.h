// The inference question with an offload choice (memwall infer --offload, the Python module, the
// web API): the infer request, the strategy and the host. With no offload it is infer's answer,
// except that a model that does not fit is told which offload would run it and how fast.
#pragma once

#include <optional>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/infer/request.h"
#include "memwall/offload/host_setup.h"
#include "memwall/offload/placement.h"

namespace memwall::offload {

struct Request {
  infer::Request infer;
  StrategySpec strategy;  // none: infer's answer
  HostOptions host;
};

struct Answer {
  infer::Deployment deployment;
  std::optional<HostSetup> host;  // with an offload
  std::vector<int64_t> batches;
  std::vector<Estimate> estimates;        // with an offload: one per batch that fits
  std::optional<infer::Answer> gpu_only;  // without
};

// InputError for bad input; InfeasibleError when nothing fits; without an offload, the message
// of a model that does not fit ends with the fastest offload that runs it ("--offload auto").
Answer answer(const Catalog& catalog, const Request& r);

// infer's JSON object (ttft_s, tpot_s, ...), with "offload" (strategy, placement per tensor
// class, bytes on GPU/host/disk, transfer time per step, host) when an offload was used.
Json to_json(const Answer& a, bool explain);

}  // namespace memwall::offload
