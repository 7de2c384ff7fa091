// Collective communication time on a cluster: which links a collective crosses and how long it
// takes (alpha-beta model). One implementation serves the inference, training and network tools.
//
// Model: a group of ranks is placed on the cluster (Megatron ordering); every group of the same
// shape is assumed to communicate at the same time (all TP groups, all DP groups ...), so links
// they share are divided among them. For each algorithm (ring, double-binary tree, hierarchical,
// NVLS in-switch reduction) the bandwidth term is the bytes each rank moves over the slowest link
// class it crosses (its per-rank share after contention), the latency term is NCCL's per-step
// latency table, and the protocol (LL, LL128, Simple) and algorithm with the lowest time win, as
// NCCL's tuner picks them. Bus bandwidth follows nccl-tests (doc/PERFORMANCE.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memwall/comm/topology.h"
#include "memwall/core/units.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"

namespace memwall::comm {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, send_recv };
enum class Algorithm { automatic, ring, tree, hierarchical, nvls };

const char* to_string(Collective c);
const char* to_string(Algorithm a);
// Accepts allreduce|all_reduce|all-reduce etc.; InputError naming `field` otherwise.
Collective parse_collective(std::string_view text, const std::string& field = "--op");
Algorithm parse_algorithm(std::string_view text, const std::string& field = "--algo");

// The machines: `nodes` copies of `node`, joined by `fabric` (nullptr for a single node).
struct Cluster {
  const Node* node = nullptr;
  const Fabric* fabric = nullptr;
  int nodes = 1;
  int devices() const { return node ? node->devices * nodes : 0; }
};

// A group of `size` ranks: global ranks first, first+stride, ... Rank r sits on node
// r / node.devices (Megatron ordering: TP innermost, then CP, PP, DP outermost).
struct Group {
  int size = 1;
  int stride = 1;
  int first = 0;
};

struct CollectiveEstimate {
  Seconds time;
  BytesPerSecond algorithm_bandwidth;  // size / time (nccl-tests algbw)
  BytesPerSecond bus_bandwidth;        // algbw x collective factor (nccl-tests busbw)
  std::string algorithm;               // ring, tree, hierarchical, nvls ...
  std::string bottleneck;              // the link that limits it
  // Added by the network model.
  std::string protocol;           // LL, LL128, Simple
  Seconds latency_time;           // the alpha part of `time`
  double bottleneck_utilisation = 0;  // data rate on the bottleneck link / its nominal capacity
};

// nccl-tests bus-bandwidth factor (doc/PERFORMANCE.md): all-reduce 2(n-1)/n; reduce-scatter,
// all-gather, all-to-all (n-1)/n; broadcast and send/recv 1.
double bus_bandwidth_factor(Collective op, int ranks);

// Time of one collective over `bytes` (the full buffer per rank, nccl-tests convention), with the
// algorithm an NCCL-like library would choose for this size.
CollectiveEstimate estimate(const Cluster& cluster, Collective op, Bytes bytes, const Group& group);
// estimate(...).time alone, without the bandwidths and bottleneck text of the answer: what a table
// of collective times (infer::make_deployment tabulates 31 sizes per collective) needs.
Seconds estimate_time(const Cluster& cluster, Collective op, Bytes bytes, const Group& group);
// The same with a forced algorithm; InputError when it does not apply (NVLS without in-switch
// reduction, hierarchical inside one node ...).
CollectiveEstimate estimate(const Cluster& cluster, Collective op, Bytes bytes, const Group& group,
                            Algorithm algorithm);

// An engine's custom all-reduce of `bytes` over `ranks` devices of one NVSwitch or full-mesh node:
// the faster of one-shot (each rank reads its ranks - 1 peers' buffers, one barrier) and two-shot
// (reduce-scatter + all-gather over peer memory, 2 (ranks - 1) / ranks of the buffer, two barriers)
// at the link's achievable bandwidth. Empty when the node has no such links or ranks < 2.
std::optional<Seconds> custom_all_reduce_time(const Node& node, int ranks, Bytes bytes);

// The bytes one rank of an all-to-all (nccl-tests alltoall: `bytes` is its whole send buffer,
// bytes/n to each rank, itself included) sends over each level of the cluster: to peers inside
// its scale-up domain, out of its node through the NICs, out of its leaf over the leaf-to-spine
// uplinks and out of its pod over the spine-to-core uplinks.
struct AllToAllVolume {
  double total = 0;        // to other ranks: bytes (n-1)/n
  double scaleup = 0;      // NVLink / scale-up domain: bytes (r-1)/n, r ranks per node
  double nic = 0;          // through the node's NICs: bytes (n-r)/n
  double leaf_uplink = 0;  // to ranks under other leaves
  double core_uplink = 0;  // to ranks in other pods (three-tier fabrics)
};
AllToAllVolume all_to_all_volume(const Cluster& cluster, Bytes bytes, const Group& group);

// One class of link the collective crosses, with its share per rank after contention.
struct LinkLevel {
  std::string name;  // e.g. "NIC port (ib-ndr)", "CPU socket link (UPI ...)"
  LinkKind kind = LinkKind::nvlink;
  BytesPerSecond nominal_per_direction;  // one link of this class
  double efficiency = 1;                 // achievable fraction used
  int flows = 1;                         // ring/tree flows sharing one link, per direction
  BytesPerSecond per_rank_bandwidth;     // what one rank gets here
  double utilisation = 0;                // of the nominal capacity, in the chosen estimate
};

struct Upgrade {
  std::string change;  // e.g. "ib-ndr -> 800 Gb/s ports (XDR)"
  Seconds time;
  double speedup = 1;  // old time / new time
};

struct Explanation {
  CollectiveEstimate estimate;
  int ranks = 0, ranks_per_node = 0, nodes_spanned = 0, leaf_groups_spanned = 0;
  std::vector<LinkLevel> levels;                // slowest (per rank) first
  std::vector<CollectiveEstimate> candidates;   // every algorithm that applies
  std::string example_path;                     // one transfer across the widest span
  std::vector<Upgrade> upgrades;                // what-ifs for the links crossed, best first
};

Explanation explain(const Cluster& cluster, Collective op, Bytes bytes, const Group& group,
                    Algorithm algorithm = Algorithm::automatic);

}  // namespace memwall::comm
