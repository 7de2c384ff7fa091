#include "memwall/comm/collective.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "memwall/comm/efficiency.h"
#include "memwall/core/error.h"

namespace memwall::comm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Where a group sits: ranks per node r, nodes m, and how its nodes fall into leaf groups and pods.
struct Placement {
  int n = 1, r = 1, m = 1;
  int first_local = 0, local_stride = 1;  // inside a node (r > 1)
  int node_stride = 1;                     // between the group's nodes
  int leaf_nodes = 1, leaf_groups = 1;     // group nodes per leaf group; leaf groups spanned
  int pod_nodes = 1, pods = 1;
};

// One link class as the cost model sees it: bytes/s per rank after sharing.
struct Level {
  LinkKind kind;
  std::string name;
  double nominal = 0;     // B/s of one link, per direction
  double efficiency = 1;
  double flows = 1;       // flows per link per direction
  double per_rank = kInf; // B/s
};

Placement place(const Cluster& c, const Group& g) {
  const Node& node = *c.node;
  const int d = node.devices;
  if (g.size < 1) throw InputError("group size", std::to_string(g.size), "a whole number >= 1");
  if (g.stride < 1) throw InputError("group stride", std::to_string(g.stride), "a whole number >= 1");
  if (g.first < 0) throw InputError("group first rank", std::to_string(g.first), "a rank >= 0");
  const long long last = g.first + static_cast<long long>(g.size - 1) * g.stride;
  if (last >= c.devices())
    throw InfeasibleError(fmt::format(
        "a group of {} ranks with stride {} starting at rank {} reaches rank {}, but the cluster has "
        "{} devices ({} nodes x {})",
        g.size, g.stride, g.first, last, c.devices(), c.nodes, d));
  Placement p;
  p.n = g.size;
  p.first_local = g.first % d;
  if (last / d == g.first / d) {  // the whole group inside one node, whatever its stride
    p.r = g.size;
    p.m = 1;
    p.local_stride = g.stride;
  } else if (g.stride >= d) {
    p.r = 1;
    p.m = g.size;
    p.node_stride = g.stride / d;
  } else {
    p.r = std::min(g.size, std::max(1, (d - p.first_local + g.stride - 1) / g.stride));
    p.r = std::min(p.r, std::max(1, d / g.stride));
    p.m = (g.size + p.r - 1) / p.r;
    p.local_stride = g.stride;
  }
  if (c.fabric != nullptr && p.m > 1) {
    const Fabric& f = *c.fabric;
    const int npl = f.tiers == 1 ? std::numeric_limits<int>::max() : f.nodes_per_leaf;
    const long long first_node = g.first / d;
    const long long last_node = last / d;
    auto spread = [&](long long block, int& per_block, int& blocks) {
      if (block >= (last_node + 1)) {
        per_block = p.m;
        blocks = 1;
        return;
      }
      blocks = static_cast<int>(last_node / block - first_node / block + 1);
      const long long per = (block + p.node_stride - 1) / p.node_stride;
      per_block = static_cast<int>(std::max(1LL, std::min<long long>(p.m, per)));
    };
    spread(npl, p.leaf_nodes, p.leaf_groups);
    if (f.tiers == 3) {
      spread(static_cast<long long>(f.nodes_per_leaf) * f.leaves_per_pod, p.pod_nodes, p.pods);
    } else {
      p.pod_nodes = p.m;
      p.pods = 1;
    }
  }
  return p;
}

bool scaleup_is_nvlink_like(const Node& n) {
  return n.topology == IntraNodeTopology::nvswitch || n.topology == IntraNodeTopology::full_mesh;
}

// Intra-node links over PCIe (and bridges): counts, for every concurrent group in one node, the
// flows each link carries per direction, for either ring edges or all-to-all pairs.
struct PcieLoads {
  double device = 0, uplink = 0, socket = 0, bridge = 0;  // max flows per link per direction
  bool via_cpu_p2p = false;                                // P2P through a CPU root complex
};

PcieLoads pcie_loads(const Node& node, const Placement& p, bool all_pairs) {
  const int d = node.devices;
  const int per_sw = node.devices_per_pcie_switch;
  const int dps = node.devices_per_socket();
  const int g = std::max(2, node.bridge_group);
  const bool bridge = node.topology == IntraNodeTopology::nvlink_bridge;
  const bool p2p = node.peer_to_peer();
  std::vector<double> dev_up(d, 0), dev_down(d, 0);
  const int switches = per_sw > 0 ? (d + per_sw - 1) / per_sw : 0;
  std::vector<double> sw_up(switches, 0), sw_down(switches, 0);
  std::vector<double> sock(static_cast<size_t>(node.sockets) * node.sockets, 0);
  std::vector<double> br(static_cast<size_t>(d) * d, 0);
  PcieLoads out;
  auto edge = [&](int x, int y) {
    if (bridge && x / g == y / g) {
      out.bridge = std::max(out.bridge, br[static_cast<size_t>(x) * d + y] += 1);
      return;
    }
    dev_up[x] += 1;
    dev_down[y] += 1;
    const int cx = std::min(node.sockets - 1, x / dps), cy = std::min(node.sockets - 1, y / dps);
    const bool same_switch = switches > 0 && x / per_sw == y / per_sw;
    if (switches > 0 && (!p2p || !same_switch)) {
      sw_up[x / per_sw] += 1;
      sw_down[y / per_sw] += 1;
    }
    if (p2p && !same_switch) out.via_cpu_p2p = true;
    if (cx != cy) sock[static_cast<size_t>(cx) * node.sockets + cy] += 1;
  };
  const int stride = p.local_stride;
  const int block = p.r * stride;
  for (int start = 0; start + (p.r - 1) * stride < d; start += block) {
    for (int o = 0; o < stride && start + o + (p.r - 1) * stride < d; ++o) {
      const int base = start + o;
      if (all_pairs) {
        for (int a = 0; a < p.r; ++a)
          for (int b = 0; b < p.r; ++b)
            if (a != b) edge(base + a * stride, base + b * stride);
      } else {
        for (int a = 0; a < p.r; ++a) edge(base + a * stride, base + ((a + 1) % p.r) * stride);
      }
    }
    if (block >= d) break;
  }
  for (int i = 0; i < d; ++i) out.device = std::max({out.device, dev_up[i], dev_down[i]});
  for (int k = 0; k < switches; ++k) out.uplink = std::max({out.uplink, sw_up[k], sw_down[k]});
  for (double s : sock) out.socket = std::max(out.socket, s);
  return out;
}

