#include "memwall/net/request.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"

namespace memwall::net {
namespace {

TEST(NetRequest, CurveRowsFollowTheNcclTestsConvention) {
  Request r;
  r.node = "hgx-h100";
  r.sizes = "1M,1G";
  const Curve c = curve(Catalog::builtin(), r);
  ASSERT_EQ(c.rows.size(), 2u);
  const Json j = to_json(c);
  EXPECT_EQ(j["ranks"], 8);
  EXPECT_TRUE(j["fabric"].is_null());
  for (const auto& row : j["rows"]) {
    // all-reduce over 8 ranks: busbw = algbw x 2 x 7 / 8; algbw = bytes / time.
    EXPECT_NEAR(row["busbw_gbps"].get<double>(), row["algbw_gbps"].get<double>() * 1.75, 1e-9);
    EXPECT_NEAR(row["algbw_gbps"].get<double>(),
                row["bytes"].get<double>() / row["time_s"].get<double>() / 1e9, 1e-6);
  }
}

TEST(NetRequest, SendRecvGoesFromRankZeroToTheLastRank) {
  Request r;
  r.node = "hgx-h100";
  r.fabric = "ib-ndr";
  r.nodes = 2;
  r.op = "sendrecv";
  const auto s = make_setup(Catalog::builtin(), r.node, r);
  EXPECT_EQ(s->group.size, 2);
  EXPECT_EQ(s->group.stride, 15);
  EXPECT_EQ(s->title(), "2 nodes x hgx-h100 (16 devices), fabric ib-ndr");
}

TEST(NetRequest, SendRecvInsideOneNodeNeedsNoFabric) {
  Request r;
  r.node = "hgx-h100";
  r.op = "sendrecv";
  r.sizes = "1G";
  const Curve c = curve(Catalog::builtin(), r);
  EXPECT_EQ(c.setup->group.size, 2);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_GT(c.rows[0].time.value(), 0.0);
  EXPECT_EQ(c.rows[0].bottleneck.find("NIC"), std::string::npos);
}

TEST(NetRequest, BadInputNamesTheField) {
  Request r;
  r.node = "hgx-h100";
  r.nodes = 2;  // no fabric
  EXPECT_THROW(curve(Catalog::builtin(), r), InputError);
  r.fabric = "ib-ndr";
  r.oversubscription = 0.5;
  EXPECT_THROW(curve(Catalog::builtin(), r), InputError);
  r.oversubscription.reset();
  r.ranks = 17;
  EXPECT_THROW(curve(Catalog::builtin(), r), InputError);
}

TEST(NetRequest, CompareTimesTheSameSizesOnBoth) {
  Request r;
  r.sizes = "1G";
  const Comparison c = compare(Catalog::builtin(), r, "hgx-h100", "pcie-4090");
  const Json j = to_json(c);
  ASSERT_EQ(j["rows"].size(), 1u);
  const auto& row = j["rows"][0];
  EXPECT_NEAR(row["time_ratio_b_over_a"].get<double>(),
              row["b"]["time_s"].get<double>() / row["a"]["time_s"].get<double>(), 1e-12);
  EXPECT_GT(row["time_ratio_b_over_a"].get<double>(), 1);  // PCIe without P2P is slower
}

}  // namespace
}  // namespace memwall::net
