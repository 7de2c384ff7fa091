// The vendor priors for families without evidence (docs/infer.md "Uncalibrated families").
#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"
#include "memwall/perf/roofline.h"
#include "memwall/train/parameters.h"

namespace memwall::perf {
namespace {

Accelerator make(const std::string& id, const std::string& vendor, const std::string& arch,
                 const std::string& memory_type = "HBM2e") {
  Accelerator a;
  a.id = id;
  a.vendor = vendor;
  a.arch = arch;
  a.memory_type = memory_type;
  return a;
}

TEST(EfficiencyPrior, MeasuredFamiliesStayCalibrated) {
  const Efficiency& e = default_efficiency();
  const auto h100 = efficiency_for(e, make("nvidia-h100-sxm", "NVIDIA", "Hopper", "HBM3"), Precision::bf16);
  EXPECT_TRUE(h100.calibrated);
  EXPECT_DOUBLE_EQ(h100.gemm_peak_fraction, 0.82);
  const auto gaudi2 = efficiency_for(e, make("intel-gaudi2", "Intel (Habana)", "Gaudi 2"), Precision::bf16);
  EXPECT_TRUE(gaudi2.calibrated);
  EXPECT_DOUBLE_EQ(gaudi2.gemm_peak_fraction, 0.97);
  // An NVIDIA architecture without a table entry uses the dev-set-calibrated fallbacks.
  EXPECT_TRUE(efficiency_for(e, make("nvidia-rtx-4090", "NVIDIA", "Ada Lovelace", "GDDR6X"), Precision::bf16).calibrated);
}

// The H20 streams at well under half of its 4.0 TB/s datasheet (nvbandwidth issue #48's
// device-local copy): a device entry, so other HBM3 parts keep theirs.
TEST(EfficiencyPrior, H20BandwidthIsItsOwn) {
  const Efficiency& e = default_efficiency();
  EXPECT_DOUBLE_EQ(
      e.memory_bandwidth_fraction.lookup(make("nvidia-h20", "NVIDIA", "Hopper", "HBM3"), Precision::bf16),
      0.46);
  EXPECT_DOUBLE_EQ(e.memory_bandwidth_fraction.lookup(make("nvidia-h100-sxm", "NVIDIA", "Hopper", "HBM3"),
                                                      Precision::bf16),
                   e.memory_bandwidth_fraction.fallback);
}

// PyTorch-runtime engines (vLLM V1, SGLang, TensorRT-LLM's PyTorch backend) stream decode at 0.85
// of STREAM (GPUStack's H100 SXM decode rows; SGLang on H20 against nvbandwidth); TensorRT-LLM's
// TensorRT engines and vLLM's ROCm build keep STREAM level: the scale lowers the ceiling itself.
TEST(EfficiencyPrior, PyTorchRuntimeEnginesStreamBelowStream) {
  const Efficiency& e = default_efficiency();
  EXPECT_DOUBLE_EQ(e.engine("vllm").memory_stream_fraction, 0.85);
  EXPECT_DOUBLE_EQ(e.engine("sglang").memory_stream_fraction, 0.85);
  EXPECT_DOUBLE_EQ(e.engine("trtllm").memory_stream_fraction, 0.85);
  EXPECT_DOUBLE_EQ(e.engine("trtllm@0.7").memory_stream_fraction, 1.0);
  EXPECT_DOUBLE_EQ(e.engine("vllm", "rocm").memory_stream_fraction, 1.0);
  const Accelerator h100 = Catalog::builtin().accelerator("h100");
  const Ceilings v = resolve_ceilings(h100, Precision::bf16, e, "vllm");
  const Ceilings t = resolve_ceilings(h100, Precision::bf16, e, "trtllm@0.7");
  EXPECT_NEAR(v.memory_sustained / t.memory_sustained, 0.85, 1e-12);
}

// PyTorch-runtime engines, and the generic default modelled on them, run their compute-bound
// kernels at the training estimator's in-situ share of the sustained GEMM rate (the same value,
// not a refit); TensorRT engines at the full rate. Memory is untouched. The device's own ceilings,
// which `train` times with its own in-situ fraction, carry no engine's share.
TEST(EfficiencyPrior, PyTorchRuntimeEnginesComputeAtTheTrainingInSituFraction) {
  const Efficiency& e = default_efficiency();
  const double in_situ = train::TrainParameters{}.gemm_in_situ_fraction;
  for (const char* name : {"vllm", "sglang", "trtllm", "tgi", "vllm@0.6", "default"})
    EXPECT_DOUBLE_EQ(e.engine(name).compute_in_situ_fraction, in_situ) << name;
  EXPECT_DOUBLE_EQ(e.engine("vllm", "rocm").compute_in_situ_fraction, in_situ);
  EXPECT_DOUBLE_EQ(e.engine("trtllm@0.7").compute_in_situ_fraction, 1.0);
  EXPECT_DOUBLE_EQ(e.engine("trtllm@0.6").compute_in_situ_fraction, 1.0);
  const Accelerator a100 = Catalog::builtin().accelerator("a100");
  EXPECT_DOUBLE_EQ(resolve_device_ceilings(a100, Precision::bf16, e).gemm_peak_fraction,
                   efficiency_for(e, a100, Precision::bf16).gemm_peak_fraction);
  const Ceilings v = resolve_ceilings(a100, Precision::bf16, e, "vllm");
  const Ceilings t = resolve_ceilings(a100, Precision::bf16, e, "trtllm@0.7");
  EXPECT_NEAR(v.gemm_peak_fraction / t.gemm_peak_fraction, in_situ, 1e-12);
  EXPECT_NEAR(v.attention_compute_fraction / t.attention_compute_fraction, in_situ, 1e-12);
  // A calibration file overrides it per engine.
  const Efficiency f = apply_calibration(
      e, Json::parse(R"({"engines": {"vllm": {"compute_in_situ_fraction": 1.0}}})"), "cal.json");
  EXPECT_DOUBLE_EQ(resolve_ceilings(a100, Precision::bf16, f, "vllm").gemm_peak_fraction,
                   t.gemm_peak_fraction);
}

// vLLM's ROCm FP8 rate scale was measured on CDNA 3 (MI300X/MI325X) and applies there only.
TEST(EfficiencyPrior, Fp8RateScaleStaysOnItsArchitecture) {
  const Efficiency& e = default_efficiency();
  const Catalog& cat = Catalog::builtin();
  const Accelerator& mi300x = cat.accelerator("amd-mi300x");
  const Accelerator& mi355x = cat.accelerator("amd-mi355x");
  const double scale = e.engine("vllm", "rocm").fp8_gemm_rate_scale;
  const double in_situ = e.engine("vllm", "rocm").compute_in_situ_fraction;
  ASSERT_LT(scale, 1.0);
  EXPECT_DOUBLE_EQ(resolve_ceilings(mi300x, Precision::fp8_e4m3, e, "vllm").gemm_peak_fraction,
                   efficiency_for(e, mi300x, Precision::fp8_e4m3).gemm_peak_fraction * scale *
                       in_situ);
  EXPECT_DOUBLE_EQ(resolve_ceilings(mi355x, Precision::fp8_e4m3, e, "vllm").gemm_peak_fraction,
                   efficiency_for(e, mi355x, Precision::fp8_e4m3).gemm_peak_fraction * in_situ);
}

// vLLM 0.10's ROCm FP8 linear layers run the skinny split-K kernel for one-token iterations only;
// from two tokens on hipBLASLt streams the same weights more slowly. BF16 and other
// architectures keep one path.
TEST(EfficiencyPrior, RocmFp8SkinnyKernelOnlyForOneToken) {
  const Efficiency& e = default_efficiency();
  const Catalog& cat = Catalog::builtin();
  const Accelerator& mi300x = cat.accelerator("amd-mi300x");
  const Ceilings c = resolve_ceilings(mi300x, Precision::fp8_e4m3, e, "vllm");
  ASSERT_EQ(c.skinny_gemm_max_m, 1);
  ASSERT_LT(c.library_gemm_stream_fraction, 1.0);
  auto weight_gemm = [](int64_t m) {
    OpCost op;
    op.kind = OpKind::gemm;
    op.gemm = {m, 8192, 8192, 1};
    op.flops = Flops(2.0 * double(m) * 8192 * 8192);
    op.bytes_read = Bytes(8192.0 * 8192);  // FP8 weights dominate
    return op;
  };
  const OpTime one = time_op(weight_gemm(1), c), two = time_op(weight_gemm(2), c);
  EXPECT_NEAR(two.memory_time / one.memory_time, 1 / c.library_gemm_stream_fraction, 1e-9);
  EXPECT_EQ(resolve_ceilings(mi300x, Precision::bf16, e, "vllm").skinny_gemm_max_m, -1);
  EXPECT_EQ(resolve_ceilings(cat.accelerator("amd-mi355x"), Precision::fp8_e4m3, e, "vllm")
                .skinny_gemm_max_m,
            -1);
  EXPECT_EQ(resolve_ceilings(cat.accelerator("nvidia-h100-sxm"), Precision::fp8_e4m3, e, "vllm")
                .skinny_gemm_max_m,
            -1);
}

// FP4 GEMMs reach a smaller share of their peak than bf16 ones, on CDNA 4 as on Blackwell
// (AITER's MXFP4 5775 of 10000 TFLOPS on MI355X; cuBLASLt NVFP4 5239 of 9000 on B200).
TEST(EfficiencyPrior, Fp4CeilingsAreTheirOwn) {
  const Efficiency& e = default_efficiency();
  const Accelerator mi355x = make("amd-mi355x", "AMD", "CDNA 4", "HBM3e");
  EXPECT_DOUBLE_EQ(efficiency_for(e, mi355x, Precision::bf16).gemm_peak_fraction, 0.68);
  EXPECT_DOUBLE_EQ(efficiency_for(e, mi355x, Precision::fp4).gemm_peak_fraction, 0.58);
  EXPECT_TRUE(efficiency_for(e, mi355x, Precision::fp4).calibrated);
  const Accelerator b200 = make("nvidia-b200", "NVIDIA", "Blackwell", "HBM3e");
  EXPECT_DOUBLE_EQ(efficiency_for(e, b200, Precision::fp4).gemm_peak_fraction, 0.58);
}

TEST(EfficiencyPrior, Gaudi3NoLongerInheritsGaudi2) {
  const Efficiency& e = default_efficiency();
  const auto g3 = efficiency_for(e, make("intel-gaudi3", "Intel (Habana)", "Gaudi 3"), Precision::bf16);
  EXPECT_FALSE(g3.calibrated);
  EXPECT_LT(g3.gemm_peak_fraction, 0.6);
  EXPECT_NE(g3.source.find("Gaudi 3"), std::string::npos);
}

TEST(EfficiencyPrior, UncalibratedVendorsGetConservativePriors) {
  const Efficiency& e = default_efficiency();
  const auto ascend = efficiency_for(e, make("huawei-ascend-910b", "Huawei", "Da Vinci"), Precision::bf16);
  EXPECT_FALSE(ascend.calibrated);  // memory and attention are still the vendor's prior
  // The GEMM fraction is measured (MAMF 322.5 of 376 TFLOPS on a 910B2C), not the prior's 0.55.
  EXPECT_DOUBLE_EQ(ascend.gemm_peak_fraction, 0.86);
  EXPECT_NE(ascend.source.find("MAMF"), std::string::npos);
  EXPECT_LT(ascend.memory_bandwidth_fraction, 0.89);  // not the NVIDIA HBM2e STREAM figure
  const auto other = efficiency_for(e, make("biren-br100", "Biren", "BIRENSUPA"), Precision::bf16);
  EXPECT_FALSE(other.calibrated);
  EXPECT_LE(other.gemm_peak_fraction, ascend.gemm_peak_fraction);
  // Every prior is below the measured median of calibrated families.
  EXPECT_LT(other.gemm_peak_fraction, e.gemm_peak_fraction.fallback);
  // A measured GEMM is for its architecture only: another Huawei family keeps the prior.
  const auto npu = efficiency_for(e, make("huawei-other", "Huawei", "Other NPU"), Precision::bf16);
  EXPECT_LT(npu.gemm_peak_fraction, e.gemm_peak_fraction.fallback);
}

TEST(EfficiencyPrior, CommunicationPriorDeratesUnmeasuredLinks) {
  const Efficiency& e = default_efficiency();
  Node n;
  n.device_link_bandwidth_per_direction = BytesPerSecond(196e9);
  const Node derated = with_communication_prior(n, make("huawei-ascend-910b", "Huawei", "Da Vinci"), e);
  ASSERT_TRUE(derated.device_link_achievable_bandwidth_per_direction.has_value());
  EXPECT_LT(derated.device_link_achievable_bandwidth_per_direction->value(), 196e9);
  const Node kept = with_communication_prior(n, make("nvidia-h100-sxm", "NVIDIA", "Hopper"), e);
  EXPECT_FALSE(kept.device_link_achievable_bandwidth_per_direction.has_value());
  // A calibration file makes every family "calibrated" (the user measured it).
  const Efficiency file = apply_calibration(e, Json::parse(R"({"gemm_peak_fraction": 0.7})"), "cal.json");
  EXPECT_TRUE(efficiency_for(file, make("huawei-ascend-910b", "Huawei", "Da Vinci"), Precision::bf16).calibrated);
}

TEST(EngineProfiles, MemoryFractionOfFreeOrTotal) {
  // TensorRT-LLM's free_gpu_memory_fraction is a share of the memory left after loading; vLLM's
  // gpu_memory_utilization a share of the total.
  const Efficiency& e = default_efficiency();
  EXPECT_TRUE(e.engine("trtllm").limits.memory_fraction_of_free);
  EXPECT_TRUE(e.engine("tensorrt-llm-0.6").limits.memory_fraction_of_free);
  EXPECT_FALSE(e.engine("vllm").limits.memory_fraction_of_free);
  EXPECT_FALSE(e.engine("sglang").limits.memory_fraction_of_free);
  auto doc = [](const Json& fraction_of) {
    return Json{{"engine",
                 {{"id", "x"},
                  {"versions", Json::array({{{"version", "1"},
                                              {"limits", {{"memory_fraction_of", fraction_of}}}}})}}}};
  };
  EXPECT_TRUE(read_engine_profiles(doc("free"), "t").front().limits.memory_fraction_of_free);
  EXPECT_FALSE(read_engine_profiles(doc("total"), "t").front().limits.memory_fraction_of_free);
  try {
    read_engine_profiles(doc("half"), "t");
    FAIL() << "an unknown value must be rejected";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("memory_fraction_of"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("total or free"), std::string::npos) << err.what();
  }
}

// The engine's default memory fraction when none is stated: 0.9 for vLLM and TensorRT-LLM,
// SGLang's mem_fraction_static by tensor-parallel size (server_args.py: 0.88 / 0.87 / 0.85 / 0.81 /
// 0.79 from TP 1 / 2 / 4 / 8 / 16). A bad TP key or fraction is rejected naming the field.
TEST(EngineProfiles, DefaultMemoryFractionByTensorParallelSize) {
  const Efficiency& e = default_efficiency();
  EXPECT_DOUBLE_EQ(e.engine("vllm").limits.default_memory_fraction(8), 0.9);
  EXPECT_DOUBLE_EQ(e.engine("trtllm").limits.default_memory_fraction(1), 0.9);
  const EngineLimits& sg = e.engine("sglang").limits;
  EXPECT_DOUBLE_EQ(sg.default_memory_fraction(1), 0.88);
  EXPECT_DOUBLE_EQ(sg.default_memory_fraction(2), 0.87);
  EXPECT_DOUBLE_EQ(sg.default_memory_fraction(4), 0.85);
  EXPECT_DOUBLE_EQ(sg.default_memory_fraction(6), 0.85);
  EXPECT_DOUBLE_EQ(sg.default_memory_fraction(8), 0.81);
  EXPECT_DOUBLE_EQ(sg.default_memory_fraction(32), 0.79);
  auto doc = [](const Json& fraction) {
    return Json{{"engine",
                 {{"id", "x"},
                  {"versions", Json::array({{{"version", "1"},
                                              {"limits", {{"memory_fraction", fraction}}}}})}}}};
  };
  EXPECT_DOUBLE_EQ(read_engine_profiles(doc(0.8), "t").front().limits.default_memory_fraction(4), 0.8);
  for (const Json& bad : {Json(1.5), Json(0.0), Json{{"two", 0.8}}, Json{{"0", 0.8}},
                          Json{{"4", "most"}}}) {
    try {
      read_engine_profiles(doc(bad), "t");
      ADD_FAILURE() << bad.dump() << " must be rejected";
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find("memory_fraction"), std::string::npos) << err.what();
    }
  }
}

// Host work per sequence: vLLM's V0 and V1 (synchronous) profiles pay it, the async-scheduling
// release (0.14) hides the same share of it as of the fixed part; a later entry that "inherits"
// an earlier one changes only what it states, on its own platform, and is not current by descent.
TEST(EngineProfiles, HostWorkPerSequenceAndInheritedReleases) {
  const Efficiency& e = default_efficiency();
  const EngineProfile& v6 = e.engine("vllm@0.6");
  const EngineProfile& v8 = e.engine("vllm@0.11");
  const EngineProfile& v14 = e.engine("vllm");
  EXPECT_EQ(v14.version, "0.14");
  EXPECT_EQ(v8.version, "0.8");
  EXPECT_DOUBLE_EQ(v6.step_overhead_per_sequence.value(), 20e-6);
  EXPECT_NEAR(v8.step_overhead_per_sequence.value(), 7e-6 * (1 - 0.17), 1e-15);
  EXPECT_NEAR(v14.step_overhead_per_sequence.value(), 7e-6 * (1 - 0.8), 1e-15);
  EXPECT_DOUBLE_EQ(v14.kernel_overhead.value(), v8.kernel_overhead.value());
  EXPECT_EQ(v14.limits.max_num_seqs, v8.limits.max_num_seqs);
  auto doc = [](const Json& child) {
    return Json{{"engine",
                 {{"id", "x"},
                  {"versions", Json::array({{{"version", "1"},
                                             {"current", true},
                                             {"kernel_overhead_us", 9},
                                             {"host_us_per_sequence", 3}},
                                            {{"version", "1"}, {"platform", "rocm"}},
                                            child})}}}};
  };
  const auto ps = read_engine_profiles(
      doc({{"version", "2"}, {"inherits", "1"}, {"host_us_per_sequence", 5}}), "t");
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_DOUBLE_EQ(ps[2].kernel_overhead.value(), 9e-6);
  EXPECT_DOUBLE_EQ(ps[2].host_per_sequence.value(), 5e-6);
  EXPECT_FALSE(ps[2].current);
  // The ROCm entry's figures (here the defaults), not the CUDA one's.
  const auto rocm = read_engine_profiles(
      doc({{"version", "2"}, {"platform", "rocm"}, {"inherits", "1"}}), "t");
  EXPECT_DOUBLE_EQ(rocm[2].kernel_overhead.value(), 4e-6);
  try {
    read_engine_profiles(doc({{"version", "2"}, {"inherits", "0.9"}}), "t");
    FAIL() << "an unknown parent must be rejected";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("inherits"), std::string::npos) << err.what();
  }
}

