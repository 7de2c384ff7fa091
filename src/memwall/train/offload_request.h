// The training question with an offload (memwall train --offload, docs/offload.md "Training"):
// train's request, the states to move off the GPU (DeepSpeed's offload_optimizer.device and
// offload_param.device) and the host. Without an offload it is train's answer, except that a
// configuration that does not fit the GPU is told which offload would make it fit.
#pragma once

#include <optional>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/offload/host_setup.h"
#include "memwall/train/offload.h"
#include "memwall/train/request.h"

namespace memwall::train {

struct OffloadRequest {
  Request train;
  OffloadSpec spec;                // none: train's answer
  offload::HostOptions host;       // --cpu, --host-memory, --host-profile
  std::optional<int> nvme_drives;  // per node; default: one drive per two GPUs (at least one)
};

struct OffloadAnswer {
  Answer answer;                           // estimate with the offload applied
  std::optional<offload::HostSetup> host;  // with an offload
  std::optional<OffloadEstimate> offload;
};

// The host of one node: --cpu as given, else the CPU the node's datasheet names (its model number
// in cpu_socket_link) or the offload model's default CPU for the GPU, with the node's sockets for
// a server CPU.
offload::HostSetup training_host(const Catalog& catalog, const Accelerator& gpu, const Node& node,
                                 offload::HostOptions o);

// InputError for bad input; InfeasibleError when the configuration does not fit even with the
// offload. Without an offload, a configuration that does not fit the GPU fails with train's
// message followed by the first of optimizer:cpu, optimizer:cpu,params:cpu and
// optimizer:nvme,params:nvme that would fit, with its step time.
OffloadAnswer answer(const Catalog& catalog, const OffloadRequest& r);

// train's JSON (to_json(Answer)) with "offload" when an offload was used.
Json to_json(const OffloadAnswer& a);

}  // namespace memwall::train
