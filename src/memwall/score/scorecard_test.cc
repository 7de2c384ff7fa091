#include "memwall/score/scorecard.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "memwall/core/error.h"

namespace memwall::score {
namespace {

Accelerator make(const std::string& id, const std::string& vendor, double gb, double tbps) {
  Accelerator a;
  a.id = id;
  a.vendor = vendor;
  a.memory = Bytes(gb * 1e9);
  a.memory_bandwidth = BytesPerSecond(tbps * 1e12);
  a.tdp = Watts(700);
  return a;
}

Evidence need(const Accelerator* a, double gb, double tbps) {
  Evidence e;
  e.accelerator = a;
  e.required_capacity = Bytes(gb * 1e9);
  e.required_bandwidth = BytesPerSecond(tbps * 1e12);
  return e;
}

TEST(Ecosystem, ScoresFollowTheStatedWeights) {
  const EcosystemBook book = EcosystemBook::builtin();
  // NVIDIA: coverage PyTorch 1.5 + vLLM 1 + SGLang 0.5 + TensorRT-LLM 0.5 + Triton 0.5; operators
  // FlashAttention 1 + CUTLASS grouped GEMM 1 + Transformer Engine FP8 1; toolchain Nsight 0.5 +
  // cuda-gdb 0.5 + CUDA as is 2 = 10.
  EXPECT_DOUBLE_EQ(*score_ecosystem(make("nvidia-h100-sxm", "NVIDIA", 80, 3.35), book).score, 10.0);
  // AMD: coverage 1.5 + 1.5 + no vendor engine fact + Triton 0.5 = 3.5; operators AITER attention,
  // fused MoE and FP8 = 3; toolchain rocprof 0.5 + ROCgdb 0.5 + HIPIFY translate 2 x 0.5 = 2.
  const auto rocm = score_ecosystem(make("amd-mi300x", "AMD", 192, 5.3), book);
  EXPECT_DOUBLE_EQ(rocm.coverage.points, 3.5);
  EXPECT_DOUBLE_EQ(rocm.operators.points, 3.0);
  EXPECT_DOUBLE_EQ(rocm.toolchain.points, 2.0);
  EXPECT_DOUBLE_EQ(*rocm.score, 8.5);
  EXPECT_EQ(rocm.porting.effort, PortingEffort::translate);
  // Huawei (910B, no fp8): coverage torch_npu 1.125 + vLLM plugin 0.75 + SGLang 0.5 + MindIE 0.5 +
  // Triton plugin 0.375 = 3.25; operators FlashAttentionScore 1 + GroupedMatmul 1 + FP8 0 (no fp8
  // hardware); toolchain msprof 0.5 + twin debugging 0.5 + Ascend C rewrite 0 = 1.
  Accelerator ascend910b = make("huawei-ascend-910b", "Huawei", 64, 1.6);
  ascend910b.unsupported_precisions = {"fp8", "fp4"};
  const auto ascend = score_ecosystem(ascend910b, book);
  EXPECT_DOUBLE_EQ(ascend.coverage.points, 3.25);
  EXPECT_DOUBLE_EQ(ascend.operators.points, 2.0);
  EXPECT_DOUBLE_EQ(ascend.toolchain.points, 1.0);
  EXPECT_DOUBLE_EQ(*ascend.score, 6.25);
  EXPECT_EQ(ascend.porting.effort, PortingEffort::rewrite);
  EXPECT_EQ(ascend.porting.no_hardware, std::vector<std::string>{"fp8"});
  // Google: JAX 1.5 + vLLM plugin 0.75 + SGLang 0.5 + XLA 0.5; no operator facts (unknown);
  // XProf 0.5 + Pallas rewrite 0.
  const auto tpu = score_ecosystem(make("google-tpu-v5p", "Google", 95, 2.765), book);
  EXPECT_DOUBLE_EQ(*tpu.score, 3.75);
  EXPECT_EQ(tpu.operators.unknown, 3);
  // Hygon: a porting fact (DTK is HIP) but none on the framework -> unknown, not a number.
  const auto hygon = score_ecosystem(make("hygon-dcu-k100", "Hygon", 64, 1.0), book);
  EXPECT_FALSE(hygon.score.has_value());
  EXPECT_EQ(hygon.porting.effort, PortingEffort::translate);
  // A vendor with no entry at all: unknown, every item unknown.
  const auto biren = score_ecosystem(make("biren-br100", "Biren", 64, 1.6), book);
  EXPECT_FALSE(biren.score.has_value());
  EXPECT_EQ(biren.coverage.unknown + biren.operators.unknown + biren.toolchain.unknown, 10);
  EXPECT_EQ(biren.porting.effort, PortingEffort::unknown);
}

// The issue's complaint (issue 33 item 4): counting what exists put CANN (8.6) above ROCm (8.5).
// Weighing what porting costs, the cited facts order them the other way, and the order follows
// the facts, not the vendor: give CANN a translation path and native PyTorch/vLLM, and it would
// score above ROCm.
TEST(Ecosystem, PortingCostOrdersRocmAboveCannFromTheFacts) {
  const EcosystemBook book = EcosystemBook::builtin();
  Accelerator ascend = make("huawei-ascend-910b", "Huawei", 64, 1.6);
  ascend.unsupported_precisions = {"fp8", "fp4"};
  const Accelerator mi300x = make("amd-mi300x", "AMD", 192, 5.3);
  const auto cann = score_ecosystem(ascend, book);
  const auto rocm = score_ecosystem(mi300x, book);
  ASSERT_TRUE(cann.score && rocm.score);
  EXPECT_GT(*rocm.score, *cann.score);
  // What exists alone (coverage) is close; the gap is the porting path and the operators.
  EXPECT_LT(rocm.coverage.points - cann.coverage.points, 0.5);
  EXPECT_GT(rocm.toolchain.points, cann.toolchain.points);

  EcosystemBook what_if = EcosystemBook::builtin();
  Json doc = Json::parse(R"({"ecosystem": {"vendors": [{"vendor": "Huawei", "stack": "CANN what-if", "software": [
      {"name": "PyTorch", "kind": "framework", "support": "native", "source": "fixture"},
      {"name": "vLLM", "kind": "serving", "support": "native", "source": "fixture"},
      {"name": "SGLang", "kind": "serving", "support": "native", "source": "fixture"},
      {"name": "MindIE", "kind": "vendor_engine", "support": "native", "source": "fixture"},
      {"name": "Triton", "kind": "compiler", "support": "native", "source": "fixture"},
      {"name": "FA", "kind": "kernels", "support": "native", "source": "fixture"},
      {"name": "GMM", "kind": "moe_kernels", "support": "native", "source": "fixture"},
      {"name": "FP8 GEMM", "kind": "fp8_kernels", "support": "native", "source": "fixture"},
      {"name": "msprof", "kind": "profiler", "support": "native", "source": "fixture"},
      {"name": "msdebug", "kind": "debugger", "support": "native", "source": "fixture"},
      {"name": "a CUDA translator", "kind": "porting", "support": "native", "path": "translate", "source": "fixture"}]}]}})");
  what_if.load(doc, "fixture");
  // On the 910B itself the missing fp8 hardware still costs its point: 4 + 2 + 2 = 8 < 8.5.
  const auto cann_if = score_ecosystem(ascend, what_if);
  ASSERT_TRUE(cann_if.score);
  EXPECT_DOUBLE_EQ(*cann_if.score, 8.0);
  EXPECT_LT(*cann_if.score, *rocm.score);
  // On a part with fp8: 4 + 3 + (0.5 + 0.5 + 1) = 9 > 8.5.
  const auto cann_fp8 = score_ecosystem(make("huawei-fixture-fp8", "Huawei", 64, 1.6), what_if);
  ASSERT_TRUE(cann_fp8.score);
  EXPECT_DOUBLE_EQ(*cann_fp8.score, 9.0);
  EXPECT_GT(*cann_fp8.score, *rocm.score);
}

