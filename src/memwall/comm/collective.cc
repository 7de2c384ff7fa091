// Interim ring model: every step on the slower of the node link and the NIC. The network model
// (issue 5) replaces this file with topology-aware algorithms.
#include "memwall/comm/collective.h"

#include <algorithm>

namespace memwall::comm {

CollectiveEstimate estimate(const Cluster& cluster, Collective op, Bytes bytes, const Group& group) {
  CollectiveEstimate e;
  const int n = group.size;
  if (n <= 1 || cluster.node == nullptr) return e;
  const Node& node = *cluster.node;
  const int span = (n - 1) * group.stride + 1;
  const bool inter = cluster.fabric != nullptr && span > node.devices;
  BytesPerSecond bw = node.device_link_bandwidth_per_direction;
  Seconds alpha = node.device_link_latency;
  if (inter) {
    bw = std::min(bw, cluster.fabric->port_bandwidth_per_direction);
    alpha = alpha + cluster.fabric->endpoint_latency + cluster.fabric->switch_hop_latency * 3.0;
  }
  // Ring costs (Thakur et al. 2005; nccl-tests doc/PERFORMANCE.md): all-reduce 2(n-1)/n S/B,
  // reduce-scatter / all-gather / all-to-all (n-1)/n S/B, broadcast and send/recv S/B.
  double factor = 1.0, steps = 1.0;
  switch (op) {
    case Collective::all_reduce: factor = 2.0 * (n - 1) / n; steps = 2.0 * (n - 1); break;
    case Collective::reduce_scatter:
    case Collective::all_gather:
    case Collective::all_to_all: factor = double(n - 1) / n; steps = n - 1; break;
    case Collective::broadcast:
    case Collective::send_recv: factor = 1.0; steps = 1.0; break;
  }
  e.time = alpha * steps + Seconds(factor * bytes.value() / bw.value());
  e.algorithm = "ring";
  e.bottleneck = inter ? "nic" : "scale-up link";
  e.algorithm_bandwidth = BytesPerSecond(bytes.value() / e.time.value());
  e.bus_bandwidth = e.algorithm_bandwidth * factor;
  return e;
}

}  // namespace memwall::comm
