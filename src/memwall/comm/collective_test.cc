#include "memwall/comm/collective.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "memwall/comm/efficiency.h"
#include "memwall/comm/test_nodes.h"
#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"

namespace memwall::comm {
namespace {

using testing::builtin_fabric;
using testing::builtin_fabrics;
using testing::builtin_node;
using testing::builtin_nodes;

// A plain NVSwitch node with round numbers and no measured override.
Node synthetic_nvswitch(double gbps) {
  Node n;
  n.id = "synthetic";
  n.devices = 8;
  n.topology = IntraNodeTopology::nvswitch;
  n.device_link_bandwidth_per_direction = gb_per_s(gbps);
  n.device_link_latency = us(1);
  n.pcie_bandwidth_per_direction = gb_per_s(63);
  n.nics = 8;
  n.nic_bandwidth_per_direction = gb_per_s(50);
  return n;
}

TEST(Collective, RingAllReduceMatchesTheClosedForm) {
  const Node node = synthetic_nvswitch(100);
  const Cluster c{&node, nullptr, 1};
  const double s = 1e9, n = 8, b = 100e9 * kNvlinkEfficiency;
  const auto e = estimate(c, Collective::all_reduce, Bytes(s), Group{8, 1, 0}, Algorithm::ring);
  // T = base + 2(n-1) alpha + 2(n-1)/n S/B (Simple protocol for a large message)
  const double expected = 8.4e-6 + 2 * (n - 1) * 3.4e-6 + 2 * (n - 1) / n * s / b;
  EXPECT_EQ(e.protocol, "Simple");
  EXPECT_NEAR(e.time.value(), expected, 1e-12);
  EXPECT_NEAR(e.latency_time.value(), 8.4e-6 + 14 * 3.4e-6, 1e-12);
}

TEST(Collective, ReduceScatterAndAllGatherMoveHalfTheAllReduceBytes) {
  const Node node = synthetic_nvswitch(100);
  const Cluster c{&node, nullptr, 1};
  const double s = 4e9, b = 100e9 * kNvlinkEfficiency;
  for (Collective op : {Collective::reduce_scatter, Collective::all_gather}) {
    const auto e = estimate(c, op, Bytes(s), Group{8, 1, 0}, Algorithm::ring);
    EXPECT_NEAR(e.time.value(), 8.4e-6 + 7 * 3.4e-6 + 7.0 / 8 * s / b, 1e-12);
  }
}

TEST(Collective, TreeAllReduceSendsTwiceTheBufferWithLogLatency) {
  const Node node = synthetic_nvswitch(100);
  const Fabric& ndr = builtin_fabric("ib-ndr");
  const Cluster c{&node, &ndr, 16};
  const double s = 1e9;
  const auto e = estimate(c, Collective::all_reduce, Bytes(s), Group{16, 8, 0}, Algorithm::tree);
  // one rank per node: 2 x log2(16) network steps, NIC share = 1 NIC x efficiency
  const double bw = 50e9 * kNetworkEfficiency;
  EXPECT_NEAR(e.time.value(), 8.4e-6 + 8 * 14e-6 + 2 * s / bw, 1e-9);
}

TEST(Collective, BusBandwidthFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::reduce_scatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::all_to_all, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::broadcast, 8), 1.0);
  const Cluster c{&builtin_node("hgx-h100"), nullptr, 1};
  const auto e = estimate(c, Collective::all_reduce, Bytes(1 << 30), Group{8, 1, 0});
  EXPECT_NEAR(e.bus_bandwidth.value() / e.algorithm_bandwidth.value(), 1.75, 1e-12);
  EXPECT_NEAR(e.algorithm_bandwidth.value(), (1 << 30) / e.time.value(), 1e-3);
}