// The scale-up levels a ring (or all-to-all) inside one node crosses.
std::vector<Level> intra_levels(const Node& node, const Placement& p, bool all_pairs) {
  std::vector<Level> out;
  if (p.r < 2) return out;
  const double nominal = node.device_link_bandwidth_per_direction.value();
  switch (node.topology) {
    case IntraNodeTopology::nvswitch: {
      Level l{LinkKind::nvlink, fmt::format("NVLink/NVSwitch ({})", node.scaleup_link), nominal,
              kNvlinkEfficiency};
      if (node.device_link_achievable_bandwidth_per_direction)
        l.efficiency = node.device_link_achievable_bandwidth_per_direction->value() / nominal;
      l.per_rank = nominal * l.efficiency;
      out.push_back(l);
      return out;
    }
    case IntraNodeTopology::full_mesh: {
      // Rings on every link to the other members in parallel (RCCL/HCCL use many channels).
      const double pair = nominal / std::max(1, node.devices - 1);
      Level l{LinkKind::mesh, fmt::format("scale-up mesh ({})", node.scaleup_link), pair, kMeshEfficiency};
      if (node.device_link_achievable_bandwidth_per_direction)
        l.efficiency = node.device_link_achievable_bandwidth_per_direction->value() / nominal;
      l.flows = 1.0 / (p.r - 1);
      l.per_rank = pair * l.efficiency * (p.r - 1);
      out.push_back(l);
      return out;
    }
    default: break;
  }
  const PcieLoads loads = pcie_loads(node, p, all_pairs);
  const double pcie = node.pcie_bandwidth_per_direction.value();
  const double cpu_overhead = loads.via_cpu_p2p ? kIntelP2pOverhead : 1.0;
  if (loads.bridge > 0) {
    const double eff = node.device_link_achievable_bandwidth_per_direction
                           ? node.device_link_achievable_bandwidth_per_direction->value() / nominal
                           : kNvlinkEfficiency;
    const double link = nominal / (std::max(2, node.bridge_group) - 1);
    out.push_back(Level{LinkKind::nvlink, fmt::format("NVLink bridge ({})", node.scaleup_link), link,
                        eff, loads.bridge, link * eff / loads.bridge});
  }
  const std::string via = node.peer_to_peer() ? "" : " through host memory (no P2P)";
  if (loads.device > 0)
    out.push_back(Level{LinkKind::pcie, fmt::format("PCIe Gen{} x16 device link{}", node.pcie_generation, via),
                        pcie, kPcieEfficiency, loads.device, pcie * kPcieEfficiency / loads.device});
  if (loads.uplink > 0) {
    const double up = node.pcie_switch_uplink_bandwidth_per_direction.value_or(node.pcie_bandwidth_per_direction).value();
    out.push_back(Level{LinkKind::pcie_uplink, fmt::format("PCIe switch uplink to the CPU{}", via), up,
                        kPcieEfficiency / cpu_overhead, loads.uplink,
                        up * kPcieEfficiency / cpu_overhead / loads.uplink});
  }
  if (loads.socket > 0) {
    if (!node.cpu_socket_bandwidth_per_direction)
      throw InputError(fmt::format("node '{}': traffic crosses CPU sockets but "
                                   "cpu_socket_bandwidth_per_direction_gbps is unknown", node.id));
    const double s = node.cpu_socket_bandwidth_per_direction->value();
    out.push_back(Level{LinkKind::socket, fmt::format("CPU socket link ({})", node.cpu_socket_link), s, 1.0,
                        loads.socket, s / loads.socket});
  }
  return out;
}

double port_bandwidth(const Cluster& c) {
  return std::min(c.fabric->port_bandwidth_per_direction.value(), c.node->nic_bandwidth_per_direction.value());
}