// The porting-effort rule (docs/compare.md "Porting effort") on fixture facts.
TEST(Ecosystem, PortingVerdictFollowsTheRule) {
  auto book_of = [](const std::string& software) {
    EcosystemBook b;
    b.load(Json::parse(R"({"ecosystem": {"vendors": [{"vendor": "Fixture", "stack": "FX", "software": [)" +
                       software + "]}]}}"),
           "fixture");
    return b;
  };
  Accelerator a = make("fixture-1", "Fixture", 64, 1.0);
  a.unsupported_precisions = {"fp8"};
  // Translate path, attention stated missing, MoE unknown, no fp8 hardware.
  const auto v = score_ecosystem(a, book_of(R"(
      {"name": "PyTorch", "kind": "framework", "support": "plugin", "source": "f"},
      {"name": "FA", "kind": "kernels", "support": "none", "source": "f"},
      {"name": "fxify", "kind": "porting", "support": "native", "path": "translate", "source": "f"})"));
  EXPECT_EQ(v.porting.effort, PortingEffort::translate);
  EXPECT_EQ(v.porting.tool, "fxify");
  EXPECT_EQ(v.porting.kernels_to_write, std::vector<std::string>{"attention"});
  EXPECT_EQ(v.porting.no_hardware, std::vector<std::string>{"fp8"});
  EXPECT_EQ(v.porting.unknown, std::vector<std::string>{"MoE grouped GEMM"});
  EXPECT_EQ(v.porting.sentence,
            "CUDA source is translated with a tool, then recompiled (fxify); kernels to write: attention; "
            "FP8 checkpoints run dequantised: no fp8 hardware; unknown: MoE grouped GEMM");
  // PyTorch plugin 1.125 + translate 1 (everything else unknown or none).
  EXPECT_DOUBLE_EQ(*v.score, 2.125);
  // The cheapest path stated wins (a vendor may ship a translator and its own language).
  const auto two = score_ecosystem(a, book_of(R"(
      {"name": "PyTorch", "kind": "framework", "support": "native", "source": "f"},
      {"name": "FX C", "kind": "porting", "support": "native", "path": "rewrite", "source": "f"},
      {"name": "fxcc", "kind": "porting", "support": "native", "path": "recompile", "source": "f"})"));
  EXPECT_EQ(two.porting.effort, PortingEffort::recompile);
  EXPECT_DOUBLE_EQ(*two.score, 1.5 + 1.5);
  // Neither PyTorch nor JAX (stated): the model code is rewritten, whatever the kernel path.
  const auto no_torch = score_ecosystem(a, book_of(R"(
      {"name": "PyTorch", "kind": "framework", "support": "none", "source": "f"},
      {"name": "fxcc", "kind": "porting", "support": "native", "path": "as_is", "source": "f"})"));
  EXPECT_EQ(no_torch.porting.effort, PortingEffort::rewrite);
  EXPECT_NE(no_torch.porting.sentence.find("model code is rewritten"), std::string::npos);
  // No porting fact: unknown, and said so.
  const auto none = score_ecosystem(a, book_of(R"(
      {"name": "PyTorch", "kind": "framework", "support": "native", "source": "f"})"));
  EXPECT_EQ(none.porting.effort, PortingEffort::unknown);
  EXPECT_EQ(none.porting.sentence.rfind("CUDA porting path unknown", 0), 0u);
  // A porting fact needs its path; no other fact may carry one.
  EXPECT_THROW(book_of(R"({"name": "x", "kind": "porting", "support": "native", "source": "f"})"), InputError);
  EXPECT_THROW(book_of(R"({"name": "x", "kind": "porting", "support": "native", "path": "hipify", "source": "f"})"),
               InputError);
  EXPECT_THROW(book_of(R"({"name": "x", "kind": "kernels", "support": "native", "path": "as_is", "source": "f"})"),
               InputError);
}

TEST(Ecosystem, UserFactsForOneAcceleratorBeatVendorWideOnes) {
  EcosystemBook book = EcosystemBook::builtin();
  book.load(Json::parse(R"({"ecosystem": {"vendors": [{"vendor": "NVIDIA",
      "accelerators": ["nvidia-v100-sxm2-32gb"], "software": [
      {"name": "PyTorch", "kind": "framework", "support": "native", "source": "test"}]}]}})"),
            "user");
  EXPECT_DOUBLE_EQ(*score_ecosystem(make("nvidia-v100-sxm2-32gb", "NVIDIA", 32, 0.9), book).score, 1.5);
  // The built-in V100 generation entry: PyTorch 1.5 + vLLM 1 + Nsight 0.5 + cuda-gdb 0.5 + CUDA
  // as is 2, no FlashAttention 2, Triton, TensorRT-LLM or fp8; no bf16 costs one more point.
  Accelerator v100 = make("nvidia-v100-sxm2-32gb", "NVIDIA", 32, 0.9);
  v100.unsupported_precisions = {"tf32", "bf16", "fp8", "fp4"};
  EXPECT_DOUBLE_EQ(*score_ecosystem(v100, EcosystemBook::builtin()).score, 4.5);
  EXPECT_THROW(book.load(Json::parse(R"({"ecosystem": {"vendors": [{"vendor": "X", "software": [
      {"name": "a", "kind": "frameworks", "support": "native", "source": "s"}]}]}})"), "u"),
               InputError);
}

