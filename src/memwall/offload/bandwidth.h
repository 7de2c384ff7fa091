// The achievable host-side rates every offload model times its transfers and CPU passes with: the
// CPU's streaming DRAM bandwidth, the CPU<->GPU link and NVMe, each as the host's datasheet peak
// (or a probe's measurement) times the fraction HostEfficiency gives. The inference placement
// model (placement.cc) and the training offload (train/offload.cc) both call these, so the two
// cannot drift apart.
#pragma once

#include <optional>

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
// One direction of the CPU<->GPU link at the achievable fraction (pinned copies).
BytesPerSecond link_bandwidth(const HostSetup& h, const HostEfficiency& e);
// Time to move `bytes` over the link in `handovers` copies (each a launch and a synchronisation).
Seconds link_time(Bytes bytes, const HostSetup& h, const HostEfficiency& e, double handovers = 0);
// Sequential NVMe read of `bytes` over `drives` drives of the host's catalog drive; nullopt when
// the catalog gives no NVMe bandwidth.
std::optional<Seconds> nvme_time(Bytes bytes, const HostSetup& h, double drives = 1);

}  // namespace memwall::offload