// Scale-out levels for ring-like traffic: the group's share of its nodes' NICs, then the leaf and
// core uplinks. `nodes_together` is how many of the group's nodes a ring keeps inside one leaf
// (2 for a binary tree, whose edges leave the leaf about every other node).
std::vector<Level> inter_levels(const Cluster& c, const Placement& p, bool tree) {
  std::vector<Level> out;
  if (p.m < 2) return out;
  const Node& node = *c.node;
  if (c.fabric == nullptr || node.nics == 0)
    throw InputError(fmt::format("a group spanning {} nodes needs a fabric (--fabric) and NICs; "
                                 "node '{}' has {} NICs",
                                 p.m, node.id, node.nics));
  const Fabric& f = *c.fabric;
  const double port = port_bandwidth(c);
  const double share = static_cast<double>(p.r) / node.devices;  // of the node's NICs
  Level nic{LinkKind::network, fmt::format("NIC ports ({} x {:.0f} Gb/s, {})", node.nics, port * 8 / kGiga, f.id),
            port, kNetworkEfficiency};
  nic.per_rank = node.nics * port * kNetworkEfficiency * share;
  nic.flows = std::max(1.0, 1.0 / (node.nics * share));
  out.push_back(nic);
  if (p.leaf_groups > 1 && f.tiers >= 2) {
    const double together = tree ? std::min(2, p.leaf_nodes) : p.leaf_nodes;
    Level leaf{LinkKind::leaf_uplink, fmt::format("leaf-to-spine uplinks ({:g}:1)", f.oversubscription),
               port / f.oversubscription, kNetworkEfficiency};
    leaf.flows = std::max(1.0, f.oversubscription / together);
    leaf.per_rank = nic.per_rank * std::min(1.0, together / f.oversubscription);
    out.push_back(leaf);
  }
  if (p.pods > 1 && f.tiers == 3) {
    const double o = f.oversubscription * f.core_oversubscription;
    const double together = tree ? std::min(2, p.pod_nodes) : p.pod_nodes;
    Level core{LinkKind::spine_uplink, fmt::format("spine-to-core uplinks ({:g}:1 overall)", o), port / o,
               kNetworkEfficiency};
    core.flows = std::max(1.0, o / together);
    core.per_rank = nic.per_rank * std::min(1.0, together / o);
    out.push_back(core);
  }
  return out;
}

double min_per_rank(const std::vector<Level>& levels, const Level** which) {
  double best = kInf;
  for (const Level& l : levels)
    if (l.per_rank < best) best = l.per_rank, *which = &l;
  return best;
}

HopClass intra_class(const Node& node) {
  return scaleup_is_nvlink_like(node) || node.topology == IntraNodeTopology::nvlink_bridge
             ? HopClass::nvlink
             : HopClass::pci;
}

// Extra switch traversals beyond the first leaf, per network hop.
double fabric_extra_latency_us(const Cluster& c, const Placement& p) {
  if (c.fabric == nullptr || p.m < 2) return 0;
  double hops = 0;
  if (p.leaf_groups > 1) hops += 2;
  if (p.pods > 1) hops += 2;
  return hops * c.fabric->switch_hop_latency.value() * 1e6;
}

struct Candidate {
  CollectiveEstimate e;
  std::vector<Level> levels;  // crossed by the bandwidth term
  double bandwidth_time = 0;  // seconds at full protocol efficiency
  bool valid = false;
};

// Picks the protocol with the lowest time: base + hops x hop latency + bytes / (bw x fraction).
void finish(Candidate& cand, double bw_time, double intra_hops, double net_hops, HopClass ic,
            double extra_net_us, bool tree_latency, bool simple_only) {
  double best = kInf;
  for (const ProtocolParams& pr : kProtocols) {
    if (simple_only && pr.protocol != Protocol::simple) continue;
    const auto& hop = tree_latency ? pr.tree_hop_latency_us : pr.ring_hop_latency_us;
    const double lat_us = pr.base_latency_us + intra_hops * hop[static_cast<int>(ic)] +
                          net_hops * (hop[static_cast<int>(HopClass::net)] + extra_net_us);
    const double t = lat_us * 1e-6 + bw_time / pr.bandwidth_fraction;
    if (t < best) {
      best = t;
      cand.e.protocol = pr.name;
      cand.e.latency_time = Seconds(lat_us * 1e-6);
    }
  }
  cand.e.time = Seconds(best);
  cand.bandwidth_time = bw_time;
  cand.valid = true;
}

double log2_ceil(int x) { return x <= 1 ? 0 : std::ceil(std::log2(static_cast<double>(x))); }

// Bytes one rank sends over a ring for each collective (nccl-tests sizes: `bytes` is the full
// buffer), and the number of sequential steps.
void ring_volume(Collective op, int n, double bytes, double& volume, double& steps) {
  switch (op) {
    case Collective::all_reduce:  // Thakur et al. 2005; Patarasuk & Yuan 2009
      volume = 2.0 * (n - 1) / n * bytes, steps = 2.0 * (n - 1);
      break;
    case Collective::reduce_scatter:
    case Collective::all_gather:
      volume = static_cast<double>(n - 1) / n * bytes, steps = n - 1;
      break;
    case Collective::broadcast:  // pipelined chain: every rank forwards the whole buffer once
      volume = bytes, steps = n - 1;
      break;
    default:
      volume = bytes, steps = 1;
  }
}

