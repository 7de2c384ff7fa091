#include "memwall/net/request.h"

#include <fmt/format.h>

#include "memwall/comm/comm_json.h"
#include "memwall/comm/sizes.h"
#include "memwall/core/error.h"

namespace memwall::net {

std::string Setup::title() const {
  return fmt::format("{} node{} x {} ({} devices), fabric {}", cluster.nodes,
                     cluster.nodes > 1 ? "s" : "", node.id, cluster.devices(),
                     fabric ? fabric->id : "none");
}

std::unique_ptr<const Setup> make_setup(const Catalog& catalog, const std::string& node_id,
                                        const Request& r) {
  auto s = std::make_unique<Setup>();
  s->node = catalog.node(node_id);
  if (r.nodes < 1 || r.nodes > 100000)
    throw InputError("nodes", std::to_string(r.nodes), "1 to 100000");
  if (r.fabric) s->fabric = catalog.fabric(*r.fabric);
  if (s->fabric) {
    if (r.oversubscription)
      s->fabric->oversubscription = require_positive(*r.oversubscription, "oversubscription");
    if (s->fabric->oversubscription < 1 || s->fabric->oversubscription > 1000)
      throw InputError("oversubscription", fmt::format("{}", s->fabric->oversubscription),
                       "a ratio from 1 (1:1) to 1000");
    if (r.nodes_per_leaf) {
      if (*r.nodes_per_leaf < 1 || *r.nodes_per_leaf > 1000000)
        throw InputError("nodes-per-leaf", std::to_string(*r.nodes_per_leaf), "1 to 1000000");
      s->fabric->nodes_per_leaf = *r.nodes_per_leaf;
    }
    if (r.tiers) {
      if (*r.tiers < 1 || *r.tiers > 3)
        throw InputError("tiers", std::to_string(*r.tiers), "1, 2 or 3");
      s->fabric->tiers = *r.tiers;
    }
  } else if (r.oversubscription || r.nodes_per_leaf || r.tiers) {
    throw InputError("fabric", "(none)",
                     "a fabric id when oversubscription, nodes-per-leaf or tiers is given");
  }
  if (r.nodes > 1 && !s->fabric)
    throw InputError("fabric", "(none)",
                     fmt::format("a fabric id (ib-hdr, ib-ndr, ib-xdr, roce-100, roce-200, "
                                 "roce-400 ...) to join {} nodes",
                                 r.nodes));
  s->cluster = comm::Cluster{&s->node, s->fabric ? &*s->fabric : nullptr, r.nodes};
  const int devices = s->cluster.devices();
  const int ranks = r.ranks.value_or(devices);
  if (ranks < 1 || ranks > devices)
    throw InputError("ranks", std::to_string(ranks),
                     fmt::format("1 to {} (the cluster's devices)", devices));
  s->group = comm::Group{ranks, 1, 0};
  if (comm::parse_collective(r.op, "op") == comm::Collective::send_recv) {
    // rank 0 to the farthest device: the other node when there are several
    s->group = comm::Group{2, ranks > 1 ? ranks - 1 : 1, 0};
    if (ranks < 2) throw InputError("ranks", std::to_string(ranks), "at least 2 for sendrecv");
  }
  return s;
}

Curve curve(const Catalog& catalog, const Request& r) {
  Curve c;
  c.setup = make_setup(catalog, r.node, r);
  c.op = comm::parse_collective(r.op, "op");
  c.algo = comm::parse_algorithm(r.algo, "algo");
  c.sizes = comm::parse_sizes(r.sizes, "sizes");
  for (Bytes b : c.sizes)
    c.rows.push_back(comm::estimate(c.setup->cluster, c.op, b, c.setup->group, c.algo));
  if (r.explain)
    c.explanation = comm::explain(c.setup->cluster, c.op, c.sizes.back(), c.setup->group, c.algo);
  return c;
}

Comparison compare(const Catalog& catalog, const Request& r, const std::string& node_a,
                   const std::string& node_b) {
  Comparison c;
  c.a = make_setup(catalog, node_a, r);
  c.b = make_setup(catalog, node_b, r);
  c.op = comm::parse_collective(r.op, "op");
  c.algo = comm::parse_algorithm(r.algo, "algo");
  c.nodes = r.nodes;
  c.sizes = comm::parse_sizes(r.sizes, "sizes");
  for (Bytes s : c.sizes) {
    c.a_rows.push_back(comm::estimate(c.a->cluster, c.op, s, c.a->group, c.algo));
    c.b_rows.push_back(comm::estimate(c.b->cluster, c.op, s, c.b->group, c.algo));
  }
  return c;
}

Json to_json(const Curve& c) {
  const Setup& s = *c.setup;
  Json out{{"node", s.node.id},
           {"fabric", s.fabric ? Json(s.fabric->id) : Json(nullptr)},
           {"nodes", s.cluster.nodes},
           {"devices", s.cluster.devices()},
           {"op", comm::to_string(c.op)},
           {"ranks", s.group.size},
           {"algorithm_requested", comm::to_string(c.algo)},
           {"definitions", kDefinitions}};
  if (s.fabric) out["oversubscription"] = s.fabric->oversubscription;
  Json arr = Json::array();
  for (size_t i = 0; i < c.sizes.size(); ++i) arr.push_back(comm::to_json(c.sizes[i], c.rows[i]));
  out["rows"] = arr;
  if (c.explanation) out["explain"] = comm::to_json(*c.explanation);
  return out;
}

Json to_json(const Comparison& c) {
  Json rows = Json::array();
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    const double ta = c.a_rows[i].time.value();
    rows.push_back(Json{{"bytes", c.sizes[i].value()},
                        {"a", comm::to_json(c.sizes[i], c.a_rows[i])},
                        {"b", comm::to_json(c.sizes[i], c.b_rows[i])},
                        {"time_ratio_b_over_a", ta > 0 ? c.b_rows[i].time.value() / ta : 0}});
  }
  auto side = [](const Setup& s) {
    return Json{{"node", s.node.id}, {"ranks", s.group.size}, {"devices", s.cluster.devices()}};
  };
  return Json{{"op", comm::to_string(c.op)},
              {"a", side(*c.a)},
              {"b", side(*c.b)},
              {"fabric", c.a->fabric ? Json(c.a->fabric->id) : Json(nullptr)},
              {"nodes", c.nodes},
              {"definitions", kDefinitions},
              {"rows", rows}};
}

}  // namespace memwall::net
