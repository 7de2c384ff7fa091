#include "memwall/perf/roofline.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"
#include "memwall/catalog/catalog.h"
#include "memwall/perf/perf_test_fixtures.h"

namespace memwall::perf {
namespace {

TEST(Efficiency, TablesResolveByArchitectureAndMemoryType) {
  const auto& e = default_efficiency();
  const auto h100 = testing::h100_sxm();
  const auto a100 = testing::a100_80();
  EXPECT_DOUBLE_EQ(e.gemm_peak_fraction.lookup(h100, Precision::bf16), 0.82);
  EXPECT_DOUBLE_EQ(e.gemm_peak_fraction.lookup(h100, Precision::fp8_e4m3), 0.72);
  EXPECT_DOUBLE_EQ(e.gemm_peak_fraction.lookup(a100, Precision::fp16), 0.84);
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(a100, Precision::fp16), 0.89);  // HBM2e
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(h100, Precision::bf16), 0.875);  // fallback
}

TEST(Efficiency, CalibrationOverridesAndRejectsBadValues) {
  const Json doc = {{"memory_bandwidth_fraction", {{"default", 0.8}, {"nvidia-h100-sxm", 0.9}}},
                    {"engines", {{"vllm", {{"step_overhead_us", 500}}}}}};
  const Efficiency e = apply_calibration(default_efficiency(), doc, "cal.json");
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(testing::h100_sxm(), Precision::bf16), 0.9);
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(testing::a100_80(), Precision::bf16), 0.89);
  EXPECT_NEAR(e.engine("vllm").step_overhead.value(), 500e-6, 1e-12);
  EXPECT_THROW(apply_calibration(default_efficiency(), Json{{"overlap_exponent", -1}}, "c"),
               InputError);
  EXPECT_THROW(apply_calibration(default_efficiency(), Json{{"bogus", 1}}, "c"), InputError);
  EXPECT_THROW(apply_calibration(default_efficiency(), Json{{"gemm_peak_fraction", 1.5}}, "c"),
               InputError);
  EXPECT_THROW(default_efficiency().engine("nope"), InputError);
}

// Block-scaled FP8 (DeepSeek-V3 §3.3.2): the engines' measured rate on an H100 applies there; on
// an H20, whose tensor cores are cut far more than its CUDA cores, the CUDA-core promotion costs
// less; Blackwell is not listed (block scales inside the MMA); 16-bit and per-tensor GEMMs keep
// their rates.
TEST(Roofline, BlockScaledFp8GemmsRunSlowerOnHopperOnly) {
  const auto& e = default_efficiency();
  const auto& cat = Catalog::builtin();
  const auto& h100 = cat.accelerator("nvidia-h100-sxm");
  const auto& h20 = cat.accelerator("nvidia-h20");
  const auto& b200 = cat.accelerator("nvidia-b200");
  const auto fp8 = Precision::fp8_e4m3;
  const EngineProfile& vllm = e.engine("vllm");
  ASSERT_LT(vllm.blockwise_fp8_gemm_rate_scale, 1.0);
  EXPECT_NEAR(blockwise_fp8_rate_scale(h100, fp8, Fp8Recipe::blockwise, vllm), vllm.blockwise_fp8_gemm_rate_scale, 0.005);
  // H20: added time (1 / 0.47 - 1) x (296 / 44) / 29.54 = 0.257 of the MMA time -> 0.796.
  const double h20_scale = blockwise_fp8_rate_scale(h20, fp8, Fp8Recipe::blockwise, vllm);
  const double h20_added = (1 / vllm.blockwise_fp8_gemm_rate_scale - 1) * (296.0 / 44.0) /
                           vllm.blockwise_fp8_reference_ratio;
  EXPECT_NEAR(h20_scale, 1 / (1 + h20_added), 1e-6);
  EXPECT_NEAR(h20_scale, 0.80, 0.01);
  EXPECT_DOUBLE_EQ(blockwise_fp8_rate_scale(h100, fp8, Fp8Recipe::tensorwise, vllm), 1.0);
  EXPECT_DOUBLE_EQ(blockwise_fp8_rate_scale(h100, Precision::bf16, Fp8Recipe::blockwise, vllm), 1.0);
  auto gemm = [&](const Accelerator& a, Precision p, Fp8Recipe r) {
    return resolve_ceilings(a, p, e, "vllm", r).gemm_peak_fraction;
  };
  EXPECT_NEAR(gemm(h100, fp8, Fp8Recipe::blockwise),
              gemm(h100, fp8, Fp8Recipe::tensorwise) * vllm.blockwise_fp8_gemm_rate_scale, 0.005);
  EXPECT_DOUBLE_EQ(gemm(b200, fp8, Fp8Recipe::blockwise), gemm(b200, fp8, Fp8Recipe::tensorwise));
  EXPECT_DOUBLE_EQ(gemm(h100, Precision::bf16, Fp8Recipe::blockwise),
                   gemm(h100, Precision::bf16, Fp8Recipe::tensorwise));
  // vLLM 0.6's Triton block kernel ran slower still.
  EXPECT_LT(e.engine("vllm@0.6").blockwise_fp8_gemm_rate_scale, vllm.blockwise_fp8_gemm_rate_scale);
}

