// A network question as a front end asks it (the CLI's `memwall net`, the Python module): a
// cluster named by node type, fabric and node count (with the fabric's oversubscription, leaf size
// and tiers overridable), one collective over a range of message sizes, and optionally the path
// and limiting link at the largest size. Or two node types compared under the same collective.
// `curve` / `compare` resolve and run it on the network model (comm/); `to_json` gives the one
// JSON object both front ends return.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/comm/collective.h"
#include "memwall/core/document.h"
#include "memwall/core/units.h"

namespace memwall::net {

inline constexpr const char* kDefinitions =
    "Definitions (nccl-tests doc/PERFORMANCE.md): size = bytes per rank (the full buffer);\n"
    "algbw = size / time; busbw = algbw x factor, factor 2(n-1)/n for allreduce, (n-1)/n for\n"
    "reducescatter, allgather and alltoall, 1 for broadcast and sendrecv. GB/s = 1e9 bytes/s.\n"
    "All groups of the same shape are assumed to run at once (links they share are divided).";

struct Request {
  std::string node;                   // node type (ignored by compare, which names two)
  std::optional<std::string> fabric;  // needed when nodes > 1
  int nodes = 1;
  std::string op = "allreduce";
  std::string sizes = "1K..8G";  // bytes per rank: a doubling range, a list or one size
  std::optional<int> ranks;      // from rank 0; default every device
  std::string algo = "auto";
  std::optional<double> oversubscription;  // leaf downlink:uplink ratio
  std::optional<int> nodes_per_leaf;
  std::optional<int> tiers;
  bool explain = false;  // curve only: path and limiting link at the largest size
};

// The machines and the ranks taking part. Held by pointer: `cluster` points into it.
struct Setup {
  Node node;
  std::optional<Fabric> fabric;
  comm::Cluster cluster;
  comm::Group group;
  std::string title() const;  // "2 nodes x hgx-h100 (16 devices), fabric ib-ndr"
};

// Resolves the node, the fabric with the overrides, and the group; InputError names the field.
std::unique_ptr<const Setup> make_setup(const Catalog& catalog, const std::string& node_id,
                                        const Request& r);

struct Curve {
  std::unique_ptr<const Setup> setup;
  comm::Collective op = comm::Collective::all_reduce;
  comm::Algorithm algo = comm::Algorithm::automatic;
  std::vector<Bytes> sizes;
  std::vector<comm::CollectiveEstimate> rows;    // one per size
  std::optional<comm::Explanation> explanation;  // at sizes.back(), when asked
};

struct Comparison {
  std::unique_ptr<const Setup> a, b;
  comm::Collective op = comm::Collective::all_reduce;
  comm::Algorithm algo = comm::Algorithm::automatic;
  int nodes = 1;
  std::vector<Bytes> sizes;
  std::vector<comm::CollectiveEstimate> a_rows, b_rows;
};

Curve curve(const Catalog& catalog, const Request& r);
Comparison compare(const Catalog& catalog, const Request& r, const std::string& node_a,
                   const std::string& node_b);

// As `memwall net --json` and `memwall net --compare A B --json` print them.
Json to_json(const Curve& c);
Json to_json(const Comparison& c);

}  // namespace memwall::net
