// Copies between GPU memory and host DRAM over the host link (PCIe x16 of the slower end, or
// NVLink-C2C on Grace), at the achievable share of the link and with a fixed cost per copy. The
// offload placement model times its streamed weights and hand-overs with it; the serving
// simulator times KV swap and host prefix-cache loads with it.
#pragma once

#include <string>

#include "memwall/core/units.h"
#include "memwall/offload/efficiency.h"
#include "memwall/offload/host_setup.h"

namespace memwall::offload {

struct HostLinkModel {
  std::string name;           // "PCIe x16 31.5 GB/s per direction", "NVLink-C2C", ...
  BytesPerSecond achievable;  // per direction: the link's nominal rate x link_fraction
  Seconds per_copy;           // one copy launch and synchronisation
};

// The link of `h` as the offload model uses it (HostEfficiency::link_fraction, handover_latency).
HostLinkModel host_link_model(const HostSetup& h,
                              const HostEfficiency& e = default_host_efficiency());

// Time to move `bytes` in one direction as `copies` separate copies: bytes / achievable + copies x
// per-copy cost (the linear cost model of a DMA transfer: latency + size / bandwidth).
Seconds copy_time(const HostLinkModel& link, Bytes bytes, double copies = 1);

}  // namespace memwall::offload