TEST(Gemm, TileAndWaveQuantisation) {
  Efficiency e = default_efficiency();
  e.gemm_stream_k = false;
  // 4096^3 on 132 SMs with 128x128 tiles: 1024 tiles in 8 waves of 132 -> 1024/1056; mainloop
  // fill 4096/(4096+64).
  EXPECT_NEAR(gemm_shape_efficiency(4096, 4096, 4096, 1, 132, e),
              1024.0 / 1056.0 * 4096.0 / 4160.0, 1e-12);
  // Unknown SM count: tile quantisation only. M = 200 rounds up to 2 tiles of 128.
  EXPECT_NEAR(gemm_shape_efficiency(200, 4096, 4096, 1, 0, e), 200.0 / 256.0 * 4096.0 / 4160.0,
              1e-12);
  // Decode GEMV M = 1 uses the 16-row tile: 1/16 of the tile is useful work.
  EXPECT_NEAR(gemm_shape_efficiency(1, 4096, 4096, 1, 0, e), 1.0 / 16.0 * 4096.0 / 4160.0, 1e-12);
  // Small grid: 32 tiles on 132 SMs split K 4 ways (132/32 = 4): 128 of 132 SMs busy.
  EXPECT_NEAR(gemm_shape_efficiency(128, 4096, 8192, 1, 132, e),
              128.0 / 132.0 * 2048.0 / (2048.0 + 64.0), 1e-12);
  EXPECT_NEAR(gemm_efficiency(4096, 4096, 4096, testing::h100_sxm(), Precision::bf16, e),
              0.82 * 1024.0 / 1056.0 * 4096.0 / 4160.0, 1e-12);
  // Stream-K: a grid of at least one wave keeps every SM busy.
  e.gemm_stream_k = true;
  EXPECT_NEAR(gemm_shape_efficiency(4096, 4096, 4096, 1, 132, e), 4096.0 / 4160.0, 1e-12);
}

