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
  // NVIDIA: PyTorch 3 + vLLM 2 + SGLang 1 + TensorRT-LLM 1 + FlashAttention 2 + Triton 0.5 +
  // Nsight 0.5 = 10.
  EXPECT_DOUBLE_EQ(*score_ecosystem(make("nvidia-h100-sxm", "NVIDIA", 80, 3.35), book).score, 10.0);
  // AMD: PyTorch 3 + vLLM 2 + SGLang 1 + FlashAttention plugin 1.5 + Triton 0.5 + rocprof 0.5.
  EXPECT_DOUBLE_EQ(*score_ecosystem(make("amd-mi300x", "AMD", 192, 5.3), book).score, 8.5);
  // Huawei: PyTorch adapter 2.25 + vLLM plugin 1.5 + SGLang 1 + MindIE 1 + CANN FlashAttention 2 +
  // Triton plugin 0.375 + MindStudio 0.5.
  const auto ascend = score_ecosystem(make("huawei-ascend-910b", "Huawei", 64, 1.6), book);
  EXPECT_DOUBLE_EQ(*ascend.score, 8.625);
  EXPECT_TRUE(ascend.missing.empty());
  // Google: JAX 3 (native, beats the PyTorch/XLA bridge) + vLLM plugin 1.5 + SGLang 1 + XLA 0.5 +
  // XProf 0.5.
  EXPECT_DOUBLE_EQ(*score_ecosystem(make("google-tpu-v5p", "Google", 95, 2.765), book).score, 6.5);
  // Hygon: no sourced facts -> unknown, not zero.
  EXPECT_FALSE(score_ecosystem(make("hygon-dcu-k100", "Hygon", 64, 1.0), book).score.has_value());
}

TEST(Ecosystem, UserFactsForOneAcceleratorBeatVendorWideOnes) {
  EcosystemBook book = EcosystemBook::builtin();
  book.load(Json::parse(R"({"ecosystem": {"vendors": [{"vendor": "NVIDIA",
      "accelerators": ["nvidia-v100-sxm2-32gb"], "software": [
      {"name": "PyTorch", "kind": "framework", "support": "native", "source": "test"}]}]}})"),
            "user");
  EXPECT_DOUBLE_EQ(*score_ecosystem(make("nvidia-v100-sxm2-32gb", "NVIDIA", 32, 0.9), book).score, 3.0);
  // The built-in V100 generation entry: PyTorch 3 + vLLM 2 + Nsight 0.5, no FlashAttention 2,
  // Triton or TensorRT-LLM; no bf16 costs one more point.
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
