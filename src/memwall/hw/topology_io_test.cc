#include <gtest/gtest.h>

#include <map>
#include <set>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall {
namespace {

Json embedded(std::string_view path) {
  for (const auto& f : data::embedded_files())
    if (f.path == path) return parse_document(f.content, std::string(path));
  ADD_FAILURE() << "not embedded: " << path;
  return Json::object();
}

std::vector<Node> builtin_nodes() {
  std::vector<Node> out;
  const Json doc = embedded("hw/nodes.json");
  for (const Json& e : doc.at("nodes")) out.push_back(node_from_json(e, "nodes"));
  return out;
}

Json minimal_node() {
  return Json{{"id", "n"},
              {"accelerator", "nvidia-h100-sxm"},
              {"devices", 8},
              {"topology", "nvswitch"},
              {"device_link_bandwidth_per_direction_gbps", 450},
              {"device_link_latency_us", 1},
              {"pcie_bandwidth_per_direction_gbps", 63},
              {"nics", 8},
              {"nic_bandwidth_gbit_s", 400}};
}

TEST(NodeIo, BuiltinNodesHaveTheContractIdsAndSources) {
  std::set<std::string> ids;
  for (const Node& n : builtin_nodes()) {
    ids.insert(n.id);
    EXPECT_FALSE(n.sources.empty()) << n.id;
  }
  for (const char* id : {"hgx-a100", "hgx-a800", "hgx-h100", "hgx-h800", "hgx-h20", "hgx-h200",
                         "hgx-b200", "gb200-nvl72", "pcie-4090", "pcie-4090-p2p", "pcie-l40s",
                         "pcie-l20", "mi300x-8", "gaudi3-8", "ascend-910b-8"})
    EXPECT_TRUE(ids.count(id)) << id;
}

TEST(NodeIo, HgxH100FiguresFromTheDatasheet) {
  for (const Node& n : builtin_nodes()) {
    if (n.id != "hgx-h100") continue;
    EXPECT_EQ(n.accelerator, "nvidia-h100-sxm");
    EXPECT_DOUBLE_EQ(n.device_link_bandwidth_per_direction.value(), 450e9);  // 900 GB/s bidir
    EXPECT_DOUBLE_EQ(n.nic_bandwidth_per_direction.value(), 50e9);           // 400 Gb/s
    EXPECT_EQ(n.nics, 8);
    EXPECT_TRUE(n.in_switch_reduction);
    return;
  }
  FAIL() << "hgx-h100 missing";
}

TEST(NodeIo, RoundTripKeepsEveryField) {
  for (const Node& n : builtin_nodes()) {
    const Node back = node_from_json(node_to_json(n), "roundtrip");
    EXPECT_EQ(node_to_json(back), node_to_json(n)) << n.id;
  }
}

TEST(NodeIo, BadFieldsAreNamed) {
  auto expect_error = [](Json j, const std::string& needle) {
    try {
      node_from_json(j, "test");
      ADD_FAILURE() << "accepted: " << j.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Json j = minimal_node();
  EXPECT_NO_THROW(node_from_json(j, "test"));
  j["devices"] = 0;
  expect_error(j, "devices");
  j = minimal_node();
  j["topology"] = "nvswich";
  expect_error(j, "nvswitch");  // nearest name suggested
  j = minimal_node();
  j["device_link_bandwidth_per_direction_gbps"] = -5;
  expect_error(j, "device_link_bandwidth_per_direction_gbps");
  j = minimal_node();
  j["device_link_bandwidth_per_direction_gbps"] = "fast";
  expect_error(j, "a number");
  j = minimal_node();
  j["device_link_achievable_bandwidth_per_direction_gbps"] = 500;  // above nominal 450
  expect_error(j, "nominal");
  j = minimal_node();
  j["nic_bandwith_gbit_s"] = 400;  // typo
  expect_error(j, "nic_bandwidth_gbit_s");
  j = minimal_node();
  j.erase("accelerator");
  expect_error(j, "accelerator");
  j = minimal_node();
  j["topology"] = "pcie_via_cpu";  // two sockets need the socket link
  expect_error(j, "cpu_socket_bandwidth_per_direction_gbps");
  expect_error(Json::array(), "object");
}

TEST(FabricIo, BuiltinFabricsParseWithPortRates) {
  std::map<std::string, double> gbit;
  const Json doc = embedded("hw/fabrics.json");
  for (const Json& e : doc.at("fabrics")) {
    const Fabric f = fabric_from_json(e, "fabrics");
    gbit[f.id] = f.port_bandwidth_per_direction.value() * 8 / 1e9;
    EXPECT_EQ(fabric_to_json(fabric_from_json(fabric_to_json(f), "rt")), fabric_to_json(f));
  }
  EXPECT_DOUBLE_EQ(gbit.at("ib-hdr"), 200);
  EXPECT_DOUBLE_EQ(gbit.at("ib-ndr"), 400);
  EXPECT_DOUBLE_EQ(gbit.at("ib-xdr"), 800);
  EXPECT_DOUBLE_EQ(gbit.at("roce-100"), 100);
  EXPECT_DOUBLE_EQ(gbit.at("roce-200"), 200);
  EXPECT_DOUBLE_EQ(gbit.at("roce-400"), 400);
}

TEST(FabricIo, BadFieldsAreNamed) {
  Json f{{"id", "x"}, {"technology", "infiniband"}, {"port_bandwidth_gbit_s", 400},
         {"switch_hop_latency_ns", 130}, {"endpoint_latency_us", 0.6}};
  EXPECT_NO_THROW(fabric_from_json(f, "t"));
  Json g = f;
  g["oversubscription"] = 0.5;
  EXPECT_THROW(fabric_from_json(g, "t"), InputError);
  g = f;
  g["tiers"] = 4;
  EXPECT_THROW(fabric_from_json(g, "t"), InputError);
  g = f;
  g["technology"] = "token-ring";
  EXPECT_THROW(fabric_from_json(g, "t"), InputError);
  g = f;
  g["port_bandwidth_gbit_s"] = nullptr;
  EXPECT_THROW(fabric_from_json(g, "t"), InputError);
}

}  // namespace
}  // namespace memwall