Candidate ring(const Cluster& c, Collective op, double bytes, const Placement& p) {
  Candidate cand;
  cand.e.algorithm = "ring";
  cand.levels = intra_levels(*c.node, p, false);
  auto inter = inter_levels(c, p, false);
  cand.levels.insert(cand.levels.end(), inter.begin(), inter.end());
  double volume, steps;
  ring_volume(op, p.n, bytes, volume, steps);
  const Level* which = nullptr;
  const double bw = min_per_rank(cand.levels, &which);
  const double net_hops = p.m > 1 ? steps * p.m / p.n : 0;
  finish(cand, bw == kInf ? 0 : volume / bw, steps - net_hops, net_hops, intra_class(*c.node),
         fabric_extra_latency_us(c, p), false, false);
  return cand;
}

Candidate tree(const Cluster& c, Collective op, double bytes, const Placement& p) {
  Candidate cand;
  cand.e.algorithm = "tree";
  if (op != Collective::all_reduce) return cand;  // NCCL implements trees for all-reduce only
  cand.levels = intra_levels(*c.node, p, false);
  auto inter = inter_levels(c, p, true);
  cand.levels.insert(cand.levels.end(), inter.begin(), inter.end());
  // Double binary tree: each rank sends ~S up (reduce) and ~S down (broadcast), Sanders et al.
  // 2009 (two trees, each rank interior in at most one); chain inside the node.
  const Level* which = nullptr;
  const double bw = min_per_rank(cand.levels, &which);
  const double intra_hops = 2.0 * (p.r - 1), net_hops = 2.0 * log2_ceil(p.m);
  finish(cand, bw == kInf ? 0 : 2.0 * bytes / bw, intra_hops, net_hops, intra_class(*c.node),
         fabric_extra_latency_us(c, p), true, false);
  return cand;
}

Candidate nvls(const Cluster& c, Collective op, double bytes, const Placement& p) {
  Candidate cand;
  cand.e.algorithm = "nvls";
  const Node& node = *c.node;
  if (op != Collective::all_reduce || !node.in_switch_reduction ||
      node.topology != IntraNodeTopology::nvswitch || p.r < 2)
    return cand;
  // Each GPU pushes its buffer into the switch once and pulls the reduced result once
  // (multimem ld_reduce/st): algbw ~ line rate x kNvlsAlgbwEfficiency.
  const double nominal = node.device_link_bandwidth_per_direction.value();
  Level l{LinkKind::nvlink, fmt::format("NVLink/NVSwitch in-switch reduction ({})", node.scaleup_link), nominal,
          kNvlsAlgbwEfficiency};
  l.per_rank = nominal * kNvlsAlgbwEfficiency;
  cand.levels.push_back(l);
  double bw_time = bytes / l.per_rank;
  auto inter = inter_levels(c, p, true);
  if (!inter.empty()) {
    // NVLS tree: the network part is a tree all-reduce of the node's data (reduce up, broadcast
    // down), pipelined with NVLS, over two binary trees each carrying half the buffer (Sanders et
    // al. 2009). With three or more nodes a node is interior in one tree with two children: up,
    // it receives 2 x S/2 there and sends S/2 to each tree's parent; down, the reverse; so each
    // direction of its network share carries 2 S. With two nodes every node has at most one child
    // and carries S (NCCL's tuner doubles the NVLS-tree inter-node bandwidth for <= 2 nodes,
    // src/graph/tuning.cc). The rate at which the buffer passes a network level is per_rank /
    // traffic; stating the levels in that rate lets the slowest one (the bottleneck named) set
    // the time.
    const double net_factor = p.m <= 2 ? 1.0 : 0.5;
    for (Level& l_net : inter) l_net.per_rank *= net_factor;
    const Level* which = nullptr;
    const double net_bw = min_per_rank(inter, &which);
    bw_time = std::max(bw_time, bytes / net_bw);
    cand.levels.insert(cand.levels.end(), inter.begin(), inter.end());
  }
  finish(cand, bw_time, 0, 0, HopClass::nvlink, 0, false, true);
  const double lat_us = kNvlsLatencyUs + 2.0 * log2_ceil(p.m) * (kNvlsNetLatencyUs + fabric_extra_latency_us(c, p));
  cand.e.time = Seconds(cand.e.time.value() - cand.e.latency_time.value() + lat_us * 1e-6);
  cand.e.latency_time = Seconds(lat_us * 1e-6);
  return cand;
}

Candidate hierarchical(const Cluster& c, Collective op, double bytes, const Placement& p) {
  Candidate cand;
  cand.e.algorithm = "hierarchical";
  if (p.m < 2 || p.r < 2) return cand;
  if (op != Collective::all_reduce && op != Collective::reduce_scatter && op != Collective::all_gather)
    return cand;
  // Reduce-scatter inside the node, all-reduce of 1/r of the data across nodes, all-gather inside
  // (training-anchors B5: 2(g-1)/g S/B_nv + 2(N-1)/N S/(g B_nic)); phases run one after another.
  auto intra = intra_levels(*c.node, p, false);
  auto inter = inter_levels(c, p, false);
  const Level *wi = nullptr, *wn = nullptr;
  const double bi = min_per_rank(intra, &wi), bn = min_per_rank(inter, &wn);
  const double phases = op == Collective::all_reduce ? 2.0 : 1.0;
  const bool sharp = c.fabric->in_network_reduction && op == Collective::all_reduce;
  const double intra_t = phases * (p.r - 1.0) / p.r * bytes / bi;
  // Across nodes each rank owns S/r; the node's NIC share per rank is bn (all r ranks at once).
  const double net_t = (sharp ? 1.0 : phases * (p.m - 1.0) / p.m) * bytes / bn;
  cand.levels = intra;
  cand.levels.insert(cand.levels.end(), inter.begin(), inter.end());
  if (sharp) cand.e.algorithm = "hierarchical+sharp";
  const double intra_hops = phases * (p.r - 1);
  const double net_hops = sharp ? 2.0 * 2 : phases * (p.m - 1);
  finish(cand, intra_t + net_t, intra_hops, net_hops, intra_class(*c.node), fabric_extra_latency_us(c, p),
         false, false);
  return cand;
}

