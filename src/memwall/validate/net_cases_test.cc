#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "memwall/validate/case.h"

namespace memwall::validate {
namespace {

TEST(NetCases, BusBandwidthCasesArePredictedWithin15PercentExceptTheBridgedPcieOutlier) {
  const char* dir = std::getenv("MEMWALL_SHARED_DIR");
  if (dir == nullptr) GTEST_SKIP() << "MEMWALL_SHARED_DIR not set";
  std::ifstream in(std::string(dir) + "/validation/dev-cases.json");
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
  EXPECT_EQ(predicted, 4);
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
