// The advisor on synthetic recordings: the wall it names, the means it reports, and the
// comparison with memwall's own inference estimate.
#include "memwall/monitor/advisor.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"

namespace memwall::monitor {
namespace {

struct Reading {
  std::optional<double> sm, dram, tensor, util;
  std::optional<uint64_t> reasons = 0;
};

// `passes` passes over `gpus` GPUs, every sample the same reading.
std::vector<GpuSample> recording(const Reading& r, int passes, int gpus = 1,
                                 double start_s = 1764450000) {
  std::vector<GpuSample> out;
  for (int p = 0; p < passes; ++p)
    for (int g = 0; g < gpus; ++g) {
      GpuSample s;
      s.time_s = start_s + p;
      s.index = g;
      s.sm_active_ratio = r.sm;
      s.dram_bw_util_ratio = r.dram;
      s.tensor_active_ratio = r.tensor;
      s.gpu_util_ratio = r.util;
      s.throttle_reasons = r.reasons;
      s.sm_clock_mhz = 1980;
      out.push_back(s);
    }
  return out;
}

std::vector<GpuSample> operator+(std::vector<GpuSample> a, const std::vector<GpuSample>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(MonitorAdvisor, DecodeAtSmallBatchIsMemoryBandwidthBoundAndIdleSamplesDoNotCount) {
  // 10 busy passes on 2 GPUs, and 5 idle passes of warm-up that must not dilute the means.
  const auto samples = recording({0.60, 0.72, 0.10, 1.0}, 10, 2) +
                       recording({0.01, 0.0, 0.0, 0.02}, 5, 2, 1764440000);
  const Advice a = advise(samples, std::nullopt);
  EXPECT_EQ(a.wall, Wall::memory_bandwidth);
  EXPECT_EQ(a.samples, 30u);
  EXPECT_EQ(a.busy_samples, 20u);
  EXPECT_EQ(a.gpus, 2u);
  EXPECT_DOUBLE_EQ(*a.dram_util, 0.72);
  EXPECT_DOUBLE_EQ(*a.sm_active, 0.60);
  EXPECT_DOUBLE_EQ(*a.clocks_limited_share, 0.0);
  EXPECT_NE(a.verdict.find("memory-bandwidth-bound: DRAM bandwidth utilisation 72 %"),
            std::string::npos)
      << a.verdict;
}

TEST(MonitorAdvisor, NamesEachWall) {
  // Starved: SMs mostly idle although "GPU util" reads 98 %.
  const Advice starved = advise(recording({0.30, 0.15, 0.05, 0.98}, 4), std::nullopt);
  EXPECT_EQ(starved.wall, Wall::starved);
  bool trap_explained = false;
  for (const auto& d : starved.details)
    trap_explained |= d.find("coarse GPU util of 98 %") != std::string::npos;
  EXPECT_TRUE(trap_explained);

  EXPECT_EQ(advise(recording({0.9, 0.35, 0.55, 1.0}, 4), std::nullopt).wall, Wall::compute);
  // Both above their thresholds: the one further above wins (tensor 0.6/0.4 > DRAM 0.6/0.5).
  EXPECT_EQ(advise(recording({0.9, 0.60, 0.60, 1.0}, 4), std::nullopt).wall, Wall::compute);
  EXPECT_EQ(advise(recording({0.9, 0.70, 0.30, 1.0}, 4), std::nullopt).wall,
            Wall::memory_bandwidth);
  EXPECT_EQ(advise(recording({0.7, 0.30, 0.20, 1.0}, 4), std::nullopt).wall, Wall::mixed);
  EXPECT_EQ(advise(recording({{}, {}, {}, 0.97}, 4), std::nullopt).wall, Wall::unknown);
  EXPECT_EQ(advise(recording({0.0, 0.0, 0.0, 0.0}, 4), std::nullopt).wall, Wall::idle);
}

TEST(MonitorAdvisor, PowerCapInAQuarterOfSamplesMakesClocksTheWall) {
  // 3 of 8 busy samples power-capped (37.5 % >= 25 %); underneath, memory-bandwidth-bound.
  const auto samples = recording({0.6, 0.7, 0.1, 1.0, 0x4}, 3) +
                       recording({0.6, 0.7, 0.1, 1.0, 0x0}, 5, 1, 1764460000);
  const Advice a = advise(samples, std::nullopt);
  EXPECT_EQ(a.wall, Wall::clocks);
  EXPECT_EQ(a.pattern, Wall::memory_bandwidth);
  EXPECT_DOUBLE_EQ(*a.clocks_limited_share, 0.375);
  EXPECT_NE(a.verdict.find("38 % of busy samples (mean SM clock 1980 MHz)"), std::string::npos)
      << a.verdict;
  // gpu_idle and sync_boost are not limits: 2 of 8 thermal samples stay under the threshold.
  const auto mild = recording({0.6, 0.7, 0.1, 1.0, 0x20}, 1) +
                    recording({0.6, 0.7, 0.1, 1.0, 0x1 | 0x10}, 7, 1, 1764460000);
  EXPECT_EQ(advise(mild, std::nullopt).wall, Wall::memory_bandwidth);
}

TEST(MonitorAdvisor, MeasuredBandwidthAndImpliedTokensAgainstAnExpectation) {
  Expected x;
  x.deployment = "test";
  x.devices = 1;
  x.datasheet_bandwidth = gb_per_s(3350);
  x.dram_util = 0.8;
  x.bandwidth = x.datasheet_bandwidth * 0.8;
  x.tokens_per_s = 1000;
  x.bound = "memory";
  const Advice a = advise(recording({0.6, 0.6, 0.1, 1.0}, 3), x);
  ASSERT_TRUE(a.measured_bandwidth.has_value());
  EXPECT_DOUBLE_EQ(a.measured_bandwidth->value(), 0.6 * 3350e9);  // 2.01 TB/s
  EXPECT_DOUBLE_EQ(*a.bandwidth_vs_expected, 0.75);
  EXPECT_DOUBLE_EQ(*a.implied_tokens_per_s, 750);
  bool line = false;
  for (const auto& d : a.details)
    line |= d.find(
                "measured DRAM bandwidth 2.01 TB/s per device (60 % of the 3.35 TB/s "
                "datasheet) vs 2.68 TB/s (80 %)") != std::string::npos;
  EXPECT_TRUE(line);
  // No DRAM reading: nothing to compare, said so.
  const Advice none = advise(recording({0.6, {}, 0.1, 1.0}, 3), x);
  EXPECT_FALSE(none.implied_tokens_per_s.has_value());
}

TEST(MonitorAdvisor, ExpectationComesFromTheInferenceEstimate) {
  const Catalog& catalog = Catalog::builtin();
  infer::DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.gpu = "h100";
  const infer::Workload w{8, 512, 256};
  const Expected x = expect(catalog, o, w);
  const infer::Deployment d = infer::make_deployment(catalog, o);
  const infer::Estimate e = infer::estimate(d, w);
  EXPECT_DOUBLE_EQ(x.datasheet_bandwidth.value(), 3350e9);  // catalog H100 SXM
  EXPECT_DOUBLE_EQ(x.tokens_per_s, e.throughput_tokens_per_s);
  // Request-average MBU: each phase's MBU weighted by its time.
  const double ttft = e.ttft.value(), decode = e.tpot.value() * 255;
  EXPECT_NEAR(x.dram_util, (e.prefill.mbu * ttft + e.decode.mbu * decode) / (ttft + decode), 1e-12);
  EXPECT_GT(x.dram_util, e.prefill.mbu);  // decode dominates a 256-token answer
  EXPECT_LT(x.dram_util, e.decode.mbu);
  EXPECT_EQ(x.devices, 1);
  // Measured at exactly the estimate's utilisation, the implied tokens/s are the estimate's.
  const Advice a = advise(recording({0.6, x.dram_util, 0.1, 1.0}, 2), x);
  EXPECT_NEAR(*a.implied_tokens_per_s, e.throughput_tokens_per_s, 1e-9 * e.throughput_tokens_per_s);
}

}  // namespace
}  // namespace memwall::monitor