// Bytes one rank of an all-to-all moves over each level of the cluster (see collective.h).
AllToAllVolume a2a_volume(const Placement& p, double bytes) {
  AllToAllVolume v;
  const double piece = bytes / p.n;  // nccl-tests alltoall: bytes / n to every rank, itself included
  v.total = piece * (p.n - 1);
  v.scaleup = piece * (p.r - 1);
  v.nic = piece * (p.n - p.r);
  // Peers outside the rank's leaf group (or pod): the group's nodes elsewhere times r ranks each.
  if (p.leaf_groups > 1) v.leaf_uplink = piece * p.r * std::max(0, p.m - p.leaf_nodes);
  if (p.pods > 1) v.core_uplink = piece * p.r * std::max(0, p.m - p.pod_nodes);
  return v;
}

Candidate all_to_all(const Cluster& c, double bytes, const Placement& p) {
  Candidate cand;
  cand.e.algorithm = "pairwise";
  const Node& node = *c.node;
  // Every rank sends bytes/n to every other rank at once (NCCL: grouped send/recv). Each level's
  // time is the bytes this rank moves across it over this rank's share of it; the slowest level
  // sets the time (the levels work concurrently). Each level's per_rank is restated as the rate at
  // which the rank's whole all-to-all volume would pass if that level alone limited it.
  const AllToAllVolume v = a2a_volume(p, bytes);
  const double piece = bytes / p.n;
  double t = 0;
  auto restate = [&](Level& l, double level_time) {
    l.per_rank = level_time > 0 ? v.total / level_time : kInf;
    t = std::max(t, level_time);
  };
  cand.levels = intra_levels(node, p, true);
  for (Level& l : cand.levels) {
    if (l.kind == LinkKind::nvlink || l.kind == LinkKind::mesh) {
      restate(l, v.scaleup / l.per_rank);
    } else {
      // PCIe and socket links: per-pair flows share a link, each flow carries one piece.
      restate(l, piece * l.flows / (l.nominal * l.efficiency));
    }
  }
  if (p.m > 1) {
    const Fabric& f = *c.fabric;
    const std::vector<Level> inter = inter_levels(c, p, false);
    // An all-to-all cannot pool a node's NICs for one rank: each rank's remote traffic leaves
    // through its own share of the node's NICs, nics / devices of them, since every group of
    // this shape runs at once (NCCL maintainers, NVIDIA/nccl-tests #130 and #267: busbw = the
    // per-GPU network bandwidth x N/(N-1) on N nodes). inter_levels states the group's share of
    // the node (r ranks); one rank gets 1/r of it.
    const double nic_per_rank = inter.front().per_rank / p.r;
    Level nic = inter.front();
    nic.flows = std::max(1.0, static_cast<double>(node.devices) / std::max(1, node.nics));
    restate(nic, v.nic / nic_per_rank);
    cand.levels.push_back(nic);
    if (p.leaf_groups > 1 && f.tiers >= 2) {
      // Leaf uplinks carry 1/oversubscription of what the leaf's NIC ports can send.
      Level leaf = nic;
      leaf.kind = LinkKind::leaf_uplink;
      leaf.name = fmt::format("leaf-to-spine uplinks ({:g}:1)", f.oversubscription);
      leaf.nominal = port_bandwidth(c) / f.oversubscription;
      restate(leaf, v.leaf_uplink * f.oversubscription / nic_per_rank);
      cand.levels.push_back(leaf);
    }
    if (p.pods > 1 && f.tiers == 3) {
      const double o = f.oversubscription * f.core_oversubscription;
      Level core = nic;
      core.kind = LinkKind::spine_uplink;
      core.name = fmt::format("spine-to-core uplinks ({:g}:1 overall)", o);
      core.nominal = port_bandwidth(c) / o;
      restate(core, v.core_uplink * o / nic_per_rank);
      cand.levels.push_back(core);
    }
  }
  const double peers_us = kAllToAllPerPeerUs * (p.n - 1);
  finish(cand, t, 0, 0, intra_class(node), 0, false, false);
  // one message per peer instead of ring steps
  double best = kInf;
  for (const ProtocolParams& pr : kProtocols) {
    const double lat = (pr.base_latency_us + peers_us + (p.m > 1 ? pr.ring_hop_latency_us[2] : 0)) * 1e-6;
    const double tt = lat + t / pr.bandwidth_fraction;
    if (tt < best) best = tt, cand.e.protocol = pr.name, cand.e.latency_time = Seconds(lat);
  }
  cand.e.time = Seconds(best);
  return cand;
}

