#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "memwall/core/test_paths.h"
#include "memwall/validate/case.h"

namespace memwall::validate {
namespace {

TEST(NetCases, BusBandwidthCasesArePredictedWithin15PercentExceptTheBridgedPcieOutlier) {
  std::ifstream in(memwall::test::source_dir() + "/validation/dev-cases.json");
  ASSERT_TRUE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const Json cases = Json::parse(ss.str());
  const Catalog catalog = Catalog::builtin();
  int predicted = 0;
  for (const Json& c : cases) {
    if (c.value("kind", "") != "microbench") continue;
    if (c.value("metric", "").find("bus bandwidth") == std::string::npos) continue;
    const CaseResult r = predict_net_microbench_case(c, catalog);
    ASSERT_TRUE(r.predicted) << r.id << ": " << r.skipped_reason;
    ++predicted;
    if (r.id == "micro-net-h100pcie-x2-nvlinkbridge") {
      // Known miss (docs/net.md): measured 116 GB/s, the bridge line rate predicts ~240 GB/s.
      EXPECT_GT(r.abs_pct_error(), 15.0) << "the outlier is now predicted: update docs/net.md";
      continue;
    }
    EXPECT_LT(r.abs_pct_error(), 15.0) << r.id << " predicted " << *r.predicted << " measured " << r.measured
                                       << " (" << r.assumptions << ")";
  }
  EXPECT_EQ(predicted, 7);
}

TEST(NetCases, MultiNodeCasesUseTheStatedNicsAndACatalogFabric) {
  const Catalog catalog = Catalog::builtin();
  auto run = [&](const std::string& hw, const std::string& metric = "all-reduce bus bandwidth") {
    return predict_net_microbench_case(
        Json::parse(R"({"id":"x","kind":"microbench","hardware":)" + hw +
                    R"(,"config":{"test":"all_reduce_perf -b 1G -e 8G"},"metric":")" + metric +
                    R"(","value":100,"unit":"GB/s"})"),
        catalog);
  };
  // 2 nodes of 8 A100 with 4 x 200 Gb/s IB: hierarchical over 4 NICs per node.
  const CaseResult a = run(R"({"gpu":"NVIDIA A100 SXM","count":16,"nodes":2,"network":"4x 200Gb/s InfiniBand HDR"})");
  ASSERT_TRUE(a.predicted) << a.skipped_reason;
  EXPECT_NE(a.assumptions.find("4 NICs x 200 Gb/s per node on ib-hdr"), std::string::npos) << a.assumptions;
  // The same with 8 NICs is faster (the NICs limit it).
  const CaseResult b = run(R"({"gpu":"NVIDIA A100 SXM","count":16,"nodes":2,"network":"8x 200Gb/s InfiniBand HDR"})");
  ASSERT_TRUE(b.predicted);
  EXPECT_GT(*b.predicted, 1.5 * *a.predicted);
  // Algorithm bandwidth = bus bandwidth / (2(n-1)/n) for all-reduce.
  const CaseResult alg = run(R"({"gpu":"NVIDIA A100 SXM","count":16,"nodes":2,"network":"4x 200Gb/s InfiniBand HDR"})",
                             "all-reduce algorithm bandwidth");
  ASSERT_TRUE(alg.predicted);
  EXPECT_NEAR(*alg.predicted * 2.0 * 15 / 16, *a.predicted, 1e-6 * *a.predicted);
  // What cannot be expressed is skipped with the reason, never guessed.
  const CaseResult no_tech = run(R"({"gpu":"NVIDIA H100 SXM","count":16,"nodes":2,"network":"8x 100Gbps ConnectX-6"})");
  EXPECT_FALSE(no_tech.predicted);
  EXPECT_NE(no_tech.skipped_reason.find("InfiniBand or RoCE"), std::string::npos);
  const CaseResult no_rate = run(R"({"gpu":"NVIDIA H100 SXM","count":16,"nodes":2,"network":"8x 100Gb/s InfiniBand EDR"})");
  EXPECT_FALSE(no_rate.predicted);
  EXPECT_NE(no_rate.skipped_reason.find("no catalog fabric"), std::string::npos);
  const CaseResult partial = run(R"({"gpu":"NVIDIA H100 SXM","count":2,"nodes":2,"network":"8x 400Gb/s RoCE"})");
  EXPECT_FALSE(partial.predicted);
  EXPECT_NE(partial.skipped_reason.find("whole nodes"), std::string::npos);
  const CaseResult no_net = run(R"({"gpu":"NVIDIA H100 SXM","count":16,"nodes":2})");
  EXPECT_FALSE(no_net.predicted);
}

TEST(NetCases, OtherMetricsAreLeftToOtherPredictors) {
  const Json c = Json::parse(R"({"id":"x","kind":"microbench","hardware":{"gpu":"NVIDIA H100"},
                                 "metric":"achieved DRAM bandwidth","value":1,"unit":"GB/s"})");
  const CaseResult r = predict_net_microbench_case(c, Catalog::builtin());
  EXPECT_FALSE(r.predicted);
  EXPECT_FALSE(r.skipped_reason.empty());
}

}  // namespace
}  // namespace memwall::validate
