// The analytic steady state on a replica with constant iteration times, where it is solvable by
// hand.
#include "memwall/plan/steady_state.h"

#include <gtest/gtest.h>

#include <cmath>

#include "memwall/plan/in_flight.h"

namespace memwall::plan {
namespace {

// Prefill of any prompt 30 ms, decode step 45 ms: rho = K / (1 + K) with
// K = B S / (S + (out - 1) t_d), e2e = S + (out - 1) t_d + B S (docs/plan.md "Steady state").
// Near K = 1 the fixed-point iteration rho <- K (1 - rho) oscillates with slope -K and had not
// converged after its 30 steps: at 405B on B200 it reported TPOT 50 ms at batch 640 and 92 ms at
// 641 (the simulator: 84 ms), and a plan of TPOT 61.7 ms under a 50 ms SLA.
TEST(SteadyState, LittlesLawHoldsAtThePointItReports) {
  ReplicaModel m;
  m.step = [](const infer::StepBatch& b) { return Seconds(b.prefill_tokens > 0 ? 0.030 : 0.045); };
  InferenceWorkload w;
  w.input = {155, 696, "", {}};
  w.output = {324, 1408, "", {}};
  for (int batch : {1, 100, 400, 480, 484, 486, 490, 640, 2000}) {
    SCOPED_TRACE(batch);
    const OperatingPoint p = steady_state(m, w, batch);
    ASSERT_TRUE(p.stable);
    const double base = 0.030 + 323 * 0.045;
    const double k = batch * 0.030 / base;
    EXPECT_NEAR(p.prefill_share, k / (1 + k), 1e-9);
    EXPECT_NEAR(p.e2e_mean.value(), base + batch * 0.030, 1e-9 * base);
    EXPECT_NEAR(p.tpot.value(), 0.045 * (1 + k), 1e-12);
    // Little's law: the prefill share is the arrival rate batch / e2e times the prefill time.
    EXPECT_NEAR(p.prefill_share, batch / p.e2e_mean.value() * 0.030, 1e-9);
  }
}

// Prefill 30 ms, decode step 10 ms, two output tokens, four sequences: K = 4 x 0.03 / 0.04 = 3,
// rho = 0.75 and the mean TPOT 40 ms; a request's one gap sees Poisson(rho / S x TPOT = 1)
// prompts, 4 at the p99 (P(N <= 3) = 0.981, P(N <= 4) = 0.996), so its TPOT p99 is
// 10 + 4 x 30 = 130 ms. The simulator had such plans at TPOT p99 56 ms under a 20 ms target whose
// mean TPOT met it. With 324 output tokens the interleaved prompts average out: p99 near the mean.
TEST(SteadyState, AShortOutputsTpotP99CarriesWholePrompts) {
  ReplicaModel m;
  m.step = [](const infer::StepBatch& b) { return Seconds(b.prefill_tokens > 0 ? 0.030 : 0.010); };
  InferenceWorkload w;
  w.input = {500, 500, "", {}};
  w.output = {2, 2, "", {}};
  OperatingPoint p = steady_state(m, w, 4);
  EXPECT_NEAR(p.prefill_share, 0.75, 1e-12);
  EXPECT_NEAR(p.tpot.value(), 0.040, 1e-12);
  EXPECT_NEAR(p.tpot_p99.value(), 0.130, 1e-12);
  std::string why;
  EXPECT_FALSE(meets_sla(p, {Seconds(10), Seconds(0.05), std::nullopt}, &why));
  EXPECT_EQ(why, "TPOT p99 130.0 ms > 50.0 ms at batch 4");
  w.output = {324, 324, "", {}};
  p = steady_state(m, w, 4);
  EXPECT_GT(p.tpot_p99.value(), p.tpot.value());
  EXPECT_LT(p.tpot_p99.value(), 1.05 * p.tpot.value());
}

}  // namespace
}  // namespace memwall::plan

namespace memwall::plan {
namespace {

// The TPOT p99 over requests is that of the p99 request, not of the mean one: a per-request TPOT
// of 10 ms + 100 ms / gaps, 5 % of the requests with one gap (2 tokens) and the rest with 99.
TEST(SteadyState, TpotP99IsOverRequestsOfTheirOwnLengths) {
  auto tpot = [](double g) { return 0.010 + 0.100 / g; };
  auto p99 = [&](const Lengths& out, double target) {
    const std::vector<WeightedLength> gaps = request_gaps(out);
    return tpot_p99_over_requests(gaps, Seconds(0.010), Seconds(0.110), Seconds(target),
                                  [&](size_t i, double t) { return tpot(gaps[i].tokens) > t; })
        .value();
  };
  Lengths out;
  out.mean = 0.05 * 2 + 0.95 * 100;
  out.points = {{2, 0.05}, {100, 0.95}};
  EXPECT_NEAR(p99(out, 0.05), 0.110, 1e-6);
  // Short requests rarer than 1 %: the p99 request is a long one; exact on the target's side.
  out.points = {{2, 0.005}, {100, 0.995}};
  EXPECT_NEAR(p99(out, 0.05), tpot(99), 1e-6);
  EXPECT_LE(p99(out, tpot(99)), tpot(99));
  EXPECT_GT(p99(out, tpot(99) - 1e-9), tpot(99) - 1e-9);
  // Requests of one token have no TPOT (serve/metrics.cc) and are left out.
  out.points = {{1, 0.5}, {100, 0.5}};
  EXPECT_NEAR(p99(out, 0.05), tpot(99), 1e-6);
  // No points: every request at the mean.
  out.points.clear();
  out.mean = 51;
  EXPECT_NEAR(p99(out, 0.05), tpot(50), 1e-6);
}

TEST(InFlight, PoissonTailIsExactAndItsNormalBranchContinuous) {
  // P(N > 3) at mean 2 = 1 - e^-2 (1 + 2 + 2 + 4/3).
  EXPECT_NEAR(poisson_exceeds(2.0, 3.0), 1 - std::exp(-2.0) * (1 + 2 + 2 + 4.0 / 3), 1e-12);
  EXPECT_NEAR(poisson_exceeds(2.0, 3.7), poisson_exceeds(2.0, 3.0), 1e-15);  // k rounds down
  EXPECT_EQ(poisson_exceeds(2.0, -0.5), 1.0);
  EXPECT_EQ(poisson_exceeds(0.0, 0.0), 0.0);
  EXPECT_EQ(poisson_exceeds(2.0, 200.0), 0.0);
  // Either side of the 500 switch the tail at mean + 2 sd agrees within 0.002.
  const double below = poisson_exceeds(499.9, 499.9 + 2 * std::sqrt(499.9));
  const double above = poisson_exceeds(500.1, 500.1 + 2 * std::sqrt(500.1));
  EXPECT_NEAR(below, above, 2e-3);
  EXPECT_NEAR(above, 0.0228, 5e-3);
}

}  // namespace
}  // namespace memwall::plan
