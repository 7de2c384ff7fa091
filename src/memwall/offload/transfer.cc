#include "memwall/offload/transfer.h"

namespace memwall::offload {

HostLinkModel host_link_model(const HostSetup& h, const HostEfficiency& e) {
  return {h.link, h.link_bandwidth * e.link_fraction, e.handover_latency};
}

Seconds copy_time(const HostLinkModel& link, Bytes bytes, double copies) {
  if (bytes.value() <= 0 && copies <= 0) return Seconds(0);
  return Seconds(bytes.value() / link.achievable.value() + copies * link.per_copy.value());
}

}  // namespace memwall::offload
