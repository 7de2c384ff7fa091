#include "memwall/validate/calibrate_on.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "memwall/core/error.h"
#include "memwall/core/statistics.h"
#include "memwall/validate/runner.h"

namespace memwall::validate {
namespace {

// On the published cases: every group with more than two cases is fitted on its first two and its
// other cases are predicted both ways; the uncalibrated figures are validate's own. The built-in
// parameters were fitted on these very cases, so two more of them buy little on average
// (docs/validate.md "Calibrate on K"); what the test holds is that the fit does not run away: the
// pooled signed error stays within 5 points and no held-out case of a fitted family moves by more
// than 2x. A family on its vendor prior (the 'ceilings' regime, e.g. the domestic cases on Ascend)
// has no fitted parameters, so two of its measurements may move it by their own ratio: there the
// test holds that the fit lowers their median |error| and leaves no held-out case more than 5
// points worse (a fit on decode cases need not inform a prefill case of the same group).
TEST(CalibrateOn, FitsEachGroupOnItsFirstCasesAndPredictsTheRest) {
  const Json cases = builtin_cases("dev-cases.json");
  const CalibrateOnReport r = calibrate_on(cases, Catalog::builtin(), 2);
  EXPECT_GE(r.groups_fitted, 10);
  EXPECT_EQ(r.fits.size(), static_cast<size_t>(r.groups_fitted));
  ASSERT_GE(r.before.size(), 40u);
  ASSERT_EQ(r.before.size(), r.after.size());
  const Report plain = run_cases(cases, Catalog::builtin(), "inference");
  for (const CaseResult& b : r.before)
    for (const CaseResult& c : plain.cases)
      if (c.id == b.id) {
        ASSERT_TRUE(c.predicted);
        EXPECT_DOUBLE_EQ(*c.predicted, *b.predicted) << b.id;
      }
  const CalibrateOnRow& all = r.rows.front();
  EXPECT_EQ(all.dimension, "all");
  EXPECT_EQ(all.cases, static_cast<int>(r.before.size()));
  EXPECT_LT(std::fabs(all.median_signed_after - all.median_signed_before), 5.0);
  std::vector<double> prior_before, prior_after;
  for (size_t i = 0; i < r.before.size(); ++i) {
    const CaseResult& b = r.before[i];
    if (b.regime.value("ceilings") == "vendor prior") {
      prior_before.push_back(b.abs_pct_error());
      prior_after.push_back(r.after[i].abs_pct_error());
      EXPECT_LT(r.after[i].abs_pct_error(), b.abs_pct_error() + 5.0) << b.id;
      continue;
    }
    const double ratio = *r.after[i].predicted / *b.predicted;
    EXPECT_GT(ratio, 0.5) << b.id;
    EXPECT_LT(ratio, 2.0) << b.id;
  }
  ASSERT_GE(prior_before.size(), 10u);  // the domestic group's held-out cases (dev-cases.json)
  EXPECT_LT(median(prior_after), median(prior_before));
}

// Item 6's interval coverage: every held-out case carries the built-in interval fitted without its
// source and the calibrated one (its group's fit moderated with the pooled scatter of the other
// sources' groups); on the dev set both cover near their 80 % (REPORT.md's figures: 84 % and
// 85 %), and the pooled scatter is what data/uncertainty.json stores.
TEST(CalibrateOn, ReportsTheCoverageOfBothIntervalsOnHeldOutSources) {
  const CalibrateOnReport r = calibrate_on(builtin_cases("dev-cases.json"), Catalog::builtin(), 2);
  ASSERT_EQ(r.group_of.size(), r.before.size());
  for (size_t i = 0; i < r.after.size(); ++i) {
    ASSERT_TRUE(r.after[i].held_out) << r.after[i].id;
    EXPECT_TRUE(r.after[i].held_out->calibrated) << r.after[i].id;
    EXPECT_GT(r.after[i].held_out->half_width, 0) << r.after[i].id;
  }
  const CalibrateOnRow& all = r.rows.front();
  ASSERT_TRUE(all.coverage_before && all.coverage_after);
  EXPECT_GT(*all.coverage_before, 0.7);
  EXPECT_LT(*all.coverage_before, 0.92);
  EXPECT_GT(*all.coverage_after, 0.7);
  EXPECT_LT(*all.coverage_after, 0.92);
  ASSERT_TRUE(r.scatter.known());
  EXPECT_EQ(r.scatter.cases, static_cast<int>(r.before.size()));
  const auto* stored = uncertainty::builtin_model().calibrated_scatter("inference");
  ASSERT_NE(stored, nullptr);
  EXPECT_NEAR(stored->sd_log, r.scatter.sd_log, 1e-9);  // refit: scripts/validate.sh
  EXPECT_NE(to_markdown(r).find("| all | all | "), std::string::npos);
}

// The drift test of the built-in engine profiles (issue 30 item 5): every (engine profile,
// accelerator) group of the dev cases is fitted on all its cases with calibrate's fitter, and a
// built-in value outside the fit's 80 % interval has drifted from its evidence. Two are open,
// each for a reason the profile format cannot fix alone (docs/validate.md "Profile drift"):
// llama.cpp's one kernel overhead for every GPU (the RTX 4090's cases want 2.4-9.7 us, the A100
// PCIe's 10.1-15.8 us), and vLLM 0.6 sharing vLLM 0.8's Hopper compute share (its Neural Magic
// H100 cases want 0.62-0.75). vLLM Ascend 0.14 on the 910B sits at the memory share its one
// source (the suffix-decoding tutorial, TPOT 53-70 ms from 1 to 34 sequences) was fitted to
// (data/engines/vllm-ascend.json). vLLM's front end per chat request (12.8 ms, a median over
// chat templates from pages outside the dev cases) sits outside every GPUStack group's fit, which
// pools different templates per accelerator (H100 4.9 ms, A100 9.8 ms, H200 with DeepSeek-R1's
// template 15.9 ms): a cost per chat template, which the engine profile cannot carry; fitting it
// jointly moves the H100 group's compute share to 0.51 (0.42-0.59). A new drift, or one of these
// fixed, fails here.
TEST(ProfileDrift, BuiltInProfilesSitWhereTheirDevCasesPutThem) {
  const ProfileDriftReport r = profile_drift(builtin_cases("dev-cases.json"), Catalog::builtin());
  EXPECT_GE(r.groups, 15);
  EXPECT_GE(r.parameters.size(), 50u);
  std::vector<std::string> drifted;
  for (const auto& p : r.parameters) {
    EXPECT_LE(p.low, p.fitted) << p.engine_profile << " " << p.parameter;
    EXPECT_GE(p.high, p.fitted) << p.engine_profile << " " << p.parameter;
    EXPECT_EQ(p.drifted, p.built_in < p.low || p.built_in > p.high);
    if (p.drifted) drifted.push_back(p.engine_profile + " " + p.accelerator + " " + p.parameter);
  }
  EXPECT_EQ(drifted, (std::vector<std::string>{
                         "llama.cpp@2024 nvidia-rtx-4090 kernel_overhead_us",
                         "vllm@0.8 nvidia-h100-sxm compute_in_situ_fraction",
                         "vllm@0.8 nvidia-h100-sxm frontend_us_per_request",
                         "vllm@0.8 nvidia-h200-sxm frontend_us_per_request",
                         "vllm@0.8 nvidia-a100-80gb-sxm frontend_us_per_request",
                         "vllm@0.6 nvidia-h100-sxm compute_in_situ_fraction"}));
}

// --in-sample: each group is fitted on all its cases, the predicted ones included, so the report
// is the floor any fit of the calibrated parameters reaches on these cases (an oracle, never a
// forecast). The same cases are reported as without it; their uncalibrated figures are the same,
// and a fit that sees the answers lands at least as close in the median as one that does not.
TEST(CalibrateOn, InSampleFitsEachGroupOnTheCasesItPredicts) {
  const Json cases = builtin_cases("dev-cases.json");
  const CalibrateOnReport held = calibrate_on(cases, Catalog::builtin(), 2);
  const CalibrateOnReport in = calibrate_on(cases, Catalog::builtin(), 2, "inference", true);
  EXPECT_FALSE(held.in_sample);
  EXPECT_TRUE(in.in_sample);
  ASSERT_EQ(in.before.size(), held.before.size());
  for (size_t i = 0; i < in.before.size(); ++i) {
    EXPECT_EQ(in.before[i].id, held.before[i].id);
    EXPECT_DOUBLE_EQ(*in.before[i].predicted, *held.before[i].predicted);
  }
  EXPECT_LE(in.rows.front().median_abs_after, held.rows.front().median_abs_after);
  ASSERT_FALSE(in.fits.empty());
  EXPECT_NE(in.fits.front().find("all of"), std::string::npos) << in.fits.front();
  EXPECT_NE(to_text(in).find("in sample"), std::string::npos);
  EXPECT_EQ(to_json(in).at("in_sample"), true);
}

// A group is one stack: the engine's stated release splits a publication's rows that run one
// profile. TensorRT-LLM's performance page has v0.5 latency tables and v0.6.1 throughput tables,
// both on the 0.6 profile; a fit on the throughput rows must not be judged on the latency ones.
TEST(CalibrateOn, TheStatedEngineReleaseIsPartOfTheGroup) {
  const CalibrateOnReport r = calibrate_on(builtin_cases("dev-cases.json"), Catalog::builtin(), 2);
  bool v05 = false, v061 = false;
  for (const std::string& f : r.fits) {
    if (f.rfind("NVIDIA/TensorRT-LLM | nvidia-h100-sxm | trtllm@0.6 (stated 0.5) |", 0) == 0) v05 = true;
    if (f.rfind("NVIDIA/TensorRT-LLM | nvidia-h100-sxm | trtllm@0.6 (stated 0.6.1) |", 0) == 0) v061 = true;
  }
  EXPECT_TRUE(v05);
  EXPECT_TRUE(v061);
  // "vLLM 0.11.0" and "vLLM 0.11" are one release: GPUStack's H100 vLLM rows stay one group.
  int gpustack_vllm_h100 = 0;
  for (const std::string& f : r.fits)
    if (f.rfind("GPUStack Performance Lab | nvidia-h100-sxm | vllm@0.8 (stated 0.11) | bf16/bf16", 0) == 0)
      ++gpustack_vllm_h100;
  EXPECT_EQ(gpustack_vllm_h100, 1);
}

TEST(CalibrateOn, RefusesANonPositiveCount) {
  EXPECT_THROW(calibrate_on(Json::array(), Catalog::builtin(), 0), InputError);
}

}  // namespace
}  // namespace memwall::validate