TEST(EngineProfiles, InSituShareByArchitecture) {
  const Efficiency& e = default_efficiency();
  const Catalog& cat = Catalog::builtin();
  const Accelerator h100 = cat.accelerator("h100"), a100 = cat.accelerator("a100");
  const Accelerator mi300x = cat.accelerator("mi300x");
  // PyTorch-runtime engines: their Hopper entry on Hopper, the general share elsewhere.
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(h100, e.engine("vllm")), 0.62);
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(a100, e.engine("vllm")), 0.87);
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(h100, e.engine("vllm@0.6")), 0.62);
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(h100, e.engine("trtllm")), 0.72);
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(mi300x, e.engine("vllm", "rocm")), 0.87);
  // TensorRT engines reach their tables' rates on every architecture.
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(h100, e.engine("trtllm@0.7")), 1.0);
  // The share multiplies the device's GEMM ceiling: vLLM against a TensorRT engine, same device.
  const double h = resolve_ceilings(h100, Precision::bf16, e, "vllm").gemm_peak_fraction /
                   resolve_ceilings(h100, Precision::bf16, e, "trtllm@0.7").gemm_peak_fraction;
  const double a = resolve_ceilings(a100, Precision::bf16, e, "vllm").gemm_peak_fraction /
                   resolve_ceilings(a100, Precision::bf16, e, "trtllm@0.7").gemm_peak_fraction;
  EXPECT_NEAR(h, 0.62, 1e-12);
  EXPECT_NEAR(a, 0.87, 1e-12);
  // A calibrated share replaces the built-in one on every architecture.
  const Efficiency cal = apply_calibration(
      e, Json{{"engines", {{"vllm", {{"compute_in_situ_fraction", 0.8}}}}}}, "test");
  EXPECT_DOUBLE_EQ(compute_in_situ_fraction(h100, cal.engine("vllm")), 0.8);
  // Bad entries name the field and what is allowed.
  auto doc = [](const Json& by_arch) {
    return Json{{"engine",
                 {{"id", "x"},
                  {"versions", Json::array({{{"version", "1"},
                                             {"current", true},
                                             {"compute_in_situ_fraction_by_arch", by_arch}}})}}}};
  };
  EXPECT_EQ(read_engine_profiles(doc({{"Hopper", 0.5}}), "t")[0].compute_in_situ_fraction_by_arch.size(),
            1u);
  for (const Json& bad : {Json(0.5), Json{{"Hopper", 1.5}}, Json{{"Hopper", "x"}}, Json{{"", 0.5}}}) {
    try {
      read_engine_profiles(doc(bad), "t");
      FAIL() << bad.dump();
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find("compute_in_situ_fraction_by_arch"), std::string::npos)
          << err.what();
    }
  }
}

}  // namespace
}  // namespace memwall::perf
