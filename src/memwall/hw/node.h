// A server node: N accelerators and how they talk to each other inside the box (scale-up) and to
// the cluster network (scale-out NICs). The PCIe tree (switches, CPU sockets and the socket link)
// is described too, because cards without peer-to-peer move every byte through it.
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
  // Scale-up bandwidth of one device, per direction (all its links together; for full_mesh the sum
  // over its peer links, for pcie_* its PCIe link, for nvlink_bridge the bridge).
  BytesPerSecond device_link_bandwidth_per_direction;
  Seconds device_link_latency;                         // one hop, per message
  std::optional<BytesPerSecond> cpu_socket_bandwidth_per_direction;  // inter-socket link (pcie_via_cpu)
  int sockets = 2;
  bool in_switch_reduction = false;  // NVLS-style reduction in the switch
  int nics = 8;                                // scale-out NICs per node
  BytesPerSecond nic_bandwidth_per_direction;  // per NIC
  int scaleup_domain = 8;  // devices reachable over the scale-up fabric (72 for NVL72)
  // What is bought whole: "server", or "rack" for a rack-scale system sold and priced as one
  // (GB200 NVL72, CloudMatrix 384); plan tables label those rows and charge the whole rack.
  std::string unit = "server";
  std::vector<std::string> sources;
  std::string notes;

  // Added by the network model (defaults keep older entries valid).
  std::string scaleup_link;  // technology in words, e.g. "NVLink 4 x18 + NVSwitch gen3"
  // What a collective library's copy kernels reach on the scale-up links of one device, per
  // direction, when measured or stated by the vendor; empty = nominal x comm's link efficiency.
  std::optional<BytesPerSecond> device_link_achievable_bandwidth_per_direction;
  int bridge_group = 2;  // nvlink_bridge: devices joined by one set of bridges
  int pcie_generation = 5;
  BytesPerSecond pcie_bandwidth_per_direction;  // one device's host link (x16), nominal
  int devices_per_pcie_switch = 0;  // 0 = each device on its own CPU root port
  // Uplink of one PCIe switch to its CPU (x16 of the same generation when empty).
  std::optional<BytesPerSecond> pcie_switch_uplink_bandwidth_per_direction;
  std::string cpu_socket_link;  // e.g. "UPI (Ice Lake-SP)", "xGMI (EPYC Genoa)"
  std::string nic_model;        // e.g. "ConnectX-7"
  std::vector<std::string> unconfirmed;  // fields whose value is reported but not vendor-confirmed
  // What running on this node risks beyond the accelerator's own stack, e.g. a patched driver
  // (empty: none); plans on it carry it as a software risk (RISK column, --risk-averse).
  std::string risk;

  int devices_per_socket() const { return sockets > 0 ? (devices + sockets - 1) / sockets : devices; }
  bool peer_to_peer() const { return topology != IntraNodeTopology::pcie_via_cpu; }
};

const char* to_string(IntraNodeTopology t);

}  // namespace memwall
