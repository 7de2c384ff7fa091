// The achievable host-side rates every offload model times its transfers and CPU passes with: the
// CPU's streaming DRAM bandwidth, the CPU<->GPU link and NVMe, each as the host's datasheet peak
// (or a probe's measurement) times the fraction HostEfficiency gives. The inference placement
// model (placement.cc) and the training offload (train/offload.cc) both call these, so the two
// cannot drift apart.
#pragma once

#include <optional>
#include <string>

#include "memwall/core/units.h"
#include "memwall/offload/efficiency.h"
#include "memwall/offload/host_setup.h"

namespace memwall::offload {

// DRAM bandwidth a streaming CPU pass reaches: the peak of the sockets used (a second socket adds
// `second_socket_fraction` of its bandwidth) x cpu_memory_bandwidth_fraction; a probe's measured
// STREAM triad is scaled by that fraction / 0.8, STREAM's share of the peak.
BytesPerSecond cpu_stream_bandwidth(const HostSetup& h, const HostEfficiency& e,
                                    double second_socket_fraction);
// The share of the sockets' cores a pass gets under the same NUMA rule (1 for one socket).
double socket_scale(const HostSetup& h, double second_socket_fraction);

// The CPU<->GPU link (PCIe x16 of the slower end, or NVLink-C2C on Grace) as copies see it. The
// serving simulator times KV swap and host prefix-cache loads with it, the placement model its
// streamed weights and hand-overs, the training offload its gradient and parameter copies.
struct HostLinkModel {
  std::string name;           // "PCIe x16 31.5 GB/s per direction", "NVLink-C2C", ...
  BytesPerSecond achievable;  // per direction: the link's nominal rate x link_fraction
  Seconds per_copy;           // one copy launch and synchronisation (handover_latency)
};
HostLinkModel host_link_model(const HostSetup& h,
                              const HostEfficiency& e = default_host_efficiency());
// Time to move `bytes` in one direction as `copies` separate copies: bytes / achievable + copies x
// per-copy cost (the linear latency + size / bandwidth cost of a DMA transfer).
Seconds copy_time(const HostLinkModel& link, Bytes bytes, double copies = 1);
// Shorthands: one direction of the link at the achievable fraction (pinned copies), and the time
// to move `bytes` over it in `handovers` copies.
BytesPerSecond link_bandwidth(const HostSetup& h, const HostEfficiency& e);
Seconds link_time(Bytes bytes, const HostSetup& h, const HostEfficiency& e, double handovers = 0);
// Sequential NVMe read of `bytes` over `drives` drives of the host's catalog drive; nullopt when
// the catalog gives no NVMe bandwidth.
std::optional<Seconds> nvme_time(Bytes bytes, const HostSetup& h, double drives = 1);

}  // namespace memwall::offload
