// A scale-out cluster network: link technology and the switch hierarchy between nodes
// (leaf/spine, optionally a core tier), with the oversubscription of each tier.
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

  // Added by the network model (defaults keep older entries valid).
  int leaves_per_pod = 16;             // 3 tiers: leaf groups under one spine block (pod)
  double core_oversubscription = 1.0;  // 3 tiers: spine down:up ratio
  std::vector<std::string> unconfirmed;  // fields whose value is reported but not vendor-confirmed

  int nodes_per_pod() const { return nodes_per_leaf * leaves_per_pod; }
};

}  // namespace memwall
