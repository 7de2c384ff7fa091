// Collective communication time on a cluster: which links a collective crosses and how long it
// takes (alpha-beta model). One implementation serves the inference, training and network tools.
#pragma once

#include <string>

#include "memwall/core/units.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"

namespace memwall::comm {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, send_recv };

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
};

// Time of one collective over `bytes` (the full buffer per rank, nccl-tests convention).
CollectiveEstimate estimate(const Cluster& cluster, Collective op, Bytes bytes, const Group& group);

}  // namespace memwall::comm
