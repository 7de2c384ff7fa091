#include "memwall/comm/topology.h"

#include <algorithm>

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::comm {

const char* to_string(VertexKind k) {
  switch (k) {
    case VertexKind::device: return "device";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::pcie_switch: return "pcie-switch";
    case VertexKind::cpu_socket: return "cpu-socket";
    case VertexKind::nic: return "nic";
    case VertexKind::leaf: return "leaf";
    case VertexKind::spine: return "spine";
    case VertexKind::core: return "core";
  }
  return "?";
}

const char* to_string(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink: return "NVLink/NVSwitch";
    case LinkKind::mesh: return "scale-up mesh link";
    case LinkKind::pcie: return "PCIe";
    case LinkKind::pcie_uplink: return "PCIe switch uplink";
    case LinkKind::socket: return "CPU socket link";
    case LinkKind::network: return "NIC port";
    case LinkKind::leaf_uplink: return "leaf-to-spine uplinks";
    case LinkKind::spine_uplink: return "spine-to-core uplinks";
  }
  return "?";
}

int Topology::add_vertex(VertexKind k, std::string name) {
  vertices_.push_back(Vertex{k, std::move(name)});
  return static_cast<int>(vertices_.size()) - 1;
}

void Topology::add_link(int a, int b, LinkKind kind, BytesPerSecond bw, Seconds latency,
                        std::string label) {
  link_index_[static_cast<long long>(a) * (1LL << 31) + b] = static_cast<int>(links_.size());
  link_index_[static_cast<long long>(b) * (1LL << 31) + a] = static_cast<int>(links_.size());
  links_.push_back(Link{a, b, kind, bw, latency, std::move(label)});
}

int Topology::link_between(int a, int b) const {
  auto it = link_index_.find(static_cast<long long>(a) * (1LL << 31) + b);
  return it == link_index_.end() ? -1 : it->second;
}

void Topology::append(std::vector<int>& path, int a, int b) const {
  const int l = link_between(a, b);
  if (l >= 0) path.push_back(l);
}