// The measured NCCL bus bandwidths of the dev validation set (kind microbench, bus-bandwidth
// metrics), read from the file; large-message predictions must be within 15 %.
TEST(Collective, LargeMessageBusBandwidthWithin15PercentOfMeasured) {
  std::ifstream in(memwall::test::source_dir() + "/validation/dev-cases.json");
  ASSERT_TRUE(in) << "cannot read dev-cases.json";
  std::stringstream ss;
  ss << in.rdbuf();
  const Json cases = Json::parse(ss.str());
  struct Expect {
    const char* id;
    const char* node;
    int ranks;
    double bytes;
  };
  // sizes: the largest of each case's run (H200: -e 4G; A100: -e 1G; H100: maintainer's "large")
  const Expect expects[] = {{"micro-net-h200x8-nccltests-issue272", "hgx-h200", 8, 4294967296.0},
                            {"micro-net-h100x8-maintainer-expected", "hgx-h100", 8, 4294967296.0},
                            {"micro-net-a100x8-issue149", "hgx-a100", 8, 1073741824.0}};
  int checked = 0;
  for (const Expect& x : expects) {
    for (const Json& c : cases) {
      if (c.value("id", "") != x.id) continue;
      const Cluster cl{&builtin_node(x.node), nullptr, 1};
      const auto e = estimate(cl, Collective::all_reduce, Bytes(x.bytes), Group{x.ranks, 1, 0});
      const double measured = c.at("value").get<double>();
      EXPECT_NEAR(e.bus_bandwidth.value() / 1e9, measured, 0.15 * measured) << x.id;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
}

// The Ascend 910B node's measured HCCS rate (130 GB/s per direction, data/hw/nodes.json) is the one
// that reproduces limulidae's torch_npu collectives (algbw, 256 MB class): 8 cards all_reduce 72,
// all_gather 149 GB/s; 2 cards 18 and 38. The same tool's A800 figures (89, 173) check hgx-a800.
TEST(Collective, AscendHccsMatchesTheMeasuredCollectives) {
  struct Row {
    const char* node;
    Collective op;
    int ranks;
    double algbw_gbps;
  };
  const Row rows[] = {{"ascend-910b-8", Collective::all_reduce, 8, 72},
                      {"ascend-910b-8", Collective::all_gather, 8, 149},
                      {"ascend-910b-8", Collective::all_reduce, 2, 18},
                      {"ascend-910b-8", Collective::all_gather, 2, 38},
                      {"hgx-a800", Collective::all_reduce, 8, 89},
                      {"hgx-a800", Collective::all_gather, 8, 173}};
  const Bytes size(256.0 * (1 << 20));
  for (const Row& r : rows) {
    const Cluster cl{&builtin_node(r.node), nullptr, 1};
    const auto e = estimate(cl, r.op, size, Group{r.ranks, 1, 0});
    EXPECT_NEAR(size.value() / e.time.value() / 1e9, r.algbw_gbps, 0.08 * r.algbw_gbps)
        << r.node << " ranks " << r.ranks;
  }
}

// Known miss, kept visible: 2 bridged H100 PCIe measured 116 GB/s; the bridge's line rate with
// NVLink payload efficiency predicts ~240 GB/s (NCCL's own topology model says 12 x 20.6 = 247).
TEST(Collective, BridgedH100PcieFollowsTheBridgeLineRate) {
  const Cluster c{&builtin_node("pcie-h100-nvlink"), nullptr, 1};
  const auto e = estimate(c, Collective::all_reduce, Bytes(4294967296.0), Group{2, 1, 0});
  EXPECT_NEAR(e.bus_bandwidth.value() / 1e9, 300 * kNvlinkEfficiency, 2.0);
}

TEST(Collective, Rtx4090WithoutP2pIsManyTimesSlowerThanH100AndTheSocketLinkLimits) {
  const Cluster h100{&builtin_node("hgx-h100"), nullptr, 1};
  const Cluster rtx{&builtin_node("pcie-4090"), nullptr, 1};
  const Bytes gib(1 << 30);
  const auto a = estimate(h100, Collective::all_reduce, gib, Group{8, 1, 0});
  const auto b = estimate(rtx, Collective::all_reduce, gib, Group{8, 1, 0});
  EXPECT_GT(b.time.value() / a.time.value(), 20.0);
  EXPECT_NE(b.bottleneck.find("CPU socket link"), std::string::npos) << b.bottleneck;
  // 10 GB/s socket link for GPU traffic (NCCL SKL_QPI_BW): ring busbw = 10 GB/s
  EXPECT_NEAR(b.bus_bandwidth.value() / 1e9, 10.0, 0.3);
  const Explanation x = explain(rtx, Collective::all_reduce, gib, Group{8, 1, 0});
  ASSERT_FALSE(x.upgrades.empty());
  EXPECT_NE(x.upgrades.front().change.find("NVLink"), std::string::npos);
  EXPECT_GT(x.upgrades.front().speedup, 20.0);
  EXPECT_NE(x.example_path.find("CPU socket link"), std::string::npos) << x.example_path;
}

TEST(Collective, InSwitchReductionIsChosenForLargeAllReduceOnHopper) {
  const Cluster c{&builtin_node("hgx-h100"), nullptr, 1};
  EXPECT_EQ(estimate(c, Collective::all_reduce, Bytes(1 << 30), Group{8, 1, 0}).algorithm, "nvls");
  // small messages: the low-latency ring
  const auto small = estimate(c, Collective::all_reduce, Bytes(8192), Group{8, 1, 0});
  EXPECT_EQ(small.algorithm, "ring");
  EXPECT_EQ(small.protocol, "LL");
  EXPECT_THROW(estimate(Cluster{&builtin_node("hgx-a100"), nullptr, 1}, Collective::all_reduce,
                        Bytes(1 << 30), Group{8, 1, 0}, Algorithm::nvls),
               InputError);
}

TEST(Collective, NvlsAcrossManyNodesNamesTheNetworkWhenItLimits) {
  const Node& node = builtin_node("hgx-h100");
  const Fabric& ndr = builtin_fabric("ib-ndr");
  const Bytes s(8.0 * kGiB);
  // One node: the in-switch reduction sets the time (algbw = 450 GB/s x kNvlsAlgbwEfficiency).
  const auto one = estimate(Cluster{&node, nullptr, 1}, Collective::all_reduce, s, Group{8, 1, 0});
  EXPECT_EQ(one.algorithm, "nvls");
  EXPECT_NE(one.bottleneck.find("in-switch"), std::string::npos) << one.bottleneck;
  // 16 nodes (NVLS tree): the node's reduced buffer crosses the network as a double-binary-tree
  // all-reduce over all 8 NICs (8 x 50 GB/s x kNetworkEfficiency per node); a node interior in
  // one tree carries 2 S each way, so algbw = 368 GB/s / 2 = 184 GB/s < the NVLS rate of
  // 275 GB/s: the NICs are named.
  const int m = 16;
  const auto many = estimate(Cluster{&node, &ndr, m}, Collective::all_reduce, s, Group{8 * m, 1, 0});
  EXPECT_EQ(many.algorithm, "nvls");
  EXPECT_NE(many.bottleneck.find("NIC ports"), std::string::npos) << many.bottleneck;
  EXPECT_NEAR(many.algorithm_bandwidth.value() / 1e9, 8 * 50 * kNetworkEfficiency / 2.0, 1.5);
  // 2 nodes: each node has at most one child per tree and carries S each way (368 GB/s > 275):
  // the in-switch reduction still sets the time.
  const auto two = estimate(Cluster{&node, &ndr, 2}, Collective::all_reduce, s, Group{16, 1, 0});
  EXPECT_EQ(two.algorithm, "nvls");
  EXPECT_NE(two.bottleneck.find("in-switch"), std::string::npos) << two.bottleneck;
  EXPECT_NEAR(two.algorithm_bandwidth.value(), one.algorithm_bandwidth.value(), 0.02 * one.algorithm_bandwidth.value());
}

// A what-if must change something: a 1:1 fabric is not offered "1:1 instead of 1:1" (seed audit
// 3, D13: 100000 HGX H100 nodes on ib-ndr, all-to-all of 1 GiB).
TEST(Collective, NoWhatIfOffersTheOversubscriptionAFabricAlreadyHas) {
  const Node& node = builtin_node("hgx-h100");
  const Fabric& ndr = builtin_fabric("ib-ndr");
  ASSERT_LE(ndr.oversubscription, 1.0);
  ASSERT_LE(ndr.core_oversubscription, 1.0);
  const int m = 100000;
  const Explanation x =
      explain(Cluster{&node, &ndr, m}, Collective::all_to_all, Bytes(1 << 30), Group{8 * m, 1, 0});
  ASSERT_FALSE(x.upgrades.empty());
  for (const Upgrade& u : x.upgrades)
    EXPECT_EQ(u.change.find("oversubscription"), std::string::npos) << u.change;
  Fabric half = ndr;
  half.oversubscription = 2.0;
  const Explanation y =
      explain(Cluster{&node, &half, m}, Collective::all_to_all, Bytes(1 << 30), Group{8 * m, 1, 0});
  EXPECT_TRUE(std::any_of(y.upgrades.begin(), y.upgrades.end(), [](const Upgrade& u) {
    return u.change == "1:1 instead of 2:1 oversubscription";
  }));
}

TEST(Collective, OversubscriptionSlowsCrossLeafTrafficOnly) {
  const Node& node = builtin_node("hgx-h100");
  Fabric full = builtin_fabric("ib-ndr");  // 32 nodes per leaf
  Fabric half = full;
  half.oversubscription = 2.0;
  const Cluster c1{&node, &full, 128}, c2{&node, &half, 128};
  const Bytes s(1 << 30);
  // One rank per leaf group (stride 32 nodes x 8 GPUs): every ring edge crosses the spine.
  const Group cross{4, 256, 0};
  const double t_full = estimate(c1, Collective::all_reduce, s, cross, Algorithm::ring).time.value();
  const double t_half = estimate(c2, Collective::all_reduce, s, cross, Algorithm::ring).time.value();
  EXPECT_NEAR(t_half / t_full, 2.0, 0.05);
  EXPECT_NE(estimate(c2, Collective::all_reduce, s, cross, Algorithm::ring).bottleneck.find("leaf-to-spine"),
            std::string::npos);
  // All-to-all over all 128 nodes: 3/4 of the traffic leaves its leaf and is slowed 2x.
  const Group all{1024, 1, 0};
  const double a_full = estimate(c1, Collective::all_to_all, s, all).time.value();
  const double a_half = estimate(c2, Collective::all_to_all, s, all).time.value();
  EXPECT_GT(a_half / a_full, 1.4);
  // Inside one leaf (32 nodes) nothing crosses the spine: same time.
  const Group leaf{256, 1, 0};
  for (Collective op : {Collective::all_reduce, Collective::all_to_all})
    EXPECT_DOUBLE_EQ(estimate(c1, op, s, leaf).time.value(), estimate(c2, op, s, leaf).time.value());
}

TEST(Collective, SharedNicsAreDividedAmongConcurrentGroups) {
  // 8 data-parallel groups (one per GPU index) share the node's 8 NICs: one NIC each.
  const Node& node = builtin_node("hgx-h100");
  const Fabric& ndr = builtin_fabric("ib-ndr");
  const Cluster c{&node, &ndr, 4};
  const auto dp = estimate(c, Collective::all_reduce, Bytes(1 << 30), Group{4, 8, 0}, Algorithm::ring);
  EXPECT_NEAR(dp.bus_bandwidth.value() / 1e9, 50 * kNetworkEfficiency, 1.5);
  // A node with 2 NICs for 8 GPUs gives each group a quarter NIC.
  Node few = node;
  few.nics = 2;
  const Cluster c2{&few, &ndr, 4};
  const auto dp2 = estimate(c2, Collective::all_reduce, Bytes(1 << 30), Group{4, 8, 0}, Algorithm::ring);
  EXPECT_NEAR(dp.time.value() / dp2.time.value(), 0.25, 0.01);
}

TEST(Collective, BadInputAndImpossibleGroupsAreRejected) {
  const Node& node = builtin_node("hgx-h100");
  const Cluster one{&node, nullptr, 1};
  EXPECT_THROW(estimate(one, Collective::all_reduce, Bytes(1e6), Group{16, 1, 0}), InfeasibleError);
  EXPECT_THROW(estimate(one, Collective::all_reduce, Bytes(-1), Group{8, 1, 0}), InputError);
  EXPECT_THROW(estimate(one, Collective::all_reduce, Bytes(std::nan("")), Group{8, 1, 0}), InputError);
  EXPECT_THROW(estimate(Cluster{&node, nullptr, 2}, Collective::all_reduce, Bytes(1e6), Group{16, 1, 0}),
               InputError);
  EXPECT_THROW(estimate(one, Collective::all_reduce, Bytes(1e6), Group{0, 1, 0}), InputError);
  EXPECT_EQ(estimate(one, Collective::all_reduce, Bytes(1e6), Group{1, 1, 0}).time.value(), 0.0);
  EXPECT_EQ(estimate(one, Collective::all_reduce, Bytes(0), Group{8, 1, 0}).time.value(), 0.0);
  EXPECT_EQ(parse_collective("all-reduce"), Collective::all_reduce);
  EXPECT_EQ(parse_algorithm("NVLS"), Algorithm::nvls);
  EXPECT_THROW(parse_collective("allreduec"), InputError);
}

TEST(Collective, SendRecvCrossesTheLinkBetweenTwoRanks) {
  const Node& node = builtin_node("hgx-h100");
  const Fabric& ndr = builtin_fabric("ib-ndr");
  const Cluster c{&node, &ndr, 2};
  const double s = 1e9;
  const auto inside = estimate(c, Collective::send_recv, Bytes(s), Group{2, 1, 0});
  const auto across = estimate(c, Collective::send_recv, Bytes(s), Group{2, 8, 0});
  EXPECT_NEAR(s / (inside.time - inside.latency_time).value(), 370e9, 1e9);
  EXPECT_NEAR(s / (across.time - across.latency_time).value(), 50e9 * kNetworkEfficiency, 1e9);
}

TEST(Collective, AllToAllVolumesSplitOverTheLevels) {
  const Node& node = builtin_node("hgx-h100");
  const Fabric& ndr = builtin_fabric("ib-ndr");
  const Cluster c{&node, &ndr, 4};
  const double s = 32e6;
  const auto v = all_to_all_volume(c, Bytes(s), Group{32, 1, 0});
  EXPECT_DOUBLE_EQ(v.total, s * 31 / 32);
  EXPECT_DOUBLE_EQ(v.scaleup, s * 7 / 32);
  EXPECT_DOUBLE_EQ(v.nic, s * 24 / 32);
  EXPECT_DOUBLE_EQ(v.scaleup + v.nic, v.total);
  // An EP group of one rank per node (stride 8) sends everything through the NICs.
  const auto w = all_to_all_volume(c, Bytes(s), Group{4, 8, 0});
  EXPECT_DOUBLE_EQ(w.scaleup, 0);
  EXPECT_DOUBLE_EQ(w.nic, s * 3 / 4);
}

TEST(Collective, AllToAllAcrossNodesRunsAtOneNicPerGpu) {
  // NCCL maintainers (NVIDIA/nccl-tests #130): busbw = per-GPU network bandwidth x N/(N-1).
  const Node& node = builtin_node("hgx-h100");
  const Fabric& ndr = builtin_fabric("ib-ndr");
  const double nic = 50e9 * kNetworkEfficiency;
  for (int nodes : {2, 4, 16}) {
    const Cluster c{&node, &ndr, nodes};
    const int n = 8 * nodes;
    const auto e = estimate(c, Collective::all_to_all, Bytes(1 << 30), Group{n, 1, 0});
    const double expected = nic * nodes / (nodes - 1.0) * (n - 1.0) / n;
    EXPECT_NEAR(e.bus_bandwidth.value() / expected, 1.0, 0.03) << nodes << " nodes";
    EXPECT_NE(e.bottleneck.find("NIC"), std::string::npos) << e.bottleneck;
  }
}

// Nominal (line-rate) time bound of each level: an all-to-all can never beat any of them.
double nominal_bound_s(const Cluster& c, double bytes, const Group& g) {
  const Node& node = *c.node;
  const AllToAllVolume v = all_to_all_volume(c, Bytes(bytes), g);
  double t = 0;
  const bool nvlike =
      node.topology == IntraNodeTopology::nvswitch || node.topology == IntraNodeTopology::full_mesh;
  if (nvlike) {
    t = std::max(t, v.scaleup / node.device_link_bandwidth_per_direction.value());
  } else if (node.topology != IntraNodeTopology::nvlink_bridge) {
    t = std::max(t, v.scaleup / node.pcie_bandwidth_per_direction.value());
  }
  if (c.nodes > 1) {
    const double port = std::min(c.fabric->port_bandwidth_per_direction.value(),
                                 node.nic_bandwidth_per_direction.value());
    const double per_gpu = node.nics * port / node.devices;
    t = std::max(t, v.nic / per_gpu);
    if (c.fabric->tiers >= 2) t = std::max(t, v.leaf_uplink * c.fabric->oversubscription / per_gpu);
    if (c.fabric->tiers == 3)
      t = std::max(t, v.core_uplink * c.fabric->oversubscription *
                          c.fabric->core_oversubscription / per_gpu);
  }
  return t;
}

TEST(Collective, AllToAllNeverBeatsItsSlowestLevelOnAnyCatalogCluster) {
  const double s = 1 << 30;
  int checked = 0;
  for (const Node& node : builtin_nodes()) {
    for (const Fabric& fabric : builtin_fabrics()) {
      if (node.nics == 0) continue;
      for (int nodes = 1; nodes <= 64; ++nodes) {
        const Cluster c{&node, nodes > 1 ? &fabric : nullptr, nodes};
        const int n = node.devices * nodes;
        for (const Group g : {Group{n, 1, 0}, Group{nodes, node.devices, 0}}) {
          if (g.size < 2) continue;
          const auto e = estimate(c, Collective::all_to_all, Bytes(s), g);
          const double bound_busbw = s / nominal_bound_s(c, s, g) * (g.size - 1.0) / g.size;
          EXPECT_LE(e.bus_bandwidth.value(), bound_busbw * (1 + 1e-9))
              << node.id << " " << fabric.id << " " << nodes << " nodes, group " << g.size;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace memwall::comm
