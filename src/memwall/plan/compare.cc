#include "memwall/plan/compare.h"

#include <fmt/format.h>

#include <algorithm>

#include "memwall/comm/collective.h"
#include "memwall/plan/rejections.h"

namespace memwall::plan {

namespace {

// The reference all-reduce: 1 GiB per rank, where nccl-tests' bus bandwidth has reached the links'
// rate (doc/PERFORMANCE.md: busbw is the figure to compare against the hardware's peak).
constexpr double kReferenceAllReduceBytes = 1024.0 * 1024 * 1024;

struct LinkScaling {
  std::optional<double> at_8, at_64;
  std::string basis;
};

// Bus bandwidth of the reference all-reduce over `ranks` devices of `node` copies joined by
// `fabric`; nullopt when they need more than one node and there is no fabric.
std::optional<double> bus_bandwidth(const Node& node, const Fabric* fabric, int ranks) {
  comm::Cluster cluster;
  cluster.node = &node;
  cluster.nodes = (ranks + node.devices - 1) / node.devices;
  if (cluster.nodes > 1 && !fabric) return std::nullopt;
  cluster.fabric = cluster.nodes > 1 ? fabric : nullptr;
  comm::Group group;
  group.size = ranks;
  return comm::estimate(cluster, comm::Collective::all_reduce, Bytes(kReferenceAllReduceBytes),
                        group)
      .bus_bandwidth.value();
}

// How far the accelerator's links scale, whatever its best plan uses (docs/compare.md): the bus
// bandwidth at 8 and 64 devices over the best it reaches inside one node (2 devices, or the node's
// first min(8, devices); a full mesh is fastest with every peer), on its catalog node with the most
// devices (ties: the first) and the comparison's fabric.
LinkScaling link_scaling(const Accelerator& a, const std::vector<const Node*>& nodes,
                         const Fabric* fabric) {
  LinkScaling out;
  const Node* node = nullptr;
  for (const Node* n : nodes)
    if (n->accelerator == a.id && n->devices > 0 && (!node || n->devices > node->devices)) node = n;
  if (!node) {
    out.basis = "no catalog node of " + a.id + ": link scaling unknown";
    return out;
  }
  try {
    const int in_node = std::min(8, node->devices);
    const auto pair = bus_bandwidth(*node, fabric, 2);
    const auto whole = in_node > 2 ? bus_bandwidth(*node, fabric, in_node) : pair;
    const auto eight = bus_bandwidth(*node, fabric, 8);
    const auto sixty_four = bus_bandwidth(*node, fabric, 64);
    if (!pair || !whole || !eight || !sixty_four) {
      out.basis = node->id + ": beyond one node with no fabric, link scaling unknown";
      return out;
    }
    const double peak = std::max(*pair, *whole);
    if (!(peak > 0)) {
      out.basis = node->id + ": no all-reduce bandwidth, link scaling unknown";
      return out;
    }
    out.at_8 = *eight / peak;
    out.at_64 = *sixty_four / peak;
    out.basis = fmt::format(
        "1 GiB all-reduce bus bandwidth on {}{}: {:.0f} GB/s at best inside the node, {:.0f} at 8, "
        "{:.0f} at 64 devices",
        node->id, fabric ? " + " + fabric->id : "", peak / 1e9, *eight / 1e9, *sixty_four / 1e9);
  } catch (const std::runtime_error& e) {  // InputError or InfeasibleError of the link model
    out = {};
    out.basis = node->id + ": link scaling unknown (" + e.what() + ")";
  }
  return out;
}

}  // namespace

Comparison compare_accelerators(const ModelSpec& model, const InferenceWorkload& w,
                                const SearchSpace& space, const Constraints& constraints,
                                const SearchOptions& options, const ReplicaModelFactory& factory,
                                const cost::PriceBook& prices, const score::EcosystemBook& ecosystem) {
  Comparison out;
  out.requirements = derive_requirements(model, w, Precision::bf16, Precision::bf16);
  std::vector<score::Evidence> evidence;
  for (const Accelerator* a : space.accelerators) {
    SearchSpace one = space;
    one.accelerators = {a};
    const InferenceSearchResult r = search_inference(model, w, one, constraints, options, factory, prices);
    score::Evidence e;
    e.accelerator = a;
    const LinkScaling links = link_scaling(*a, space.nodes, space.fabric);
    e.link_efficiency_8 = links.at_8;
    e.link_efficiency_64 = links.at_64;
    e.link_basis = links.basis;
    Plan best;
    std::optional<ShapeVerdict> rejection;
    if (!r.plans.empty()) {
      best = r.plans.front();
      const Requirements req = derive_requirements(model, w, best.shape.weights, best.shape.kv);
      e.required_capacity = req.capacity;
      e.required_bandwidth = req.bandwidth;
      e.feasible = true;
      e.devices = best.devices;
      e.tokens_per_joule = best.cost.tokens_per_joule;
      e.usd_per_million_tokens = best.cost.usd_per_million_tokens;
      e.billed_devices = best.cost.billed_devices;
      e.node = best.shape.node ? best.shape.node->id : "";
      e.plan_summary = best.prefill ? fmt::format("{}, decode batch {}", best.describe(), best.point.batch)
                                    : fmt::format("{} x {} replicas, batch {}", best.shape.describe(),
                                                  best.replicas, best.point.batch);
    } else {
      e.required_capacity = out.requirements.capacity;
      e.required_bandwidth = out.requirements.bandwidth;
      // The same binding reason `plan` prints for this accelerator.
      std::vector<const ShapeVerdict*> mine;
      for (const auto& v : r.rejected)
        if (v.shape.accelerator && v.shape.accelerator->id == a->id) mine.push_back(&v);
      e.infeasible_reason = mine.empty() ? "not searched (vendor filter)" : binding_rejection(mine).reason;
      if (!mine.empty()) rejection = binding_rejection(mine);
    }
    evidence.push_back(e);
    out.best_plans.push_back(best);
    out.rejections.push_back(rejection);
  }
  out.rows = score::build_scorecard(evidence, ecosystem);
  return out;
}

}  // namespace memwall::plan
