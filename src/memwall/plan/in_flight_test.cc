// The in-flight counts the planner sizes replicas and KV caches for (issue 28: plans shown as
// meeting the SLA that the serving simulator refuted).
#include "memwall/plan/in_flight.h"

#include <gtest/gtest.h>

namespace memwall::plan {
namespace {

// Poisson quantiles against the distribution's sums: P(N <= 17) = 0.9857 and P(N <= 18) = 0.9928
// at mean 10, so its p99 is 18; at mean 1.21, P(N <= 5) = 0.99846 and P(N <= 6) = 0.99976.
TEST(InFlight, PoissonQuantilesAreThoseOfTheDistribution) {
  EXPECT_EQ(poisson_quantile(10, 0.99), 18);
  EXPECT_EQ(poisson_quantile(1.21, 0.99), 4);
  EXPECT_EQ(poisson_quantile(1.21, 0.999), 6);
  EXPECT_EQ(sequences_to_hold(1.21), 6);
  EXPECT_EQ(poisson_quantile(0, 0.99), 0);
  // The exact sum and the Cornish-Fisher expansion meet within one at the switch (mean 500).
  EXPECT_NEAR(poisson_quantile(500, 0.999), poisson_quantile(500.0001, 0.999), 1.0);
  // A large mean: mean + 3.0902 sqrt(mean) + (z^2 - 1) / 6 = 1544 + 121.4 + 1.4.
  EXPECT_EQ(sequences_to_hold(1544), 1667);
}

// 1544 sequences in flight on average (18.9 requests/s x 81.7 s) once got 7 replicas of 221 slots
// (1547): the simulator then found every slot taken most of the time, 7747 preemptions and a
// TTFT p99 of 153 s. The replicas must hold the count's upper tail.
TEST(InFlight, AnOpenLoopNeedsSlotsBeyondItsMeanCount) {
  EXPECT_GT(sequences_to_hold(1544), 7 * 221);
}

// 172 sequences of 500 tokens' mean context fill a cache of 86,000 tokens; when contexts vary
// (sd 400 tokens) their sum stays within it at the p99 only for 149.
TEST(InFlight, VaryingContextsFitFewerSequences) {
  EXPECT_EQ(sequences_within_kv(172 * 500.0, 500, 0), 172);
  EXPECT_EQ(sequences_within_kv(172 * 500.0, 500, 400), 149);
  EXPECT_EQ(sequences_within_kv(0, 500, 400), 0);
}

}  // namespace
}  // namespace memwall::plan
