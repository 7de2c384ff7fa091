// The physical graph of a cluster built from a node type and a fabric: devices, NVSwitch fabrics,
// PCIe switches, CPU sockets, NICs and the leaf/spine/core switches, joined by links that carry a
// bandwidth per direction and a latency. It names the path a transfer takes (for --explain and
// the bottleneck report); the collective cost model reads the same node and fabric fields.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"

namespace memwall::comm {

enum class VertexKind { device, nvswitch, pcie_switch, cpu_socket, nic, leaf, spine, core };
enum class LinkKind { nvlink, mesh, pcie, pcie_uplink, socket, network, leaf_uplink, spine_uplink };

const char* to_string(VertexKind k);
const char* to_string(LinkKind k);

struct Vertex {
  VertexKind kind;
  std::string name;  // e.g. "n0.gpu3", "n0.cpu1", "leaf0.rail2", "spine"
};

struct Link {
  int a = 0, b = 0;  // vertex indices; the link is full duplex
  LinkKind kind = LinkKind::pcie;
  BytesPerSecond bandwidth_per_direction;
  Seconds latency;
  std::string label;  // technology in words, e.g. "NVLink 4 x18 + NVSwitch gen3"
};

class Topology {
 public:
  // `nodes` copies of `node`; `fabric` may be null for a single node. Leaf, spine and core links
  // are aggregated: one link per leaf (per rail) carrying the leaf's whole uplink capacity.
  Topology(const Node& node, const Fabric* fabric, int nodes);

  const std::vector<Vertex>& vertices() const { return vertices_; }
  const std::vector<Link>& links() const { return links_; }
  int device(int global_rank) const;  // vertex index of a device
  int count(VertexKind k) const;

  // The links a transfer from device `from` to device `to` (global indices) crosses, in order:
  // scale-up links inside a node (through host memory when the node has no peer-to-peer), and
  // GPU -> NIC -> leaf [-> spine [-> core -> spine] -> leaf] -> NIC -> GPU across nodes (the
  // sender's rail; the last hop inside the receiving node when it sits on another rail).
  std::vector<int> route(int from, int to) const;
  std::string describe(const std::vector<int>& path) const;  // "n0.gpu0 -NVLink-> n0.nvswitch ..."

 private:
  int add_vertex(VertexKind k, std::string name);
  void add_link(int a, int b, LinkKind kind, BytesPerSecond bw, Seconds latency, std::string label);
  int link_between(int a, int b) const;
  void append(std::vector<int>& path, int a, int b) const;
  void route_inside(std::vector<int>& path, int node, int from_local, int to_local) const;

  const Node& node_;
  const Fabric* fabric_;
  int nodes_;
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  std::unordered_map<long long, int> link_index_;
  // Per node: first device vertex, nvswitch, pcie switches, cpus, nics; per leaf group/rail.
  std::vector<int> first_device_, nvswitch_, first_switch_, first_cpu_, first_nic_;
  std::vector<int> leaf_;   // [leaf_group * rails + rail]
  std::vector<int> spine_;  // [pod * rails + rail]
  int core_ = -1;
  int rails_ = 1, leaf_groups_ = 1, pods_ = 1, switches_per_node_ = 0;
};

}  // namespace memwall::comm
