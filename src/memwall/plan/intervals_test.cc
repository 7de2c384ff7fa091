#include "memwall/plan/intervals.h"

#include <gtest/gtest.h>

#include <cmath>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

Plan plan_with_tpot(double tpot_s) {
  Plan p;
  p.shape.accelerator = &Catalog::builtin().accelerator("h100");
  p.point.batch = 8;
  p.point.tpot = Seconds(tpot_s);
  p.point.tpot_p99 = Seconds(tpot_s);
  p.point.ttft_mean = Seconds(0.1);
  p.point.ttft_p99 = Seconds(0.2);
  p.point.e2e_mean = Seconds(1.0);
  p.point.e2e_p99 = Seconds(2.0);
  p.generated_tokens_per_s = 1000;
  return p;
}

TEST(PlanIntervals, RowsCarryIntervalsAroundTheirValues) {
  const Plan p = plan_with_tpot(0.02);
  const Json j = intervals_json(p);
  ASSERT_TRUE(j.contains("tpot_s"));
  EXPECT_LT(j["tpot_s"][0].get<double>(), 0.02);
  EXPECT_GT(j["tpot_s"][1].get<double>(), 0.02);
  EXPECT_GT(j["throughput_tokens_per_s"][1].get<double>(), 1000);
  // A higher confidence is a wider interval.
  EXPECT_GT(interval(p, 0.95).half_width, interval(p, 0.8).half_width);
}

TEST(PlanIntervals, ConfidenceRemovesPlansThatFailAtThePessimisticEnd) {
  InferenceSearchResult r;
  const double f = interval(plan_with_tpot(0.02), 0.8).high(1.0);  // exp(+h)
  ASSERT_GT(f, 1.0);
  const Sla sla{Seconds(1.0), Seconds(0.05), std::nullopt};
  r.plans = {plan_with_tpot(0.05 / f * 0.99), plan_with_tpot(0.05 / f * 1.01),
             plan_with_tpot(0.01)};
  r.cost_latency_front = {1, 2};
  EXPECT_EQ(require_confidence(r, sla, 0.8), 1);
  ASSERT_EQ(r.plans.size(), 2u);
  EXPECT_DOUBLE_EQ(r.plans[1].point.tpot.value(), 0.01);
  EXPECT_EQ(r.cost_latency_front, (std::vector<size_t>{1}));  // old 2 -> new 1; old 1 removed
  EXPECT_THROW(require_confidence(r, sla, 1.5), InputError);
}

// A plan timed with a calibration profile carries, on the engine and accelerator the profile's
// records ran on, the calibrated interval (as infer prints it); elsewhere the built-in one.
TEST(PlanIntervals, ACalibratedStackCarriesItsRecordsInterval) {
  const Json doc = Json::parse(R"({"engines": {"vllm@0.14": {"memory_stream_fraction": 0.9}},
      "fitted_on": {"groups": {"vllm@0.14": {"engine": "vLLM", "records": 12,
        "residual_sd_log": 0.02, "parameters": {"memory_stream_fraction": {}},
        "accelerators": ["nvidia-h100-sxm"]}}}})");
  const perf::Efficiency calibrated = perf::apply_calibration(perf::default_efficiency(), doc, "t.json");
  Plan h100 = plan_with_tpot(0.02);
  h100.shape.engine = "vllm@0.14";
  const double builtin = interval(h100).half_width;
  const uncertainty::Interval c = interval(h100, uncertainty::kDefaultLevel, &calibrated);
  EXPECT_TRUE(c.calibrated);
  EXPECT_LT(c.half_width, builtin);  // 12 records within 2 %: narrower than the dev set's
  const Json iv = intervals_json(h100, &calibrated);
  EXPECT_NEAR(iv["tpot_s"][1].get<double>() / iv["tpot_s"][0].get<double>(),
              std::exp(2 * c.half_width), 1e-9);
  // At another level, the calibrated half-width scaled by the normal quantiles' ratio.
  EXPECT_GT(interval(h100, 0.95, &calibrated).half_width, c.half_width);
  Plan a100 = h100;
  a100.shape.accelerator = &Catalog::builtin().accelerator("a100");
  EXPECT_FALSE(interval(a100, uncertainty::kDefaultLevel, &calibrated).calibrated);
  Plan other = h100;
  other.shape.engine = "sglang";
  EXPECT_FALSE(interval(other, uncertainty::kDefaultLevel, &calibrated).calibrated);
}

}  // namespace
}  // namespace memwall::plan
