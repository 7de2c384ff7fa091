#include "memwall/probe/blas_gemm.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::probe {
namespace {

TEST(BlasGemm, FlopAndByteCounting) {
  EXPECT_EQ(gemm_flops(2, 3, 4).value(), 48);  // 2 m n k
  // fp32: (m k + k n) x 4 read + m n x 4 written.
  EXPECT_EQ(gemm_bytes(2, 3, 4, BlasPrecision::fp32).value(), (8 + 12) * 4 + 6 * 4);
  EXPECT_EQ(gemm_bytes(2, 3, 4, BlasPrecision::fp64).value(), (8 + 12) * 8 + 6 * 8);
  // sbgemm reads bf16 and writes fp32.
  EXPECT_EQ(gemm_bytes(2, 3, 4, BlasPrecision::bf16).value(), (8 + 12) * 2 + 6 * 4);
  // A GEMV of a 4096^2 fp32 matrix: 2 n^2 FLOPs over ~4 n^2 bytes, just under 0.5 FLOP/byte.
  EXPECT_NEAR(gemm_intensity(4096, 1, 4096, BlasPrecision::fp32), 0.5, 0.001);
  // Square n^3 fp32: 2 n^3 / (12 n^2) = n / 6.
  EXPECT_DOUBLE_EQ(gemm_intensity(600, 600, 600, BlasPrecision::fp32), 100.0);
}

TEST(BlasGemm, SweepColumnsAreDoublingsEndingAtTheMaximum) {
  EXPECT_EQ(sweep_columns(512),
            (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
  EXPECT_EQ(sweep_columns(48), (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 48}));
  EXPECT_EQ(sweep_columns(1), (std::vector<int64_t>{1}));
  EXPECT_THROW(sweep_columns(0), InputError);
}

TEST(BlasGemm, BadSizesAreInputErrors) {
  EXPECT_THROW(time_gemm(BlasPrecision::fp32, 0, 8, 8, 1, 1), InputError);
  EXPECT_THROW(time_gemm(BlasPrecision::fp32, 8, 8, 8, 0, 1), InputError);
  EXPECT_THROW(time_gemm(BlasPrecision::fp32, 8, 8, 8, 1, 0), InputError);
}

TEST(BlasGemm, MeasurementCarriesTheFormulas) {
  if (!blas_available()) GTEST_SKIP() << blas_description();
  const GemmMeasurement g = time_gemm(BlasPrecision::fp64, 64, 32, 16, 1, 2);
  EXPECT_EQ(g.flops.value(), 2.0 * 64 * 32 * 16);
  EXPECT_EQ(g.bytes.value(), (64 * 16 + 16 * 32 + 64 * 32) * 8.0);
  EXPECT_GT(g.best_time.value(), 0);
  EXPECT_DOUBLE_EQ(g.achieved().value(), (g.flops / g.best_time).value());
  if (!blas_has_bf16()) {
    EXPECT_THROW(time_gemm(BlasPrecision::bf16, 8, 8, 8, 1, 1), InfeasibleError);
  }
}

TEST(BlasGemm, SweepIntensityRisesAndTheRidgeSplitsThePoints) {
  if (!blas_available()) GTEST_SKIP() << blas_description();
  const RooflineSweep s = run_roofline_sweep(BlasPrecision::fp32, 256, 256, 64, 1, 1);
  ASSERT_EQ(s.points.size(), 7u);
  for (size_t i = 1; i < s.points.size(); ++i)
    EXPECT_GT(s.points[i].gemm.intensity(), s.points[i - 1].gemm.intensity());
  EXPECT_DOUBLE_EQ(s.bandwidth_roof.value(), s.points.front().gemm.bandwidth().value());
  EXPECT_DOUBLE_EQ(s.ridge_intensity, s.compute_roof.value() / s.bandwidth_roof.value());
  bool seen_compute = false;
  for (const auto& p : s.points) {
    EXPECT_LE(p.gemm.achieved(), s.compute_roof);
    EXPECT_EQ(p.compute_bound, p.gemm.intensity() >= s.ridge_intensity);
    if (p.compute_bound && !seen_compute) {
      seen_compute = true;
      EXPECT_EQ(s.first_compute_bound_columns, p.gemm.n);
    }
    EXPECT_EQ(p.gemm.m, 256);
    EXPECT_EQ(p.gemm.k, 256);
  }
  EXPECT_EQ(seen_compute, s.first_compute_bound_columns.has_value());
}

}  // namespace
}  // namespace memwall::probe
