// Per-GPU means over a run of samples.
#include "memwall/monitor/summary.h"

#include <gtest/gtest.h>

#include "memwall/monitor/test_samples.h"

namespace memwall::monitor {
namespace {

using fixtures::h100_sample;

TEST(MonitorSummary, MeansOverKnownValuesPerGpu) {
  GpuSample a = h100_sample(), b = h100_sample(), c;
  b.time_s += 2;
  b.sm_active_ratio = 0.62;
  b.power_w.reset();
  b.throttle_reasons = 0;
  c.time_s = a.time_s;
  c.index = 3;
  const auto sum = summarise({a, b, c});
  ASSERT_EQ(sum.size(), 2u);
  EXPECT_EQ(sum[0].samples, 2u);
  EXPECT_DOUBLE_EQ(*sum[0].mean.sm_active_ratio, 0.52);
  EXPECT_DOUBLE_EQ(*sum[0].mean.power_w, 612.5);  // the one known value
  EXPECT_DOUBLE_EQ(*sum[0].clocks_limited_share, 0.5);
  EXPECT_DOUBLE_EQ(sum[0].last_time_s - sum[0].first_time_s, 2.0);
  EXPECT_EQ(sum[1].mean.index, 3);
  EXPECT_FALSE(sum[1].mean.sm_active_ratio.has_value());
  EXPECT_FALSE(sum[1].clocks_limited_share.has_value());
}

}  // namespace
}  // namespace memwall::monitor