Candidate send_recv(const Cluster& c, double bytes, const Group& g) {
  Candidate cand;
  cand.e.algorithm = "p2p";
  // One transfer from rank `first` to `first + stride`: the levels a 2-rank group crosses.
  Group pair{2, g.stride, g.first};
  const Placement p = place(c, pair);
  cand.levels = intra_levels(*c.node, p, false);
  auto inter = inter_levels(c, p, false);
  cand.levels.insert(cand.levels.end(), inter.begin(), inter.end());
  const Level* which = nullptr;
  const double bw = min_per_rank(cand.levels, &which);
  finish(cand, bw == kInf ? 0 : bytes / bw, p.m > 1 ? 0 : 1, p.m > 1 ? 1 : 0, intra_class(*c.node),
         fabric_extra_latency_us(c, p), false, false);
  return cand;
}

void fill_bandwidths(Candidate& cand, Collective op, double bytes, int n) {
  CollectiveEstimate& e = cand.e;
  const double t = e.time.value();
  e.algorithm_bandwidth = BytesPerSecond(t > 0 ? bytes / t : 0);
  e.bus_bandwidth = e.algorithm_bandwidth * bus_bandwidth_factor(op, n);
  const Level* which = nullptr;
  min_per_rank(cand.levels, &which);
  if (which == nullptr) {
    e.bottleneck = "none (a single rank)";
    return;
  }
  if (e.latency_time.value() > 0.5 * t) {
    e.bottleneck = fmt::format("latency ({} protocol steps; slowest link {})", e.protocol, which->name);
  } else {
    e.bottleneck = which->name;
  }
  // Data rate through one link of the limiting class: the rank's share of the bandwidth term
  // over the elapsed time, divided by the link's nominal rate.
  const double share_time = cand.bandwidth_time;  // seconds at full protocol efficiency
  if (t > 0 && share_time > 0)
    e.bottleneck_utilisation = std::min(1.0, share_time / t * which->efficiency);
}

Candidate evaluate(const Cluster& c, Collective op, double bytes, const Group& g, const Placement& p,
                   Algorithm a) {
  if (op == Collective::send_recv) return send_recv(c, bytes, g);
  if (op == Collective::all_to_all) return all_to_all(c, bytes, p);
  switch (a) {
    case Algorithm::ring: return ring(c, op, bytes, p);
    case Algorithm::tree: return tree(c, op, bytes, p);
    case Algorithm::hierarchical: return hierarchical(c, op, bytes, p);
    case Algorithm::nvls: return nvls(c, op, bytes, p);
    default: return {};
  }
}

void check(const Cluster& c, Bytes bytes) {
  if (c.node == nullptr) throw InputError("node", "none", "a node type (--node)");
  if (c.nodes < 1) throw InputError("nodes", std::to_string(c.nodes), "a whole number >= 1");
  if (c.nodes > 1 && c.fabric == nullptr)
    throw InputError(fmt::format("{} nodes need a fabric (--fabric) to join them", c.nodes));
  const double b = bytes.value();
  if (!std::isfinite(b) || b < 0 || b > 1e15)
    throw InputError("bytes", fmt::format("{}", b), "a finite size from 0 to 1e15 bytes");
}

CollectiveEstimate single_rank() {
  CollectiveEstimate e;
  e.algorithm = "none";
  e.bottleneck = "none (a single rank or no bytes)";
  return e;
}

std::vector<Candidate> candidates(const Cluster& c, Collective op, double bytes, const Group& g,
                                  const Placement& p, Algorithm a) {
  std::vector<Candidate> out;
  if (a != Algorithm::automatic || op == Collective::send_recv || op == Collective::all_to_all) {
    Candidate cand = evaluate(c, op, bytes, g, p, a);
    if (!cand.valid)
      throw InputError("--algo", to_string(a),
                       fmt::format("an algorithm that applies to {} on node '{}' over {} node(s) "
                                   "(ring always does; nvls needs in-switch reduction and "
                                   "all-reduce; hierarchical needs several ranks per node on several "
                                   "nodes; tree is for all-reduce)",
                                   to_string(op), c.node->id, p.m));
    out.push_back(std::move(cand));
    return out;
  }
  for (Algorithm x : {Algorithm::ring, Algorithm::tree, Algorithm::hierarchical, Algorithm::nvls}) {
    Candidate cand = evaluate(c, op, bytes, g, p, x);
    if (cand.valid) out.push_back(std::move(cand));
  }
  return out;
}

Candidate best_of(std::vector<Candidate>& all) {
  size_t best = 0;
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].e.time < all[best].e.time) best = i;
  return all[best];
}

std::string lower(std::string_view s) {
  std::string out;
  for (char ch : s)
    if (ch != '_' && ch != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

const char* to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "allreduce";
    case Collective::reduce_scatter: return "reducescatter";
    case Collective::all_gather: return "allgather";
    case Collective::all_to_all: return "alltoall";
    case Collective::broadcast: return "broadcast";
    case Collective::send_recv: return "sendrecv";
  }
  return "?";
}

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::automatic: return "auto";
    case Algorithm::ring: return "ring";
    case Algorithm::tree: return "tree";
    case Algorithm::hierarchical: return "hierarchical";
    case Algorithm::nvls: return "nvls";
  }
  return "?";
}

