#include "memwall/comm/topology.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "memwall/comm/test_nodes.h"

namespace memwall::comm {
namespace {

std::vector<LinkKind> kinds(const Topology& t, const std::vector<int>& path) {
  std::vector<LinkKind> out;
  for (int l : path) out.push_back(t.links()[l].kind);
  return out;
}

TEST(Topology, HgxH100TwoNodesHasTheExpectedParts) {
  const Topology t(testing::builtin_node("hgx-h100"), &testing::builtin_fabric("ib-ndr"), 2);
  EXPECT_EQ(t.count(VertexKind::device), 16);
  EXPECT_EQ(t.count(VertexKind::nvswitch), 2);
  EXPECT_EQ(t.count(VertexKind::pcie_switch), 8);
  EXPECT_EQ(t.count(VertexKind::cpu_socket), 4);
  EXPECT_EQ(t.count(VertexKind::nic), 16);
  EXPECT_EQ(t.count(VertexKind::leaf), 8);   // one leaf group, 8 rails
  EXPECT_EQ(t.count(VertexKind::spine), 0);  // both nodes under the same leaves
  EXPECT_EQ(kinds(t, t.route(0, 5)), (std::vector<LinkKind>{LinkKind::nvlink, LinkKind::nvlink}));
  // GPU 3 of node 0 to GPU 3 of node 1: its own rail, one leaf
  EXPECT_EQ(kinds(t, t.route(3, 11)),
            (std::vector<LinkKind>{LinkKind::pcie, LinkKind::pcie, LinkKind::network, LinkKind::network,
                                   LinkKind::pcie, LinkKind::pcie}));
}

TEST(Topology, CrossLeafTrafficGoesThroughTheSpine) {
  Fabric f = testing::builtin_fabric("ib-ndr");
  f.nodes_per_leaf = 2;
  f.oversubscription = 2;
  const Topology t(testing::builtin_node("hgx-h100"), &f, 4);
  const auto path = kinds(t, t.route(0, 3 * 8));
  EXPECT_EQ(std::count(path.begin(), path.end(), LinkKind::leaf_uplink), 2);
  // leaf uplink capacity: 2 nodes x 400 Gb/s / 2
  for (const Link& l : t.links()) {
    if (l.kind == LinkKind::leaf_uplink) {
      EXPECT_DOUBLE_EQ(l.bandwidth_per_direction.value(), 50e9);
    }
  }
}

TEST(Topology, NoPeerToPeerBouncesThroughTheCpu) {
  const Topology t(testing::builtin_node("pcie-4090"), nullptr, 1);
  // GPUs 0 and 1 share a PCIe switch, but without P2P the data goes up to the CPU and back.
  EXPECT_EQ(kinds(t, t.route(0, 1)), (std::vector<LinkKind>{LinkKind::pcie, LinkKind::pcie_uplink,
                                                            LinkKind::pcie_uplink, LinkKind::pcie}));
  const Topology p2p(testing::builtin_node("pcie-4090-p2p"), nullptr, 1);
  EXPECT_EQ(kinds(p2p, p2p.route(0, 1)), (std::vector<LinkKind>{LinkKind::pcie, LinkKind::pcie}));
  const auto far = kinds(t, t.route(0, 7));
  EXPECT_EQ(std::count(far.begin(), far.end(), LinkKind::socket), 1);
}

}  // namespace
}  // namespace memwall::comm
