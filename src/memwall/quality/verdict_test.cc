#include "memwall/quality/verdict.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"
#include "memwall/quality/policy.h"

namespace memwall::quality {
namespace {

const QualityTable& table() { return QualityTable::builtin(); }

TEST(QualityVerdict, Bf16IsTheBaseline) {
  const auto v = weights_quality(table(), "qwen2.5-72b", Precision::bf16, Precision::bf16, Fp8Recipe::tensorwise);
  EXPECT_TRUE(v.baseline);
  EXPECT_DOUBLE_EQ(*v.recovery_pct, 100.0);
  EXPECT_EQ(v.cell(), "100 (bf16)");
}

TEST(QualityVerdict, Int4OnLlama31_70bIsTheWorstPublishedBenchmark) {
  // RedHat/Neural Magic card: 100.0 / 99.4 / 97.4 / 101.0 / 99.2 % -> worst 97.4 % (OLLM v2).
  const auto v = weights_quality(table(), "llama-3.1-70b", Precision::int4, Precision::bf16, Fp8Recipe::tensorwise);
  ASSERT_TRUE(v.recovery_pct);
  EXPECT_DOUBLE_EQ(*v.recovery_pct, 97.4);
  EXPECT_EQ(v.benchmark, "Open LLM Leaderboard v2");
  EXPECT_NE(v.source.find("quantized.w4a16"), std::string::npos);
}

TEST(QualityVerdict, Fp8PerTensorMatchesOnlyPerTensorResults) {
  // Per-tensor card: 84.29 / 84.40 = 99.87 %; the per-channel card (worst 99.7 %) is another method.
  const auto v =
      weights_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3, Precision::fp8_e4m3, Fp8Recipe::tensorwise);
  ASSERT_TRUE(v.recovery_pct);
  EXPECT_NEAR(*v.recovery_pct, 100.0 * 84.29 / 84.40, 1e-9);
  EXPECT_EQ(v.method, "per-tensor");
  const auto block =
      weights_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3, Precision::fp8_e4m3, Fp8Recipe::blockwise);
  EXPECT_TRUE(block.unknown());
}

TEST(QualityVerdict, NoPublishedEvaluationIsUnknown) {
  const auto v =
      weights_quality(table(), "qwen2.5-72b", Precision::fp8_e4m3, Precision::fp8_e4m3, Fp8Recipe::tensorwise);
  EXPECT_TRUE(v.unknown());
  EXPECT_EQ(v.cell(), "unknown!");
  EXPECT_TRUE(kv_quality(table(), "qwen2.5-72b", Precision::fp8_e4m3).unknown());
  EXPECT_TRUE(kv_quality(table(), "qwen2.5-72b", Precision::bf16).baseline);
}

TEST(QualityVerdict, CombinedIsTheLowerOrUnknown) {
  const auto w4 = weights_quality(table(), "llama-3.1-70b", Precision::int4, Precision::bf16, Fp8Recipe::tensorwise);
  const auto fp8 =
      weights_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3, Precision::fp8_e4m3, Fp8Recipe::tensorwise);
  EXPECT_DOUBLE_EQ(*combine(fp8, w4).recovery_pct, 97.4);
  EXPECT_TRUE(combine(w4, kv_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3)).unknown());
  EXPECT_DOUBLE_EQ(*combine(w4, kv_quality(table(), "llama-3.1-70b", Precision::bf16)).recovery_pct, 97.4);
}

TEST(QualityVerdict, TrainingFp8BlockwiseOnDeepSeekV3) {
  // DeepSeek-V3 report §3.3: relative loss error below 0.25 % -> 99.75 %.
  const auto v = training_quality(table(), "deepseek-v3", Precision::fp8_e4m3, Fp8Recipe::blockwise);
  ASSERT_TRUE(v.recovery_pct);
  EXPECT_DOUBLE_EQ(*v.recovery_pct, 99.75);
  EXPECT_TRUE(training_quality(table(), "deepseek-v3", Precision::fp8_e4m3, Fp8Recipe::mxfp8).unknown());
  EXPECT_TRUE(training_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3, Fp8Recipe::blockwise).unknown());
}

TEST(QualityTable, MalformedRowNamesTheField) {
  QualityTable t;
  const Json doc = Json::parse(R"({"quality": {"results": [{"format": "w3a3", "method": "x", "use": "inference",
      "family": "f", "models": ["m"], "benchmarks": [{"name": "b", "recovery_pct": 99}], "source": "s", "tag": "t"}]}})");
  try {
    t.load(doc, "user.json");
    FAIL() << "accepted an unknown format";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("user.json: quality.results[0].format"), std::string::npos) << e.what();
  }
}

TEST(QualityPolicy, ThresholdsAndUnknowns) {
  const auto w4 = weights_quality(table(), "llama-3.1-70b", Precision::int4, Precision::bf16, Fp8Recipe::tensorwise);
  const auto fp8 =
      weights_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3, Precision::fp8_e4m3, Fp8Recipe::tensorwise);
  const auto unknown = kv_quality(table(), "llama-3.1-70b", Precision::fp8_e4m3);
  const auto near = parse_quality_policy("near-lossless", std::nullopt);
  EXPECT_TRUE(near.admits(fp8));       // 99.87 >= 99
  EXPECT_FALSE(near.admits(w4));       // 97.4 < 99
  EXPECT_FALSE(near.admits(unknown));  // never assumed free
  const auto lossless = parse_quality_policy("lossless", std::nullopt);
  EXPECT_FALSE(lossless.admits(fp8));  // 99.87 < 99.9
  const auto any = parse_quality_policy("any", std::nullopt);
  EXPECT_TRUE(any.admits(unknown));
  EXPECT_TRUE(parse_quality_policy("near-lossless", 97.0).admits(w4));
}

TEST(QualityPolicy, BadValuesNameTheField) {
  EXPECT_THROW(
      {
        try {
          parse_quality_policy("good", std::nullopt);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("quality"), std::string::npos);
          throw;
        }
      },
      InputError);
  for (double bad : {0.0, -5.0, 100.5}) {
    try {
      parse_quality_policy("near-lossless", bad);
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("min_recovery"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace memwall::quality