Collective parse_collective(std::string_view text, const std::string& field) {
  const std::string t = lower(text);
  for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                       Collective::all_to_all, Collective::broadcast, Collective::send_recv})
    if (t == to_string(c)) return c;
  throw InputError::unknown_name(field, std::string(text),
                                 {"allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "sendrecv"});
}

Algorithm parse_algorithm(std::string_view text, const std::string& field) {
  const std::string t = lower(text);
  for (Algorithm a : {Algorithm::automatic, Algorithm::ring, Algorithm::tree, Algorithm::hierarchical,
                      Algorithm::nvls})
    if (t == to_string(a)) return a;
  throw InputError::unknown_name(field, std::string(text), {"auto", "ring", "tree", "hierarchical", "nvls"});
}

double bus_bandwidth_factor(Collective op, int n) {
  if (n <= 1) return 0;
  switch (op) {
    case Collective::all_reduce: return 2.0 * (n - 1) / n;
    case Collective::reduce_scatter:
    case Collective::all_gather:
    case Collective::all_to_all: return static_cast<double>(n - 1) / n;
    case Collective::broadcast:
    case Collective::send_recv: return 1.0;
  }
  return 1.0;
}

CollectiveEstimate estimate(const Cluster& cluster, Collective op, Bytes bytes, const Group& group,
                            Algorithm algorithm) {
  check(cluster, bytes);
  const Placement p = place(cluster, group);
  if (group.size <= 1 || bytes.value() == 0) return single_rank();  // nothing is sent
  auto all = candidates(cluster, op, bytes.value(), group, p, algorithm);
  Candidate best = best_of(all);
  fill_bandwidths(best, op, bytes.value(), op == Collective::send_recv ? 2 : group.size);
  return best.e;
}

CollectiveEstimate estimate(const Cluster& cluster, Collective op, Bytes bytes, const Group& group) {
  return estimate(cluster, op, bytes, group, Algorithm::automatic);
}

Seconds estimate_time(const Cluster& cluster, Collective op, Bytes bytes, const Group& group) {
  check(cluster, bytes);
  const Placement p = place(cluster, group);
  if (group.size <= 1 || bytes.value() == 0) return single_rank().time;
  const auto all = candidates(cluster, op, bytes.value(), group, p, Algorithm::automatic);
  size_t best = 0;  // as best_of picks it
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].e.time < all[best].e.time) best = i;
  return all[best].e.time;
}

AllToAllVolume all_to_all_volume(const Cluster& cluster, Bytes bytes, const Group& group) {
  check(cluster, bytes);
  return a2a_volume(place(cluster, group), bytes.value());
}

namespace {

std::string fabric_step_name(double gbit) {
  if (gbit < 200) return "200 Gb/s";
  if (gbit < 400) return "400 Gb/s (NDR class)";
  if (gbit < 800) return "800 Gb/s (XDR class)";
  return fmt::format("{:.0f} Gb/s", gbit * 2);
}

std::vector<Upgrade> upgrades(const Cluster& c, Collective op, Bytes bytes, const Group& g, Algorithm a,
                              const std::vector<Level>& levels, Seconds base) {
  std::vector<Upgrade> out;
  auto add = [&](const std::string& what, const Node& node, const Fabric* fabric) {
    for (const Upgrade& u : out)
      if (u.change == what) return;
    Cluster alt{&node, fabric, c.nodes};
    try {
      const Seconds t = estimate(alt, op, bytes, g, a).time;
      out.push_back(Upgrade{what, t, t.value() > 0 ? base.value() / t.value() : 1.0});
    } catch (const InputError&) {
      // the forced algorithm does not apply to the upgraded hardware: skip this what-if
    }
  };
  for (const Level& l : levels) {
    Node node = *c.node;
    std::optional<Fabric> fabric;
    if (c.fabric) fabric = *c.fabric;
    switch (l.kind) {
      case LinkKind::nvlink:
      case LinkKind::mesh:
        node.device_link_bandwidth_per_direction = node.device_link_bandwidth_per_direction * 2.0;
        if (node.device_link_achievable_bandwidth_per_direction)
          *node.device_link_achievable_bandwidth_per_direction = *node.device_link_achievable_bandwidth_per_direction * 2.0;
        add(l.kind == LinkKind::nvlink ? "NVLink 2x faster (next generation)" : "scale-up links 2x faster", node,
            c.fabric ? &*fabric : nullptr);
        break;
      case LinkKind::pcie:
      case LinkKind::pcie_uplink:
      case LinkKind::socket: {
        if (!node.peer_to_peer()) {
          Node p2p = node;
          p2p.topology = IntraNodeTopology::pcie_switch_p2p;
          add("peer-to-peer enabled (PCIe P2P instead of host memory)", p2p, c.fabric ? &*fabric : nullptr);
        }
        if (l.kind == LinkKind::socket && node.cpu_socket_bandwidth_per_direction) {
          Node faster = node;
          *faster.cpu_socket_bandwidth_per_direction = *faster.cpu_socket_bandwidth_per_direction * 2.0;
          add("CPU socket link 2x faster", faster, c.fabric ? &*fabric : nullptr);
        }
        Node nv = node;
        nv.topology = IntraNodeTopology::nvswitch;
        nv.device_link_bandwidth_per_direction = gb_per_s(450);
        nv.device_link_achievable_bandwidth_per_direction = gb_per_s(370);
        nv.scaleup_link = "NVLink 4 + NVSwitch (what-if)";
        add("NVLink + NVSwitch instead of PCIe (450 GB/s per direction, HGX H100 class)", nv,
            c.fabric ? &*fabric : nullptr);
        break;
      }
      case LinkKind::network: {
        if (!fabric) break;
        const double gbit = fabric->port_bandwidth_per_direction.value() * 8 / kGiga;
        fabric->port_bandwidth_per_direction = fabric->port_bandwidth_per_direction * 2.0;
        node.nic_bandwidth_per_direction = node.nic_bandwidth_per_direction * 2.0;
        add(fmt::format("{} -> {} ports and NICs", c.fabric->id, fabric_step_name(gbit)), node, &*fabric);
        break;
      }
      case LinkKind::leaf_uplink:
      case LinkKind::spine_uplink:
        // Already non-blocking (1:1 at both tiers): there is nothing to change.
        if (!fabric || (c.fabric->oversubscription <= 1 && c.fabric->core_oversubscription <= 1))
          break;
        fabric->oversubscription = 1.0;
        fabric->core_oversubscription = 1.0;
        add(fmt::format("1:1 instead of {:g}:1 oversubscription", c.fabric->oversubscription *
                                                                        (l.kind == LinkKind::spine_uplink ? c.fabric->core_oversubscription : 1.0)),
            node, &*fabric);
        break;
    }
  }
  std::sort(out.begin(), out.end(), [](const Upgrade& x, const Upgrade& y) { return x.time < y.time; });
  return out;
}

}  // namespace

