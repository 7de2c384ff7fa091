// Predictions for the collective-bandwidth (nccl-tests) microbenchmark cases: the case's hardware
// text is mapped to a built-in node, the test line to a collective and message size, and the
// network model predicts the bus bandwidth at that size.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "memwall/catalog/catalog.h"
#include "memwall/comm/collective.h"
#include "memwall/comm/sizes.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/validate/case.h"

namespace memwall::validate {
namespace {

std::string text_of(const Json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Hardware words -> built-in node id (empty when none fits).
std::string node_for(const std::string& hw) {
  const std::string h = to_lower(hw);
  auto has = [&](const char* w) { return h.find(w) != std::string::npos; };
  if (has("h100") && has("pcie") && has("nvlink")) return "pcie-h100-nvlink";
  if (has("gb200")) return "gb200-nvl72";
  if (has("h200")) return "hgx-h200";
  if (has("h800")) return "hgx-h800";
  if (has("h20") && !has("h200")) return "hgx-h20";
  if (has("h100") && !has("pcie")) return "hgx-h100";
  if (has("a800")) return "hgx-a800";
  if (has("a100") && has("pcie") && has("nvlink")) return "pcie-a100-nvlink";
  if (has("a100") && !has("pcie")) return "hgx-a100";
  if (has("b200")) return "hgx-b200";
  if (has("4090")) return has("p2p") ? "pcie-4090-p2p" : "pcie-4090";
  if (has("l40s")) return "pcie-l40s";
  if (has("l20")) return "pcie-l20";
  if (has("mi300x")) return "mi300x-8";
  if (has("gaudi 3") || has("gaudi3")) return "gaudi3-8";
  if (has("910b")) return "ascend-910b-8";
  return {};
}

std::optional<comm::Collective> op_for(const std::string& test) {
  const std::string t = to_lower(test);
  if (t.find("all_reduce") != std::string::npos) return comm::Collective::all_reduce;
  if (t.find("reduce_scatter") != std::string::npos) return comm::Collective::reduce_scatter;
  if (t.find("all_gather") != std::string::npos) return comm::Collective::all_gather;
  if (t.find("alltoall") != std::string::npos) return comm::Collective::all_to_all;
  if (t.find("broadcast") != std::string::npos) return comm::Collective::broadcast;
  if (t.find("sendrecv") != std::string::npos) return comm::Collective::send_recv;
  return std::nullopt;
}

// The scale-out network a case states, e.g. "8x 400Gb/s RoCE per node" or "4x 200Gb/s
// InfiniBand HDR": NIC count, port rate and a catalog fabric of that technology and rate.
struct StatedNetwork {
  int nics = 0;
  double gbit = 0;
  const Fabric* fabric = nullptr;
  std::string problem;  // why it cannot be expressed, when not empty
};

StatedNetwork network_for(const std::string& text, const Catalog& catalog) {
  StatedNetwork out;
  static const std::regex count_rate(R"((\d+)\s*x\s*(\d+(?:\.\d+)?)\s*g(?:b/s|bps|bit/s|b)\b)",
                                     std::regex::icase);
  std::smatch m;
  if (!std::regex_search(text, m, count_rate)) {
    out.problem = fmt::format("NIC count and rate not found in the network '{}' (expected e.g. '8x 400Gb/s RoCE')", text);
    return out;
  }
  out.nics = std::stoi(m[1].str());
  out.gbit = std::stod(m[2].str());
  const std::string t = to_lower(text);
  auto has = [&](const char* w) { return t.find(w) != std::string::npos; };
  std::string technology;
  if (has("roce") || has("ethernet") || has("gbe")) technology = "roce";
  if (has("infiniband") || has(" ib") || has("hdr") || has("ndr") || has("xdr")) technology = "infiniband";
  if (technology.empty()) {
    out.problem = fmt::format("the network '{}' does not say InfiniBand or RoCE/Ethernet", text);
    return out;
  }
  for (const Fabric& f : catalog.fabrics())
    if (f.technology == technology &&
        std::abs(f.port_bandwidth_per_direction.value() * 8 / kGiga - out.gbit) < 0.01 * out.gbit)
      out.fabric = &f;
  if (out.fabric == nullptr)
    out.problem = fmt::format("no catalog fabric is {} at {:g} Gb/s per port", technology, out.gbit);
  return out;
}

int int_field(const Json& obj, const char* key, int fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

}  // namespace

CaseResult predict_net_microbench_case(const Json& c, const Catalog& catalog) {
  CaseResult r = start_result(c);
  const Json hw = c.contains("hardware") ? c.at("hardware") : Json::object();
  const Json config = c.contains("config") ? c.at("config") : Json::object();
  const std::string metric = to_lower(r.metric);
  const bool bus = metric.find("bus bandwidth") != std::string::npos;
  const bool alg = metric.find("algorithm bandwidth") != std::string::npos;
  if (!bus && !alg) {
    r.skipped_reason = "not a bus- or algorithm-bandwidth metric";
    return r;
  }
  const std::string gpu = text_of(hw, "gpu") + " " + text_of(hw, "interconnect");
  const std::string node_id = node_for(gpu);
  if (node_id.empty()) {
    r.skipped_reason = fmt::format("no built-in node matches the hardware '{}'", gpu);
    return r;
  }
  const std::string test = text_of(config, "test");
  const auto op = op_for(test + " " + r.metric);
  if (!op) {
    r.skipped_reason = fmt::format("collective not recognised in '{}'", test);
    return r;
  }
  Node node = catalog.node(node_id);
  const int nodes = int_field(hw, "nodes", 1);
  const int ranks = int_field(hw, "count", node.devices * nodes);
  if (nodes < 1) {
    r.skipped_reason = fmt::format("hardware.nodes = {} is not a node count", nodes);
    return r;
  }
  const Fabric* fabric = nullptr;
  std::string network_basis;
  if (nodes == 1) {
    if (ranks < 2 || ranks > node.devices) {
      r.skipped_reason = fmt::format("{} ranks do not fit one {} node; the case states no node count", ranks, node_id);
      return r;
    }
  } else {
    if (ranks != nodes * node.devices) {
      // The model places every group of the same shape at once; a run that leaves GPUs idle on
      // each node (e.g. 1 GPU per node using all NICs) is not that.
      r.skipped_reason = fmt::format("{} ranks on {} nodes of {} devices: only whole nodes are modelled", ranks,
                                     nodes, node.devices);
      return r;
    }
    const std::string network = text_of(hw, "network");
    if (network.empty()) {
      r.skipped_reason = fmt::format("{} nodes but the case states no network (hardware.network)", nodes);
      return r;
    }
    const StatedNetwork net = network_for(network, catalog);
    if (!net.problem.empty()) {
      r.skipped_reason = net.problem;
      return r;
    }
    node.nics = net.nics;
    node.nic_bandwidth_per_direction = net.fabric->port_bandwidth_per_direction;
    fabric = net.fabric;
    network_basis = fmt::format("; {} nodes, {} NICs x {:g} Gb/s per node on {}", nodes, net.nics, net.gbit, fabric->id);
  }
  // Message size: an explicit "<N> GiB/MiB row", else the run's largest size (-e), else 4 GiB for
  // a statement about "large sizes".
  Bytes size(4.0 * kGiB);
  std::string size_basis = "4G (the case gives no size; large-message regime assumed)";
  std::smatch m;
  const std::string all_text = test + " " + text_of(c, "notes");
  static const std::regex row(R"((\d+(?:\.\d+)?)\s*(GiB|MiB|KiB) row)"), end(R"(-e\s+([0-9.]+[KMGTkmgt]?))");
  if (std::regex_search(all_text, m, row)) {
    const double unit = m[2].str() == "GiB" ? kGiB : m[2].str() == "MiB" ? kMiB : kKiB;
    size = Bytes(std::stod(m[1].str()) * unit);
    size_basis = fmt::format("{} (the row the case reports)", comm::format_size(size));
  } else if (std::regex_search(test, m, end)) {
    std::string e = m[1].str();
    for (auto& ch : e) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    size = comm::parse_size(e, "case test -e");
    size_basis = fmt::format("{} (largest size of the run)", comm::format_size(size));
  }
  const comm::Cluster cluster{&node, fabric, nodes};
  const auto e = comm::estimate(cluster, *op, size, comm::Group{ranks, 1, 0});
  r.predicted = (bus ? e.bus_bandwidth : e.algorithm_bandwidth).value() / kGiga;
  r.assumptions = fmt::format("node {}; {} ranks{}; size {}; {} bandwidth; algorithm {} / {} (NCCL-like choice); limited by {}",
                              node_id, ranks, network_basis, size_basis, bus ? "bus" : "algorithm", e.algorithm,
                              e.protocol, e.bottleneck);
  return r;
}

}  // namespace memwall::validate
