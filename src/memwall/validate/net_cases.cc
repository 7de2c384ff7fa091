// Predictions for the collective-bandwidth (nccl-tests) microbenchmark cases: the case's hardware
// text is mapped to a built-in node, the test line to a collective and message size, and the
// network model predicts the bus bandwidth at that size.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "memwall/comm/collective.h"
#include "memwall/comm/sizes.h"
#include "memwall/core/error.h"
#include "memwall/validate/case.h"

namespace memwall::validate {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string text_of(const Json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Hardware words -> built-in node id (empty when none fits).
std::string node_for(const std::string& hw) {
  const std::string h = lower(hw);
  auto has = [&](const char* w) { return h.find(w) != std::string::npos; };
  if (has("h100") && has("pcie") && has("nvlink")) return "pcie-h100-nvlink";
  if (has("gb200")) return "gb200-nvl72";
  if (has("h200")) return "hgx-h200";
  if (has("h800")) return "hgx-h800";
  if (has("h20") && !has("h200")) return "hgx-h20";
  if (has("h100") && !has("pcie")) return "hgx-h100";
  if (has("a800")) return "hgx-a800";
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
  const std::string t = lower(test);
  if (t.find("all_reduce") != std::string::npos) return comm::Collective::all_reduce;
  if (t.find("reduce_scatter") != std::string::npos) return comm::Collective::reduce_scatter;
  if (t.find("all_gather") != std::string::npos) return comm::Collective::all_gather;
  if (t.find("alltoall") != std::string::npos) return comm::Collective::all_to_all;
  if (t.find("broadcast") != std::string::npos) return comm::Collective::broadcast;
  if (t.find("sendrecv") != std::string::npos) return comm::Collective::send_recv;
  return std::nullopt;
}

}  // namespace

CaseResult predict_net_microbench_case(const Json& c, const Catalog& catalog) {
  CaseResult r = start_result(c);
  const Json hw = c.contains("hardware") ? c.at("hardware") : Json::object();
  const Json config = c.contains("config") ? c.at("config") : Json::object();
  if (lower(r.metric).find("bus bandwidth") == std::string::npos) {
    r.skipped_reason = "not a bus-bandwidth metric";
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
  const Node& node = catalog.node(node_id);
  int ranks = node.devices;
  if (hw.is_object() && hw.contains("count") && hw.at("count").is_number_integer())
    ranks = hw.at("count").get<int>();
  if (ranks < 2 || ranks > node.devices) {
    r.skipped_reason = fmt::format("{} ranks do not fit one {} node; the case states no fabric", ranks, node_id);
    return r;
  }
  // Message size: an explicit "<N>GiB row", else the run's largest size (-e), else 4 GiB for a
  // statement about "large sizes".
  Bytes size(4.0 * kGiB);
  std::string size_basis = "4G (the case gives no size; large-message regime assumed)";
  std::smatch m;
  const std::string all_text = test + " " + text_of(c, "notes");
  static const std::regex row(R"((\d+)\s*GiB row)"), end(R"(-e\s+([0-9.]+[KMGT]?))");
  if (std::regex_search(all_text, m, row)) {
    size = Bytes(std::stod(m[1].str()) * kGiB);
    size_basis = fmt::format("{} (the row the case reports)", comm::format_size(size));
  } else if (std::regex_search(test, m, end)) {
    size = comm::parse_size(m[1].str(), "case test -e");
    size_basis = fmt::format("{} (largest size of the run)", comm::format_size(size));
  }
  const comm::Cluster cluster{&node, nullptr, 1};
  const auto e = comm::estimate(cluster, *op, size, comm::Group{ranks, 1, 0});
  r.predicted = e.bus_bandwidth.value() / kGiga;
  r.assumptions = fmt::format("node {}; {} ranks; size {}; algorithm {} / {} (NCCL-like choice); limited by {}",
                              node_id, ranks, size_basis, e.algorithm, e.protocol, e.bottleneck);
  return r;
}

}  // namespace memwall::validate
