#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/test_paths.h"
#include "memwall/validate/case.h"
#include "memwall/validate/training_case.h"

namespace memwall::validate {
namespace {

std::vector<Json> training_cases() {
  std::vector<Json> out;
  const Json all = load_document(memwall::test::source_dir() + "/validation/dev-cases.json");
  for (const auto& c : all)
    if (c.value("kind", "") == "training") out.push_back(c);
  return out;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const size_t lo = size_t(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

TEST(TrainingCases, DevSetErrorWithinTargets) {
  const auto cases = training_cases();
  ASSERT_FALSE(cases.empty());
  const Catalog catalog = Catalog::builtin();
  std::vector<double> errors;
  for (const auto& c : cases) {
    if (!str_field(c, "group").empty()) continue;  // reported apart (FrontierRunsWithinTarget)
    const CaseResult r = predict_training_case(c, catalog);
    ASSERT_TRUE(r.predicted) << r.id << ": " << r.skipped_reason;
    const double predicted = *r.predicted;
    const double measured = r.measured;
    const double err = std::fabs(predicted - measured) / measured * 100;
    errors.push_back(err);
    std::printf("%-52s %10.2f %10.2f %+7.1f%%\n", c["id"].get<std::string>().c_str(), measured,
                predicted, (predicted - measured) / measured * 100);
  }
  const double median = percentile(errors, 0.5), p90 = percentile(errors, 0.9);
  std::printf("training cases: %zu, median |error| %.1f %%, p90 %.1f %%\n", errors.size(), median,
              p90);
  EXPECT_EQ(errors.size(), 52u);
  // Issue 12's bar for the original training dev set.
  EXPECT_LE(median, 5.0);
  EXPECT_LE(p90, 15.0);
}

TEST(TrainingCases, Bf16OptimizerPassOnlyWhereTheSourceNamesIt) {
  // BLOOM's Megatron-DeepSpeed ran DeepSpeed's BF16_Optimizer (fp32 gradient accumulation by a
  // pass per micro-batch); MT-NLG (2021) and fp16 GPT-NeoX do not state it.
  int seen = 0;
  for (const auto& c : training_cases()) {
    const std::string id = c.at("id").get<std::string>();
    if (id.find("bloom") == std::string::npos && id.find("mtnlg") == std::string::npos &&
        id.find("gptneox") == std::string::npos)
      continue;
    const TrainingCase tc = translate_training_case(c);
    EXPECT_EQ(tc.config.fp32_grad_accumulation_pass, id.find("bloom") != std::string::npos) << id;
    ++seen;
  }
  EXPECT_EQ(seen, 5);
}

TEST(TrainingCases, LlmFoundryRowsRunEagerAdamAndTheirMixedPrecisionMode) {
  // Composer's DecoupledAdamW is a per-parameter loop of eager ops; the tables' MP Mode DEFAULT
  // reduces and keeps gradients in fp32, PURE in bf16.
  int fp32 = 0, bf16 = 0;
  for (const auto& c : training_cases()) {
    const std::string id = c.at("id").get<std::string>();
    if (id.rfind("train-mpt-", 0) != 0) continue;
    const TrainingCase tc = translate_training_case(c);
    EXPECT_FALSE(tc.config.fused_optimizer) << id;
    const std::string mode = c.at("config").value("mp_mode", "");
    ASSERT_TRUE(mode == "DEFAULT" || mode == "PURE") << id << ": mp_mode '" << mode << "'";
    EXPECT_EQ(tc.config.fp32_grad_accumulation, mode == "DEFAULT") << id;
    (mode == "DEFAULT" ? fp32 : bf16)++;
  }
  EXPECT_GT(fp32, 20);
  EXPECT_GE(bf16, 3);
}

TEST(TrainingCases, FrontierRunsWithinTarget) {
  // Cases of the "frontier" group are all expressible; DeepSeek-V3's pre-training GPU-hours are
  // within 15 % (issue 12). The MT-NLG runs are reported, not asserted: Megatron-DeepSpeed of 2021
  // ran the same 530B / 2240-GPU configuration ~20 % slower than Megatron-LM (Korthikanti Table 5),
  // a framework difference memwall does not fit per case.
  const Catalog catalog = Catalog::builtin();
  int n = 0;
  for (const auto& c : training_cases()) {
    if (str_field(c, "group") != "frontier") continue;
    const CaseResult r = predict_training_case(c, catalog);
    ASSERT_TRUE(r.predicted) << r.id << ": " << r.skipped_reason;
    std::printf("%-52s %10.4g %10.4g %+7.1f%%\n", r.id.c_str(), r.measured, *r.predicted,
                (*r.predicted / r.measured - 1) * 100);
    if (r.id.find("deepseek-v3") != std::string::npos) {
      EXPECT_LE(r.abs_pct_error(), 15.0) << r.id;
    }
    ++n;
  }
  EXPECT_GE(n, 4);
}

TEST(TrainingCases, MoreGpuHoursThanPublishedIsPessimistic) {
  // GPU-hours are a cost (lower is better), like a time: predicting more of them than DeepSeek's
  // 2.664 M H800-hours (arXiv 2412.19437 Table 1) is a pessimistic miss, negative in the signed
  // error. memwall gives 2.98 M, +11.9 % raw (physics audit 3, #22).
  CaseResult r;
  r.unit = "GPU-hours";
  r.measured = 2.664e6;
  r.predicted = 2.98e6;
  EXPECT_NEAR(r.signed_pct_error(), -11.86, 0.01);
  for (const auto& c : training_cases()) {
    if (str_field(c, "id").find("deepseek-v3") == std::string::npos) continue;
    const CaseResult v3 = predict_training_case(c, Catalog::builtin());
    ASSERT_TRUE(v3.predicted) << v3.skipped_reason;
    EXPECT_EQ(v3.unit, "GPU-hours");
    EXPECT_NEAR(v3.signed_pct_error(), -(*v3.predicted / v3.measured - 1) * 100, 1e-9);
    EXPECT_LT(v3.signed_pct_error(), 0);
  }
}

TEST(TrainingCases, SecondPublishedSetExpressibleAndAscendWithinBound) {
  // "published-2" (BLOOM-176B, GPT-NeoX-20B, more llm-foundry rows) and "other-hardware"
  // (AscendSpeed Llama-2 on Ascend 910B) are reported apart from the original dev set. Every case
  // must be expressible. On Ascend the GEMM rate (MAMF on a 910B2C) and the HCCS collectives
  // (limulidae, 8 cards) are measured, memory and attention are the vendor's prior: each case
  // stays within 25 % of its published throughput (docs/train.md states the residual).
  const Catalog catalog = Catalog::builtin();
  int published = 0, ascend = 0;
  for (const auto& c : training_cases()) {
    const std::string group = str_field(c, "group");
    if (group != "published-2" && group != "other-hardware") continue;
    const CaseResult r = predict_training_case(c, catalog);
    ASSERT_TRUE(r.predicted) << r.id << ": " << r.skipped_reason;
    std::printf("%-52s %10.4g %10.4g %+7.1f%%\n", r.id.c_str(), r.measured, *r.predicted,
                (*r.predicted / r.measured - 1) * 100);
    if (group == "other-hardware") {
      EXPECT_LE(r.abs_pct_error(), 25.0) << r.id;
      ++ascend;
    } else {
      ++published;
    }
  }
  EXPECT_GE(published, 16);
  EXPECT_GE(ascend, 4);
}

}  // namespace
}  // namespace memwall::validate
