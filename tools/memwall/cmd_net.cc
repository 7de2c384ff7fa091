// memwall net: bus-bandwidth curve of one collective over message sizes on a cluster (node type x
// count, joined by a fabric), the path and the limiting link (--explain) with upgrade what-ifs,
// and two clusters side by side (--compare A B). Parses options, calls net:: (over comm::) and prints.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/comm/collective.h"
#include "memwall/comm/sizes.h"
#include "memwall/core/error.h"
#include "memwall/net/request.h"

namespace memwall::cli {
namespace {

struct NetOptions {
  net::Request request;
  std::string fabric;
  bool csv = false;
  std::vector<std::string> compare;
};

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
  const net::Curve c = net::curve(catalog, o.request);
  const net::Setup& s = *c.setup;
  const auto& sizes = c.sizes;
  const auto& rows = c.rows;
  if (json) {
    std::cout << net::to_json(c).dump(2) << "\n";
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
  fmt::print("memwall net: {} over {} ranks on {}\n", comm::to_string(c.op), s.group.size, s.title());
  fmt::print("{}\n\n", net::kDefinitions);
  fmt::print("{:>8} {:>12} {:>12} {:>12}  {:<18} {:<7} {}\n", "size", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
             "algorithm", "proto", "bottleneck");
  for (size_t i = 0; i < sizes.size(); ++i)
    fmt::print("{:>8} {:>12.1f} {:>12.2f} {:>12.2f}  {:<18} {:<7} {}\n", comm::format_size(sizes[i]),
               rows[i].time.value() * 1e6, rows[i].algorithm_bandwidth.value() / kGiga,
               rows[i].bus_bandwidth.value() / kGiga, rows[i].algorithm, rows[i].protocol, rows[i].bottleneck);
  if (c.explanation) print_explanation(*c.explanation, sizes.back());
  return 0;
}

int run_compare(const Catalog& catalog, const NetOptions& o, bool json) {
  const net::Comparison c = net::compare(catalog, o.request, o.compare[0], o.compare[1]);
  const net::Setup& a = *c.a;
  const net::Setup& b = *c.b;
  const auto& sizes = c.sizes;
  const auto& ra = c.a_rows;
  const auto& rb = c.b_rows;
  if (json) {
    std::cout << net::to_json(c).dump(2) << "\n";
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
  fmt::print("memwall net --compare: {}\n  A: {} ({} ranks)\n  B: {} ({} ranks)\n{}\n\n", comm::to_string(c.op),
             a.title(), a.group.size, b.title(), b.group.size, net::kDefinitions);
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
  sub->footer(net::kDefinitions);
  sub->add_option("--node", opts->request.node, "Node type, e.g. hgx-h100, pcie-4090, mi300x-8 (memwall catalog list nodes)");
  sub->add_option("--fabric", opts->fabric, "Fabric joining the nodes: ib-hdr, ib-ndr, ib-xdr, roce-100/200/400");
  sub->add_option("--nodes", opts->request.nodes, "Number of nodes (default 1)")->check(CLI::Range(1, 100000));
  sub->add_option("--op", opts->request.op, "allreduce | reducescatter | allgather | alltoall | broadcast | sendrecv");
  sub->add_option("--sizes", opts->request.sizes,
                  "Bytes per rank: 1K..8G (doubling range), a list 1M,1G or one size; K/M/G/T are binary");
  sub->add_option("--ranks", opts->request.ranks, "Ranks taking part, from rank 0 (default: every device)");
  sub->add_option("--algo", opts->request.algo, "auto (the NCCL-like choice by size) | ring | tree | hierarchical | nvls");
  sub->add_option("--oversubscription", opts->request.oversubscription, "Leaf downlink:uplink ratio, e.g. 2 for 2:1");
  sub->add_option("--nodes-per-leaf", opts->request.nodes_per_leaf, "Nodes under one leaf switch (per rail)")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--tiers", opts->request.tiers, "Switch tiers: 1 (one switch), 2 (leaf-spine), 3 (leaf-spine-core)")
      ->check(CLI::Range(1, 3));
  sub->add_flag("--explain", opts->request.explain, "Show the path, each link's share, the bottleneck and what-ifs");
  sub->add_flag("--csv", opts->csv, "CSV rows instead of the table");
  sub->add_option("--compare", opts->compare, "Two node types side by side, e.g. --compare hgx-h100 pcie-4090")
      ->expected(2);
  sub->callback([&run, &g, opts] {
    run = [&g, opts] {
      if (g.json && opts->csv) throw InputError("--csv", "with --json", "one of --json or --csv");
      const Catalog catalog = Catalog::with_user_files(g.catalog_files);
      if (!opts->fabric.empty()) opts->request.fabric = opts->fabric;
      if (!opts->compare.empty()) {
        if (!opts->request.node.empty())
          throw InputError("--node", opts->request.node, "no --node with --compare A B");
        if (opts->request.explain) throw InputError("--explain", "with --compare", "--explain on one cluster (--node)");
        return run_compare(catalog, *opts, g.json);
      }
      if (opts->request.node.empty()) throw InputError("--node", "(missing)", "a node type, e.g. --node hgx-h100");
      return run_curve(catalog, *opts, g.json);
    };
  });
}

}  // namespace memwall::cli