Topology::Topology(const Node& node, const Fabric* fabric, int nodes)
    : node_(node), fabric_(fabric), nodes_(nodes) {
  if (nodes < 1 || node.devices < 1)
    throw InputError("nodes", std::to_string(nodes), "a whole number >= 1");
  if (static_cast<long long>(nodes) * node.devices > 1000000)
    throw InputError("nodes", std::to_string(nodes), "at most 1,000,000 devices in all");
  const int d = node.devices;
  const int per_switch = node.devices_per_pcie_switch;
  switches_per_node_ = per_switch > 0 ? (d + per_switch - 1) / per_switch : 0;
  const int dps = node.devices_per_socket();
  const BytesPerSecond uplink =
      node.pcie_switch_uplink_bandwidth_per_direction.value_or(node.pcie_bandwidth_per_direction);
  const Seconds pcie_latency = us(0.5);  // per PCIe hop; NCCL's PCI ring LL hop is 1.0 us end to end
  const std::string pcie_label = fmt::format("PCIe Gen{} x16", node.pcie_generation);
  const Seconds half_hop = node.device_link_latency * 0.5;

  for (int i = 0; i < nodes; ++i) {
    first_device_.push_back(static_cast<int>(vertices_.size()));
    for (int j = 0; j < d; ++j) add_vertex(VertexKind::device, fmt::format("n{}.gpu{}", i, j));
    nvswitch_.push_back(-1);
    if (node.topology == IntraNodeTopology::nvswitch) {
      nvswitch_.back() = add_vertex(VertexKind::nvswitch, fmt::format("n{}.nvswitch", i));
      for (int j = 0; j < d; ++j)
        add_link(first_device_[i] + j, nvswitch_.back(), LinkKind::nvlink,
                 node.device_link_bandwidth_per_direction, half_hop, node.scaleup_link);
    } else if (node.topology == IntraNodeTopology::full_mesh && d > 1) {
      for (int a = 0; a < d; ++a)
        for (int b = a + 1; b < d; ++b)
          add_link(first_device_[i] + a, first_device_[i] + b, LinkKind::mesh,
                   node.device_link_bandwidth_per_direction / (d - 1), node.device_link_latency,
                   node.scaleup_link);
    } else if (node.topology == IntraNodeTopology::nvlink_bridge) {
      const int g = std::max(2, node.bridge_group);
      for (int a = 0; a < d; ++a)
        for (int b = a + 1; b < d && b / g == a / g; ++b)
          add_link(first_device_[i] + a, first_device_[i] + b, LinkKind::nvlink,
                   node.device_link_bandwidth_per_direction / (g - 1), node.device_link_latency,
                   node.scaleup_link);
    }
    first_cpu_.push_back(static_cast<int>(vertices_.size()));
    for (int s = 0; s < node.sockets; ++s) add_vertex(VertexKind::cpu_socket, fmt::format("n{}.cpu{}", i, s));
    if (node.cpu_socket_bandwidth_per_direction && node.sockets <= 8)
      for (int a = 0; a < node.sockets; ++a)
        for (int b = a + 1; b < node.sockets; ++b)
          add_link(first_cpu_[i] + a, first_cpu_[i] + b, LinkKind::socket,
                   *node.cpu_socket_bandwidth_per_direction, us(0.2), node.cpu_socket_link);
    auto cpu_of = [&](int local) { return first_cpu_[i] + std::min(node.sockets - 1, local / dps); };
    first_switch_.push_back(static_cast<int>(vertices_.size()));
    for (int k = 0; k < switches_per_node_; ++k) {
      const int sw = add_vertex(VertexKind::pcie_switch, fmt::format("n{}.pcisw{}", i, k));
      add_link(sw, cpu_of(k * per_switch), LinkKind::pcie_uplink, uplink, pcie_latency, pcie_label);
    }
    for (int j = 0; j < d; ++j) {
      const int up = switches_per_node_ ? first_switch_[i] + j / per_switch : cpu_of(j);
      add_link(first_device_[i] + j, up, LinkKind::pcie, node.pcie_bandwidth_per_direction,
               pcie_latency, pcie_label);
    }
    first_nic_.push_back(static_cast<int>(vertices_.size()));
    for (int q = 0; q < node.nics; ++q) {
      const int nic = add_vertex(VertexKind::nic, fmt::format("n{}.nic{}", i, q));
      const int near = static_cast<int>(static_cast<long long>(q) * d / node.nics);
      const int up = switches_per_node_ ? first_switch_[i] + near / per_switch : cpu_of(near);
      add_link(nic, up, LinkKind::pcie, node.pcie_bandwidth_per_direction, pcie_latency, pcie_label);
    }
  }

  if (fabric == nullptr || node.nics == 0) return;
  const Fabric& f = *fabric;
  rails_ = f.rail_optimized ? node.nics : 1;
  const int npl = f.tiers == 1 ? nodes : f.nodes_per_leaf;
  leaf_groups_ = (nodes + npl - 1) / npl;
  pods_ = f.tiers == 3 ? (leaf_groups_ + f.leaves_per_pod - 1) / f.leaves_per_pod : 1;
  const int nics_per_leaf_port = f.rail_optimized ? 1 : node.nics;
  const BytesPerSecond port = std::min(f.port_bandwidth_per_direction, node.nic_bandwidth_per_direction);
  const std::string port_label = fmt::format("{} ({} Gb/s)", f.name, f.port_bandwidth_per_direction.value() * 8 / kGiga);
  for (int g = 0; g < leaf_groups_; ++g)
    for (int r = 0; r < rails_; ++r)
      leaf_.push_back(add_vertex(VertexKind::leaf, rails_ > 1 ? fmt::format("leaf{}.rail{}", g, r)
                                                              : fmt::format("leaf{}", g)));
  if (f.tiers >= 2 && leaf_groups_ > 1) {
    for (int p = 0; p < pods_; ++p)
      for (int r = 0; r < rails_; ++r)
        spine_.push_back(add_vertex(VertexKind::spine, pods_ > 1 ? fmt::format("spine.pod{}.rail{}", p, r)
                                                                 : fmt::format("spine.rail{}", r)));
    if (f.tiers == 3 && pods_ > 1) core_ = add_vertex(VertexKind::core, "core");
  }
  for (int i = 0; i < nodes; ++i)
    for (int q = 0; q < node.nics; ++q)
      add_link(first_nic_[i] + q, leaf_[(i / npl) * rails_ + q % rails_], LinkKind::network, port,
               f.endpoint_latency + f.switch_hop_latency, port_label);
  if (spine_.empty()) return;
  for (int g = 0; g < leaf_groups_; ++g) {
    const int in_group = std::min(npl, nodes - g * npl);
    const int pod = g / f.leaves_per_pod;
    for (int r = 0; r < rails_; ++r)
      add_link(leaf_[g * rails_ + r], spine_[(pods_ > 1 ? pod : 0) * rails_ + r], LinkKind::leaf_uplink,
               port * (in_group * nics_per_leaf_port / f.oversubscription), f.switch_hop_latency,
               fmt::format("{}:1 oversubscribed", f.oversubscription));
  }
  if (core_ < 0) return;
  for (int p = 0; p < pods_; ++p) {
    const int in_pod = std::min(f.nodes_per_pod(), nodes - p * f.nodes_per_pod());
    for (int r = 0; r < rails_; ++r)
      add_link(spine_[p * rails_ + r], core_, LinkKind::spine_uplink,
               port * (in_pod * nics_per_leaf_port / (f.oversubscription * f.core_oversubscription)),
               f.switch_hop_latency, fmt::format("{}:1 core", f.core_oversubscription));
  }
}