TEST(Roofline, MemoryAndComputeBoundOps) {
  Efficiency e = default_efficiency();
  e.overlap_exponent = 1e9;  // ideal max for the closed forms
  const auto h100 = testing::h100_sxm();
  const Ceilings c = resolve_ceilings(h100, Precision::bf16, e);
  // Decode GEMV: 8192 x 8192 bf16 weights = 134,217,728 B at 3.35 TB/s x 0.875.
  OpCost gemv{OpKind::gemm, Flops(2.0 * 8192 * 8192), Bytes(8192.0 * 8192 * 2 + 8192 * 2),
              Bytes(8192 * 2), {1, 8192, 8192, 1}, 1, Seconds(0), Seconds(0)};
  OpTime t = time_op(gemv, c);
  EXPECT_FALSE(t.compute_bound);
  EXPECT_NEAR(t.memory_time.value(), (8192.0 * 8192 * 2 + 4 * 8192) / (3350e9 * 0.875), 1e-12);
  EXPECT_NEAR(t.time.value(), t.memory_time.value() + 4e-6, 1e-9);
  // Large GEMM: compute-bound at 989.4 TFLOP/s x 0.82 (MAMF burst) x 0.88 (sustained clock at
  // the 700 W limit) x the default engine's in-situ share on Hopper x shape.
  OpCost big{OpKind::gemm, Flops(2.0 * 8192 * 8192 * 8192), Bytes(3.0 * 8192 * 8192 * 2), Bytes(0),
             {8192, 8192, 8192, 1}, 1, Seconds(0), Seconds(0)};
  t = time_op(big, c);
  EXPECT_TRUE(t.compute_bound);
  const double shape = gemm_shape_efficiency(8192, 8192, 8192, 1, 132, e);
  const double in_situ = compute_in_situ_fraction(h100, e.engine("default"));
  EXPECT_NEAR(t.compute_time.value(),
              2.0 * 8192 * 8192 * 8192 / (989.4e12 * 0.82 * 0.88 * in_situ * shape), 1e-12);
  // Blend: at the ridge point (c == m) an exponent p gives 2^(1/p) x the max.
  Efficiency e3 = default_efficiency();
  e3.overlap_exponent = 3;
  const Ceilings c3 = resolve_ceilings(h100, Precision::bf16, e3);
  OpCost ridge{OpKind::elementwise, Flops(0), Bytes(1e9), Bytes(0), {}, 0, Seconds(0), Seconds(0)};
  EXPECT_NEAR(time_op(ridge, c3).time.value(), 1e9 / (3350e9 * 0.875), 1e-12);
}

TEST(Roofline, UnsupportedOrUnknownPrecision) {
  const auto a100 = testing::a100_80();
  EXPECT_THROW(resolve_ceilings(a100, Precision::fp8_e4m3, default_efficiency()), InfeasibleError);
  Accelerator blank = a100;
  blank.memory_bandwidth.reset();
  EXPECT_THROW(resolve_ceilings(blank, Precision::bf16, default_efficiency()), InputError);
}

TEST(Roofline, SustainedClockScalesComputeNotBandwidthAndOnlyWhereMeasured) {
  // The 700 W Hopper SXM parts hold a lower clock under sustained load than in the MAMF bursts:
  // GEMM and prefill-attention fractions shrink, streaming bandwidth does not. A part without
  // evidence (H100 PCIe) and the microbenchmark path (gemm_efficiency: a burst) keep 1.
  const Efficiency& e = default_efficiency();
  const auto h100 = testing::h100_sxm();
  const Ceilings c = resolve_device_ceilings(h100, Precision::bf16, e);
  EXPECT_DOUBLE_EQ(c.sustained_compute_fraction, 0.88);
  EXPECT_DOUBLE_EQ(c.gemm_peak_fraction, 0.82 * 0.88);
  EXPECT_DOUBLE_EQ(c.attention_compute_fraction, e.attention_compute_fraction * 0.88);
  EXPECT_DOUBLE_EQ(c.memory_sustained.value(), 3350e9 * 0.875);
  EXPECT_DOUBLE_EQ(gemm_efficiency(8192, 8192, 8192, h100, Precision::bf16, e),
                   0.82 * gemm_shape_efficiency(8192, 8192, 8192, 1, 132, e));
  auto pcie = h100;
  pcie.id = "nvidia-h100-pcie";
  pcie.aliases.clear();
  EXPECT_DOUBLE_EQ(resolve_device_ceilings(pcie, Precision::bf16, e).sustained_compute_fraction,
                   1.0);
  // A calibration file sets it (a device that a probe measured at its sustained clock).
  const Efficiency f = apply_calibration(
      e, Json::parse(R"({"sustained_compute_fraction": {"nvidia-h100-sxm": 1.0}})"), "cal.json");
  EXPECT_DOUBLE_EQ(resolve_device_ceilings(h100, Precision::bf16, f).gemm_peak_fraction, 0.82);
  EXPECT_THROW(apply_calibration(e, Json::parse(R"({"sustained_compute_fraction": 1.5})"), "c"),
               InputError);
}


}  // namespace
}  // namespace memwall::perf
