// A scale-out cluster network: link technology and the switch hierarchy between nodes.
#pragma once

#include <string>
#include <vector>

#include "memwall/core/units.h"

namespace memwall {

struct Fabric {
  std::string id;  // e.g. "ib-ndr"
  std::string name;
  std::string technology;  // infiniband | roce | ethernet
  BytesPerSecond port_bandwidth_per_direction;  // per NIC port
  Seconds switch_hop_latency;                   // per switch traversal
  Seconds endpoint_latency;                     // NIC + software, per message
  int tiers = 2;                  // 2: leaf-spine, 3: leaf-spine-core
  double oversubscription = 1.0;  // leaf downlink:uplink bandwidth ratio (2.0 = 2:1)
  bool rail_optimized = true;     // GPU i of every node on leaf/rail i
  int nodes_per_leaf = 32;        // nodes (per rail) that share one leaf switch
  bool in_network_reduction = false;  // SHARP-style
  std::vector<std::string> sources;
  std::string notes;
};

}  // namespace memwall
