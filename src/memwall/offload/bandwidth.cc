#include "memwall/offload/bandwidth.h"

#include <algorithm>

namespace memwall::offload {
namespace {

// STREAM triad reaches ~0.8 of the DRAM peak on current servers (AMD EPYC and Intel Xeon
// tuning guides); a probe's measured triad is scaled by cpu_memory_bandwidth_fraction / this.
constexpr double kStreamFractionOfPeak = 0.8;

}  // namespace

double socket_scale(const HostSetup& h, double second_socket_fraction) {
  const double sockets = std::max(1, h.host.sockets);
  return (1.0 + (sockets - 1.0) * second_socket_fraction) / sockets;
}

BytesPerSecond cpu_stream_bandwidth(const HostSetup& h, const HostEfficiency& e,
                                    double second_socket_fraction) {
  const double fraction = h.dram_measured ? e.cpu_memory_bandwidth_fraction / kStreamFractionOfPeak
                                          : e.cpu_memory_bandwidth_fraction;
  return BytesPerSecond(h.dram_peak.value() * socket_scale(h, second_socket_fraction) * fraction);
}

HostLinkModel host_link_model(const HostSetup& h, const HostEfficiency& e) {
  return {h.link, h.link_bandwidth * e.link_fraction, e.handover_latency};
}

Seconds copy_time(const HostLinkModel& link, Bytes bytes, double copies) {
  if (bytes.value() <= 0 && copies <= 0) return Seconds(0);
  return Seconds(bytes.value() / link.achievable.value() + copies * link.per_copy.value());
}

BytesPerSecond link_bandwidth(const HostSetup& h, const HostEfficiency& e) {
  return host_link_model(h, e).achievable;
}

Seconds link_time(Bytes bytes, const HostSetup& h, const HostEfficiency& e, double handovers) {
  return copy_time(host_link_model(h, e), bytes, handovers);
}

std::optional<Seconds> nvme_time(Bytes bytes, const HostSetup& h, double drives) {
  if (!h.nvme || drives <= 0) return std::nullopt;
  return Seconds(bytes.value() / (h.nvme->value() * drives));
}

}  // namespace memwall::offload