TEST(Scorecard, MemoryScoreIsCapacityAndBandwidthSufficiency) {
  const Accelerator big = make("amd-mi300x", "AMD", 192, 5.3);
  const Accelerator small = make("nvidia-rtx-4090", "NVIDIA", 24, 1.008);
  Evidence e1 = need(&big, 160, 4);
  e1.feasible = true;
  e1.tokens_per_joule = 2.0;
  e1.usd_per_million_tokens = 0.50;
  Evidence e2 = need(&small, 160, 4);
  e2.feasible = true;
  e2.tokens_per_joule = 1.0;
  e2.usd_per_million_tokens = 0.25;
  // Interconnect: how far the links scale (8 and 64 devices), not the best plan's own efficiency.
  e2.link_efficiency_8 = 0.8;
  e2.link_efficiency_64 = 0.2;
  const auto rows = build_scorecard({e1, e2}, EcosystemBook::builtin());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(*rows[0].memory.score, 10.0);  // holds all of it, more than enough bandwidth
  EXPECT_NEAR(*rows[1].memory.score, 5 * 24.0 / 160 + 5 * 1.008 / 4, 1e-12);
  EXPECT_DOUBLE_EQ(*rows[0].energy.score, 10.0);
  EXPECT_DOUBLE_EQ(*rows[1].energy.score, 5.0);
  EXPECT_DOUBLE_EQ(*rows[0].cost.score, 5.0);
  EXPECT_DOUBLE_EQ(*rows[1].cost.score, 10.0);
  EXPECT_DOUBLE_EQ(*rows[1].interconnect.score, 5.0);    // 5 x 0.8 + 5 x 0.2
  EXPECT_FALSE(rows[0].interconnect.score.has_value());  // no link figures: unknown, flagged
  EXPECT_NE(std::find(rows[0].flags.begin(), rows[0].flags.end(), "interconnect unknown"),
            rows[0].flags.end());
}