int Topology::device(int global_rank) const {
  const int d = node_.devices;
  if (global_rank < 0 || global_rank >= d * nodes_)
    throw InputError("rank", std::to_string(global_rank),
                     fmt::format("0 to {} (the cluster's devices)", d * nodes_ - 1));
  return first_device_[global_rank / d] + global_rank % d;
}

int Topology::count(VertexKind k) const {
  return static_cast<int>(std::count_if(vertices_.begin(), vertices_.end(),
                                        [k](const Vertex& v) { return v.kind == k; }));
}

void Topology::route_inside(std::vector<int>& path, int i, int x, int y) const {
  if (x == y) return;
  const int dx = first_device_[i] + x, dy = first_device_[i] + y;
  if (node_.topology == IntraNodeTopology::nvswitch) {
    append(path, dx, nvswitch_[i]);
    append(path, nvswitch_[i], dy);
    return;
  }
  if (link_between(dx, dy) >= 0) {  // full mesh, or a bridge between the pair
    append(path, dx, dy);
    return;
  }
  const int dps = node_.devices_per_socket();
  const int cx = first_cpu_[i] + std::min(node_.sockets - 1, x / dps);
  const int cy = first_cpu_[i] + std::min(node_.sockets - 1, y / dps);
  if (switches_per_node_ == 0) {
    append(path, dx, cx);
    if (cx != cy) append(path, cx, cy);
    append(path, cy, dy);
    return;
  }
  const int per = node_.devices_per_pcie_switch;
  const int sx = first_switch_[i] + x / per, sy = first_switch_[i] + y / per;
  append(path, dx, sx);
  if (sx == sy && node_.peer_to_peer()) {
    append(path, sy, dy);
    return;
  }
  append(path, sx, cx);  // without peer-to-peer this hop lands in host memory
  if (cx != cy) append(path, cx, cy);
  append(path, cy, sy);
  append(path, sy, dy);
}

std::vector<int> Topology::route(int from, int to) const {
  std::vector<int> path;
  const int d = node_.devices;
  device(from), device(to);  // range checks
  const int na = from / d, nb = to / d, la = from % d, lb = to % d;
  if (na == nb) {
    route_inside(path, na, la, lb);
    return path;
  }
  if (node_.nics == 0 || leaf_.empty())
    throw InputError("fabric", "none", "a fabric and NICs to join more than one node");
  const int q = static_cast<int>(static_cast<long long>(la) * node_.nics / d);
  const int near = static_cast<int>(static_cast<long long>(q) * d / node_.nics);
  route_inside(path, na, la, near);  // PXN: move to the GPU beside the NIC first
  const int per = node_.devices_per_pcie_switch;
  const int dps = node_.devices_per_socket();
  auto host_of = [&](int i, int local) {
    return switches_per_node_ ? first_switch_[i] + local / per
                              : first_cpu_[i] + std::min(node_.sockets - 1, local / dps);
  };
  append(path, first_device_[na] + near, host_of(na, near));
  append(path, host_of(na, near), first_nic_[na] + q);
  const int npl = fabric_->tiers == 1 ? nodes_ : fabric_->nodes_per_leaf;
  const int ga = na / npl, gb = nb / npl, rail = q % rails_;
  const int leaf_a = leaf_[ga * rails_ + rail], leaf_b = leaf_[gb * rails_ + rail];
  append(path, first_nic_[na] + q, leaf_a);
  if (ga != gb && !spine_.empty()) {
    const int pa = pods_ > 1 ? ga / fabric_->leaves_per_pod : 0;
    const int pb = pods_ > 1 ? gb / fabric_->leaves_per_pod : 0;
    append(path, leaf_a, spine_[pa * rails_ + rail]);
    if (pa != pb && core_ >= 0) {
      append(path, spine_[pa * rails_ + rail], core_);
      append(path, core_, spine_[pb * rails_ + rail]);
    }
    append(path, spine_[pb * rails_ + rail], leaf_b);
  }
  append(path, leaf_b, first_nic_[nb] + q);
  append(path, first_nic_[nb] + q, host_of(nb, near));
  append(path, host_of(nb, near), first_device_[nb] + near);
  route_inside(path, nb, near, lb);
  return path;
}

std::string Topology::describe(const std::vector<int>& path) const {
  if (path.empty()) return "(same device)";
  std::string out;
  int at = -1;
  for (size_t k = 0; k < path.size(); ++k) {
    const Link& l = links_[path[k]];
    int from = l.a, to = l.b;
    if (k == 0 && path.size() > 1) {
      const Link& next = links_[path[1]];
      if (l.a == next.a || l.a == next.b) std::swap(from, to);
    } else if (at >= 0 && at != from) {
      std::swap(from, to);
    }
    if (k == 0) out = vertices_[from].name;
    out += fmt::format(" -[{} {:.0f} GB/s]-> {}", to_string(l.kind),
                       l.bandwidth_per_direction.value() / kGiga, vertices_[to].name);
    at = to;
  }
  return out;
}

}  // namespace memwall::comm
