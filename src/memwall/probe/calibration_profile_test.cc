#include "memwall/probe/calibration_profile.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/perf/roofline.h"

namespace memwall::probe {
namespace {

// A host run with known numbers: triad moves 2.4e9 bytes in 0.2 s (12 GB/s); fp32 GEMM
// 2048^3 in 0.5 s (34.36 GFLOP/s).
HostReport synthetic_host() {
  HostReport h;
  h.sizes.stream_elements = 100'000'000;
  for (size_t i = 0; i < kStreamKernels.size(); ++i) {
    auto& k = h.stream.kernels[i];
    k.kernel = kStreamKernels[i];
    k.bytes_per_pass = stream_bytes(k.kernel, h.sizes.stream_elements);
    k.best_time = k.mean_time = k.worst_time = Seconds(0.2);
  }
  GemmMeasurement g;
  g.precision = BlasPrecision::fp32;
  g.m = g.n = g.k = 2048;
  g.flops = gemm_flops(2048, 2048, 2048);
  g.bytes = gemm_bytes(2048, 2048, 2048, BlasPrecision::fp32);
  g.best_time = Seconds(0.5);
  h.gemms.push_back(g);
  return h;
}

TEST(CalibrationProfile, HostFractionsAreMeasuredOverTheGivenPeaks) {
  const HostReport h = synthetic_host();
  EXPECT_DOUBLE_EQ(h.triad_bandwidth().value(), 12e9);
  const HostPeaks peaks{gb_per_s(24), FlopsPerSecond(2 * 34.359738368e9)};
  const CalibrationProfile p = calibration_profile(&h, peaks, nullptr, nullptr, Json::object());
  EXPECT_DOUBLE_EQ(p.document["memory_bandwidth_fraction"]["cpu"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(p.document["gemm_peak_fraction"]["cpu"].get<double>(), 0.5);
  EXPECT_TRUE(p.document["probe"].is_object());
  // The document is one --calibration accepts, and it reaches the host accelerator.
  const perf::Efficiency e =
      perf::apply_calibration(perf::default_efficiency(), p.document, "profile");
  const Accelerator cpu = host_accelerator(peaks);
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(cpu, Precision::fp32), 0.5);
  EXPECT_DOUBLE_EQ(e.gemm_peak_fraction.lookup(cpu, Precision::fp32), 0.5);
  // ... and not a GPU.
  const Accelerator& h100 = Catalog::builtin().accelerator("h100");
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(h100, Precision::bf16),
                   perf::default_efficiency().memory_bandwidth_fraction.lookup(h100,
                                                                               Precision::bf16));
}

TEST(CalibrationProfile, UnknownOrExceededPeaksLeaveTheFractionOutWithANote) {
  const HostReport h = synthetic_host();
  const CalibrationProfile none = calibration_profile(&h, {}, nullptr, nullptr, Json::object());
  EXPECT_FALSE(none.document.contains("memory_bandwidth_fraction"));
  EXPECT_FALSE(none.document.contains("gemm_peak_fraction"));
  EXPECT_EQ(none.notes.size(), 2u);
  // 12 GB/s measured against a 10 GB/s "peak": the peak is wrong, nothing is clamped.
  const CalibrationProfile over =
      calibration_profile(&h, {gb_per_s(10), std::nullopt}, nullptr, nullptr, Json::object());
  EXPECT_FALSE(over.document.contains("memory_bandwidth_fraction"));
  ASSERT_FALSE(over.notes.empty());
  EXPECT_NE(over.notes[0].find("1.2 x the peak"), std::string::npos) << over.notes[0];
}

TEST(CalibrationProfile, GpuFractionsAreKeyedByIdAndArchitecturePrecision) {
  const Accelerator& h200 = Catalog::builtin().accelerator("h200");
  GpuReport gpu;
  gpu.built = gpu.ran = true;
  GpuDevice d;
  d.name = "NVIDIA H200";
  // 4e9 bytes copied (read + write) in 1 ms: 4 TB/s of the 4.8 TB/s datasheet.
  d.transfers.push_back({"device copy", 4e9, 1e-3});
  // bf16 8192^3 at 700 TFLOP/s.
  const double flops = 2.0 * 8192 * 8192 * 8192;
  d.gemms.push_back({"bf16", "cublas", 8192, 8192, 8192, flops, flops / 700e12});
  gpu.devices.push_back(d);
  const CalibrationProfile p = calibration_profile(nullptr, {}, &gpu, &h200, Json::object());
  EXPECT_TRUE(p.notes.empty());  // no host measured, both GPU fractions valid
  EXPECT_FALSE(p.document["memory_bandwidth_fraction"].contains("cpu"));
  const double bw_fraction = 4e12 / h200.memory_bandwidth->value();
  const double gemm_fraction = 700e12 / h200.peak(Precision::bf16)->value();
  EXPECT_NEAR(p.document["memory_bandwidth_fraction"][h200.id].get<double>(), bw_fraction, 1e-4);
  EXPECT_NEAR(p.document["gemm_peak_fraction"][h200.arch + "/bf16"].get<double>(), gemm_fraction,
              1e-4);
  const perf::Efficiency e =
      perf::apply_calibration(perf::default_efficiency(), p.document, "profile");
  EXPECT_NEAR(e.memory_bandwidth_fraction.lookup(h200, Precision::bf16), bw_fraction, 1e-4);
  EXPECT_NEAR(e.gemm_peak_fraction.lookup(h200, Precision::bf16), gemm_fraction, 1e-4);

  // memwall's prediction for the same GEMM uses the datasheet peak and the default efficiency of a
  // burst: the best-shape fraction without the sustained clock's.
  const auto rows = compare_gpu(gpu, h200, perf::default_efficiency());
  perf::Efficiency burst = perf::default_efficiency();
  burst.sustained_compute_fraction = perf::FractionTable{1.0, {}, "burst"};
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[1].predicted.has_value());
  EXPECT_EQ(rows[1].bytes.value(), 2.0 * (2 * 8192.0 * 8192) + 2.0 * 8192 * 8192);
  const auto expected = perf::time_op(
      [&] {
        perf::OpCost op;
        op.kind = perf::OpKind::gemm;
        op.flops = Flops(flops);
        op.bytes_read = Bytes(2.0 * 2 * 8192.0 * 8192);
        op.bytes_written = Bytes(2.0 * 8192 * 8192);
        op.gemm = {8192, 8192, 8192, 1};
        return op;
      }(),
      h200, Precision::bf16, burst);
  EXPECT_DOUBLE_EQ(rows[1].predicted->value(), expected.time.value());
  EXPECT_DOUBLE_EQ(*rows[1].error(), expected.time.value() / (flops / 700e12) - 1);
}

TEST(CalibrationProfile, SustainedGemmGivesTheDevicesSustainedComputeFraction) {
  const Accelerator& h200 = Catalog::builtin().accelerator("h200");
  GpuReport gpu;
  gpu.built = gpu.ran = true;
  GpuDevice d;
  const double flops = 2.0 * 8192 * 8192 * 8192;
  d.gemms.push_back({"bf16", "cublas", 8192, 8192, 8192, flops, flops / 760e12});  // burst
  GpuGemm s{"bf16", "cublas", 8192, 8192, 8192, flops, flops / 608e12};             // 20 s
  s.sustained_seconds = 20;
  d.gemms.push_back(s);
  gpu.devices.push_back(d);
  const CalibrationProfile p = calibration_profile(nullptr, {}, &gpu, &h200, Json::object());
  // The burst sets the best-shape fraction; the sustained run only its own ratio, 608 / 760.
  EXPECT_NEAR(p.document["gemm_peak_fraction"][h200.arch + "/bf16"].get<double>(),
              760e12 / h200.peak(Precision::bf16)->value(), 1e-4);
  EXPECT_NEAR(p.document["sustained_compute_fraction"][h200.id].get<double>(), 0.8, 1e-4);
  // Applied, the device's sustained ceiling (before any engine's share) is the measured rate.
  const perf::Efficiency e =
      perf::apply_calibration(perf::default_efficiency(), p.document, "profile");
  const perf::Ceilings c = perf::resolve_device_ceilings(h200, Precision::bf16, e);
  EXPECT_NEAR(c.matmul_peak.value() * c.gemm_peak_fraction, 608e12, 608e12 * 2e-4);  // 4 digits
  // compare_gpu predicts the sustained row at the default sustained clock, the burst without it.
  const auto rows = compare_gpu(gpu, h200, perf::default_efficiency());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[1].what.find("sustained 20 s"), std::string::npos) << rows[1].what;
  EXPECT_NEAR(rows[1].predicted->value() / rows[0].predicted->value(),
              1.0 / perf::default_efficiency().sustained_compute_fraction.lookup(
                        h200, Precision::bf16),
              1e-3);