TEST(Scorecard, UnknownSpecsAreFlaggedNotScored) {
  Accelerator unknown;
  unknown.id = "cambricon-mlu590";
  unknown.vendor = "Cambricon";
  Evidence e = need(&unknown, 160, 4);
  e.infeasible_reason = "memory capacity unknown";
  const auto rows = build_scorecard({e}, EcosystemBook::builtin());
  EXPECT_FALSE(rows[0].memory.score.has_value());
  EXPECT_FALSE(rows[0].cost.score.has_value());
  EXPECT_TRUE(rows[0].ecosystem.score.has_value());  // facts are known for Cambricon
  EXPECT_FALSE(rows[0].flags.empty());
}

// D6 of seed-audit-3: a 1-GPU plan on an NVL72 rack is powered as the whole rack it buys, and the
// energy basis says so instead of "(board power)".
TEST(Scorecard, EnergyNamesThePowerBoundaryOfWhatThePlanBuys) {
  const Accelerator gb200 = make("nvidia-gb200-per-gpu", "NVIDIA", 186, 8);
  Evidence e = need(&gb200, 16, 0.3);
  e.feasible = true;
  e.tokens_per_joule = 0.23;
  e.billed_devices = 72;
  e.node = "gb200-nvl72";
  const auto rows = build_scorecard({e}, EcosystemBook::builtin());
  EXPECT_EQ(rows[0].energy.basis,
            "0.23 tokens/J (wall power of the 72 device(s) bought in gb200-nvl72, before PUE)");
}

}  // namespace
}  // namespace memwall::score