Explanation explain(const Cluster& cluster, Collective op, Bytes bytes, const Group& group,
                    Algorithm algorithm) {
  check(cluster, bytes);
  const Placement p = place(cluster, group);
  Explanation x;
  x.ranks = group.size;
  x.ranks_per_node = p.r;
  x.nodes_spanned = p.m;
  x.leaf_groups_spanned = p.leaf_groups;
  if (group.size <= 1 || bytes.value() == 0) {
    x.estimate = single_rank();
    return x;
  }
  const int n = op == Collective::send_recv ? 2 : group.size;
  auto all = candidates(cluster, op, bytes.value(), group, p, algorithm);
  for (Candidate& c : all) {
    fill_bandwidths(c, op, bytes.value(), n);
    x.candidates.push_back(c.e);
  }
  Candidate best = best_of(all);
  x.estimate = best.e;
  const Level* slowest = nullptr;
  const double bmin = min_per_rank(best.levels, &slowest);
  const double t = best.e.time.value();
  for (const Level& l : best.levels) {
    LinkLevel ll;
    ll.name = l.name;
    ll.kind = l.kind;
    ll.nominal_per_direction = BytesPerSecond(l.nominal);
    ll.efficiency = l.efficiency;
    ll.flows = static_cast<int>(std::ceil(l.flows - 1e-9));
    ll.per_rank_bandwidth = BytesPerSecond(l.per_rank);
    // Rate per rank = bandwidth_time x bmin / t; this level's nominal share per rank = per_rank / eff.
    if (t > 0 && l.per_rank < kInf && bmin < kInf)
      ll.utilisation = std::min(1.0, best.bandwidth_time * bmin * l.efficiency / (t * l.per_rank));
    x.levels.push_back(ll);
  }
  std::sort(x.levels.begin(), x.levels.end(),
            [](const LinkLevel& a, const LinkLevel& b) { return a.per_rank_bandwidth < b.per_rank_bandwidth; });
  x.upgrades = upgrades(cluster, op, bytes, group, algorithm, best.levels, best.e.time);
  // A representative transfer: from the group's first rank to its last member.
  if (cluster.devices() <= 65536) {
    const Topology topo(*cluster.node, cluster.fabric, cluster.nodes);
    const int to = group.first + (group.size - 1) * group.stride;
    x.example_path = topo.describe(topo.route(group.first, op == Collective::send_recv ? group.first + group.stride : to));
  }
  return x;
}

std::optional<Seconds> custom_all_reduce_time(const Node& node, int ranks, Bytes bytes) {
  if (ranks < 2 || ranks > node.devices) return std::nullopt;
  if (node.topology != IntraNodeTopology::nvswitch && node.topology != IntraNodeTopology::full_mesh)
    return std::nullopt;
  // Per-peer bandwidth: NVSwitch gives every pair the device's whole link; a full mesh splits it
  // over the devices - 1 peer links.
  const double device_bw = node.device_link_achievable_bandwidth_per_direction
                               ? node.device_link_achievable_bandwidth_per_direction->value()
                               : node.device_link_bandwidth_per_direction.value() *
                                     (node.topology == IntraNodeTopology::nvswitch
                                          ? kNvlinkEfficiency
                                          : kMeshEfficiency);
  if (device_bw <= 0) return std::nullopt;
  const double n = ranks, b = bytes.value(), hop = node.device_link_latency.value();
  const double base = kCustomAllReduceBaseUs * 1e-6;
  // Both forms pull (n - 1) shares from peers at once; the device's links carry them together.
  const double one_shot = base + hop + (n - 1) * b / device_bw;
  const double two_shot = base + 2 * hop + 2 * (n - 1) / n * b / device_bw;
  return Seconds(std::min(one_shot, two_shot));
}

}  // namespace memwall::comm
