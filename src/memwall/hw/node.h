// A server node: N accelerators and how they talk to each other inside the box (scale-up) and to
// the cluster network (scale-out NICs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"

namespace memwall {

enum class IntraNodeTopology {
  nvswitch,         // every device one hop from every other through NVSwitch (HGX/DGX, NVL72)
  full_mesh,        // direct point-to-point links between all pairs (MI300X Infinity Fabric, Gaudi, HCCS)
  pcie_switch_p2p,  // PCIe with peer-to-peer through PCIe switches
  pcie_via_cpu,     // PCIe without peer-to-peer: every transfer bounces through host memory/CPU socket
  nvlink_bridge,    // NVLink bridges between pairs, PCIe otherwise
};

struct Node {
  std::string id;  // e.g. "hgx-h100"
  std::string name;
  std::string accelerator;  // catalog id of the devices
  int devices = 8;
  IntraNodeTopology topology = IntraNodeTopology::nvswitch;
  BytesPerSecond device_link_bandwidth_per_direction;  // scale-up bandwidth of one device
  Seconds device_link_latency;                         // one hop, per message
  std::optional<BytesPerSecond> cpu_socket_bandwidth_per_direction;  // inter-socket link (pcie_via_cpu)
  int sockets = 2;
  bool in_switch_reduction = false;  // NVLS-style reduction in the switch
  int nics = 8;                                // scale-out NICs per node
  BytesPerSecond nic_bandwidth_per_direction;  // per NIC
  int scaleup_domain = 8;  // devices reachable over the scale-up fabric (72 for NVL72)
  std::vector<std::string> sources;
  std::string notes;
};

}  // namespace memwall