  // A sustained run with no burst of its precision writes nothing and says why.
  GpuReport only = gpu;
  only.devices[0].gemms.erase(only.devices[0].gemms.begin());
  const CalibrationProfile q = calibration_profile(nullptr, {}, &only, &h200, Json::object());
  EXPECT_FALSE(q.document.contains("sustained_compute_fraction"));
  ASSERT_FALSE(q.notes.empty());
  EXPECT_NE(q.notes.back().find("no burst"), std::string::npos) << q.notes.back();
}

TEST(CalibrationProfile, HostComparisonsUseTheRooflineOfTheMeasuredCeilings) {
  const HostReport h = synthetic_host();
  const auto unknown = compare_host(h, {}, perf::default_efficiency());
  ASSERT_EQ(unknown.size(), 2u);  // triad, fp32 GEMM
  EXPECT_FALSE(unknown[0].predicted.has_value());
  EXPECT_FALSE(unknown[0].note.empty());
  // The triad's ideal time is its own measurement; the GEMM's is FLOPs / its own rate.
  EXPECT_DOUBLE_EQ(unknown[0].measured_roofline->value(), 0.2);
  EXPECT_DOUBLE_EQ(unknown[1].measured_roofline->value(), 0.5);
  const auto known =
      compare_host(h, {gb_per_s(24), FlopsPerSecond(100e9)}, perf::default_efficiency());
  ASSERT_TRUE(known[0].predicted.has_value());
  // Triad at 24 GB/s x the default (unlisted memory type) fraction 0.875, plus a kernel overhead.
  EXPECT_NEAR(known[0].predicted->value(), 2.4e9 / (24e9 * 0.875), 1e-4);
}

}  // namespace
}  // namespace memwall::probe
