// memwall net: bus-bandwidth curve of one collective over message sizes on a cluster (node type x
// count, joined by a fabric), the path and the limiting link (--explain) with upgrade what-ifs,
// and two clusters side by side (--compare A B). Parses options, calls comm:: and prints.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/comm/comm_json.h"
#include "memwall/catalog/catalog.h"
#include "memwall/comm/collective.h"
#include "memwall/comm/sizes.h"
#include "memwall/core/error.h"

namespace memwall::cli {
namespace {

struct NetOptions {
  std::string node;
  std::string fabric;
  int nodes = 1;
  std::string op = "allreduce";
  std::string sizes = "1K..8G";
  std::optional<int> ranks;
  std::string algo = "auto";
  std::optional<double> oversubscription;
  std::optional<int> nodes_per_leaf;
  std::optional<int> tiers;
  bool explain = false;
  bool csv = false;
  std::vector<std::string> compare;
};

constexpr const char* kDefinitions =
    "Definitions (nccl-tests doc/PERFORMANCE.md): size = bytes per rank (the full buffer);\n"
    "algbw = size / time; busbw = algbw x factor, factor 2(n-1)/n for allreduce, (n-1)/n for\n"
    "reducescatter, allgather and alltoall, 1 for broadcast and sendrecv. GB/s = 1e9 bytes/s.\n"
    "All groups of the same shape are assumed to run at once (links they share are divided).";

struct Setup {
  Node node;
  std::optional<Fabric> fabric;
  comm::Cluster cluster;
  comm::Group group;
};

// Node, fabric (with the user's overrides) and the group of ranks.
std::unique_ptr<Setup> make_setup(const Catalog& catalog, const std::string& node_id, const NetOptions& o) {
  auto s = std::make_unique<Setup>();
  s->node = catalog.node(node_id);
  if (!o.fabric.empty()) s->fabric = catalog.fabric(o.fabric);
  if (s->fabric) {
    if (o.oversubscription) s->fabric->oversubscription = require_positive(*o.oversubscription, "--oversubscription");
    if (s->fabric->oversubscription < 1 || s->fabric->oversubscription > 1000)
      throw InputError("--oversubscription", fmt::format("{}", s->fabric->oversubscription),
                       "a ratio from 1 (1:1) to 1000");
    if (o.nodes_per_leaf) s->fabric->nodes_per_leaf = *o.nodes_per_leaf;
    if (o.tiers) s->fabric->tiers = *o.tiers;
  } else if (o.oversubscription || o.nodes_per_leaf || o.tiers) {
    throw InputError("--fabric", "(none)", "a fabric id when --oversubscription, --nodes-per-leaf or --tiers is given");
  }
  if (o.nodes > 1 && !s->fabric)
    throw InputError("--fabric", "(none)",
                     fmt::format("a fabric id (ib-hdr, ib-ndr, ib-xdr, roce-100, roce-200, roce-400 ...) "
                                 "to join {} nodes",
                                 o.nodes));
  s->cluster = comm::Cluster{&s->node, s->fabric ? &*s->fabric : nullptr, o.nodes};
  const int devices = s->cluster.devices();
  const int ranks = o.ranks.value_or(devices);
  if (ranks < 1 || ranks > devices)
    throw InputError("--ranks", std::to_string(ranks), fmt::format("1 to {} (the cluster's devices)", devices));
  s->group = comm::Group{ranks, 1, 0};
  if (comm::parse_collective(o.op) == comm::Collective::send_recv) {
    // rank 0 to the farthest device: the other node when there are several
    s->group = comm::Group{2, ranks > 1 ? ranks - 1 : 1, 0};
    if (ranks < 2) throw InputError("--ranks", std::to_string(ranks), "at least 2 for sendrecv");
  }
  return s;
}

std::string cluster_title(const Setup& s) {
  return fmt::format("{} node{} x {} ({} devices), fabric {}", s.cluster.nodes, s.cluster.nodes > 1 ? "s" : "",
                     s.node.id, s.cluster.devices(), s.fabric ? s.fabric->id : "none");
}

void print_explanation(const comm::Explanation& x, Bytes size) {
  fmt::print("\nExplain ({} per rank): {} ranks, {} per node, {} node(s), {} leaf group(s)\n",
             comm::format_size(size), x.ranks, x.ranks_per_node, x.nodes_spanned, x.leaf_groups_spanned);
  fmt::print("Chosen: {} / {} in {:.1f} us (latency part {:.1f} us)\n", x.estimate.algorithm, x.estimate.protocol,
             x.estimate.time.value() * 1e6, x.estimate.latency_time.value() * 1e6);
  if (!x.example_path.empty()) fmt::print("Path (first to last rank): {}\n", x.example_path);
  fmt::print("Links crossed, slowest share first:\n");
  fmt::print("  {:<62} {:>10} {:>6} {:>6} {:>11} {:>6}\n", "link", "GB/s/dir", "eff", "flows", "per-rank", "util");
  for (const auto& l : x.levels)
    fmt::print("  {:<62} {:>10.1f} {:>6.2f} {:>6} {:>11.1f} {:>5.0f}%\n", l.name.substr(0, 62),
               l.nominal_per_direction.value() / kGiga, l.efficiency, l.flows, l.per_rank_bandwidth.value() / kGiga,
               l.utilisation * 100);
  fmt::print("Bottleneck (short stave): {} ({:.0f}% of its nominal rate)\n", x.estimate.bottleneck,
             x.estimate.bottleneck_utilisation * 100);
  if (!x.candidates.empty()) {
    fmt::print("Algorithms considered:");
    for (const auto& c : x.candidates)
      fmt::print("  {} {:.1f} us ({:.1f} GB/s busbw)", c.algorithm, c.time.value() * 1e6, c.bus_bandwidth.value() / kGiga);
    fmt::print("\n");
  }
  if (!x.upgrades.empty()) {
    fmt::print("What if:\n");
    for (const auto& u : x.upgrades)
      fmt::print("  {:<72} {:>10.1f} us  x{:.2f}\n", u.change, u.time.value() * 1e6, u.speedup);
  }
}

int run_curve(const Catalog& catalog, const NetOptions& o, bool json) {
  const auto s = make_setup(catalog, o.node, o);
  const comm::Collective op = comm::parse_collective(o.op);
  const comm::Algorithm algo = comm::parse_algorithm(o.algo);
  const auto sizes = comm::parse_sizes(o.sizes, "--sizes");
  std::vector<comm::CollectiveEstimate> rows;
  for (Bytes b : sizes) rows.push_back(comm::estimate(s->cluster, op, b, s->group, algo));
  std::optional<comm::Explanation> x;
  if (o.explain) x = comm::explain(s->cluster, op, sizes.back(), s->group, algo);
  if (json) {
    Json out{{"node", s->node.id},
             {"fabric", s->fabric ? Json(s->fabric->id) : Json(nullptr)},
             {"nodes", s->cluster.nodes},
             {"devices", s->cluster.devices()},
             {"op", comm::to_string(op)},
             {"ranks", s->group.size},
             {"algorithm_requested", comm::to_string(algo)},
             {"definitions", kDefinitions}};
    if (s->fabric) out["oversubscription"] = s->fabric->oversubscription;
    Json arr = Json::array();
    for (size_t i = 0; i < sizes.size(); ++i) arr.push_back(comm::to_json(sizes[i], rows[i]));
    out["rows"] = arr;
    if (x) out["explain"] = comm::to_json(*x);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (o.csv) {
    fmt::print("bytes,time_s,algbw_gbps,busbw_gbps,algorithm,protocol,bottleneck\n");
    for (size_t i = 0; i < sizes.size(); ++i)
      fmt::print("{:.0f},{:.9g},{:.6g},{:.6g},{},{},\"{}\"\n", sizes[i].value(), rows[i].time.value(),
                 rows[i].algorithm_bandwidth.value() / kGiga, rows[i].bus_bandwidth.value() / kGiga, rows[i].algorithm,
                 rows[i].protocol, rows[i].bottleneck);
    return 0;
  }
  fmt::print("memwall net: {} over {} ranks on {}\n", comm::to_string(op), s->group.size, cluster_title(*s));
  fmt::print("{}\n\n", kDefinitions);
  fmt::print("{:>8} {:>12} {:>12} {:>12}  {:<18} {:<7} {}\n", "size", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
             "algorithm", "proto", "bottleneck");
  for (size_t i = 0; i < sizes.size(); ++i)
    fmt::print("{:>8} {:>12.1f} {:>12.2f} {:>12.2f}  {:<18} {:<7} {}\n", comm::format_size(sizes[i]),
               rows[i].time.value() * 1e6, rows[i].algorithm_bandwidth.value() / kGiga,
               rows[i].bus_bandwidth.value() / kGiga, rows[i].algorithm, rows[i].protocol, rows[i].bottleneck);
  if (x) print_explanation(*x, sizes.back());
  return 0;
}

int run_compare(const Catalog& catalog, const NetOptions& o, bool json) {
  const auto a = make_setup(catalog, o.compare[0], o);
  const auto b = make_setup(catalog, o.compare[1], o);
  const comm::Collective op = comm::parse_collective(o.op);
  const comm::Algorithm algo = comm::parse_algorithm(o.algo);
  const auto sizes = comm::parse_sizes(o.sizes, "--sizes");
  std::vector<comm::CollectiveEstimate> ra, rb;
  for (Bytes s : sizes) {
    ra.push_back(comm::estimate(a->cluster, op, s, a->group, algo));
    rb.push_back(comm::estimate(b->cluster, op, s, b->group, algo));
  }
  if (json) {
    Json rows = Json::array();
    for (size_t i = 0; i < sizes.size(); ++i)
      rows.push_back(Json{{"bytes", sizes[i].value()},
                          {"a", comm::to_json(sizes[i], ra[i])},
                          {"b", comm::to_json(sizes[i], rb[i])},
                          {"time_ratio_b_over_a", ra[i].time.value() > 0 ? rb[i].time.value() / ra[i].time.value() : 0}});
    Json out{{"op", comm::to_string(op)},
             {"a", {{"node", a->node.id}, {"ranks", a->group.size}, {"devices", a->cluster.devices()}}},
             {"b", {{"node", b->node.id}, {"ranks", b->group.size}, {"devices", b->cluster.devices()}}},
             {"fabric", a->fabric ? Json(a->fabric->id) : Json(nullptr)},
             {"nodes", o.nodes},
             {"definitions", kDefinitions},
             {"rows", rows}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (o.csv) {
    fmt::print("bytes,a_busbw_gbps,b_busbw_gbps,time_ratio_b_over_a,a_bottleneck,b_bottleneck\n");
    for (size_t i = 0; i < sizes.size(); ++i)
      fmt::print("{:.0f},{:.6g},{:.6g},{:.6g},\"{}\",\"{}\"\n", sizes[i].value(), ra[i].bus_bandwidth.value() / kGiga,
                 rb[i].bus_bandwidth.value() / kGiga, rb[i].time.value() / ra[i].time.value(), ra[i].bottleneck,
                 rb[i].bottleneck);
    return 0;
  }
  fmt::print("memwall net --compare: {}\n  A: {} ({} ranks)\n  B: {} ({} ranks)\n{}\n\n", comm::to_string(op),
             cluster_title(*a), a->group.size, cluster_title(*b), b->group.size, kDefinitions);
  fmt::print("{:>8} {:>14} {:>14} {:>10}  {}\n", "size", "A busbw(GB/s)", "B busbw(GB/s)", "B/A time", "B bottleneck");
  for (size_t i = 0; i < sizes.size(); ++i)
    fmt::print("{:>8} {:>14.2f} {:>14.2f} {:>10.2f}  {}\n", comm::format_size(sizes[i]),
               ra[i].bus_bandwidth.value() / kGiga, rb[i].bus_bandwidth.value() / kGiga,
               rb[i].time.value() / ra[i].time.value(), rb[i].bottleneck);
  fmt::print("\nLargest size: A limited by {}; B limited by {}\n", ra.back().bottleneck, rb.back().bottleneck);
  return 0;
}

}  // namespace

void register_net(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto opts = std::make_shared<NetOptions>();
  auto* sub = app.add_subcommand(
      "net",
      "Collective communication on a cluster: nccl-tests style bus-bandwidth curve, the path and "
      "the bottleneck link (--explain) with upgrade what-ifs, two clusters side by side (--compare)");
  add_global_options(*sub, g);
  sub->footer(kDefinitions);
  sub->add_option("--node", opts->node, "Node type, e.g. hgx-h100, pcie-4090, mi300x-8 (memwall catalog list nodes)");
  sub->add_option("--fabric", opts->fabric, "Fabric joining the nodes: ib-hdr, ib-ndr, ib-xdr, roce-100/200/400");
  sub->add_option("--nodes", opts->nodes, "Number of nodes (default 1)")->check(CLI::Range(1, 100000));
  sub->add_option("--op", opts->op, "allreduce | reducescatter | allgather | alltoall | broadcast | sendrecv");
  sub->add_option("--sizes", opts->sizes,
                  "Bytes per rank: 1K..8G (doubling range), a list 1M,1G or one size; K/M/G/T are binary");
  sub->add_option("--ranks", opts->ranks, "Ranks taking part, from rank 0 (default: every device)");
  sub->add_option("--algo", opts->algo, "auto (the NCCL-like choice by size) | ring | tree | hierarchical | nvls");
  sub->add_option("--oversubscription", opts->oversubscription, "Leaf downlink:uplink ratio, e.g. 2 for 2:1");
  sub->add_option("--nodes-per-leaf", opts->nodes_per_leaf, "Nodes under one leaf switch (per rail)")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--tiers", opts->tiers, "Switch tiers: 1 (one switch), 2 (leaf-spine), 3 (leaf-spine-core)")
      ->check(CLI::Range(1, 3));
  sub->add_flag("--explain", opts->explain, "Show the path, each link's share, the bottleneck and what-ifs");
  sub->add_flag("--csv", opts->csv, "CSV rows instead of the table");
  sub->add_option("--compare", opts->compare, "Two node types side by side, e.g. --compare hgx-h100 pcie-4090")
      ->expected(2);
  sub->callback([&run, &g, opts] {
    run = [&g, opts] {
      if (g.json && opts->csv) throw InputError("--csv", "with --json", "one of --json or --csv");
      const Catalog catalog = Catalog::with_user_files(g.catalog_files);
      if (!opts->compare.empty()) {
        if (!opts->node.empty()) throw InputError("--node", opts->node, "no --node with --compare A B");
        if (opts->explain) throw InputError("--explain", "with --compare", "--explain on one cluster (--node)");
        return run_compare(catalog, *opts, g.json);
      }
      if (opts->node.empty()) throw InputError("--node", "(missing)", "a node type, e.g. --node hgx-h100");
      return run_curve(catalog, *opts, g.json);
    };
  });
}

}  // namespace memwall::cli
