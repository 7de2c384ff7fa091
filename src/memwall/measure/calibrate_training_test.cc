// `memwall calibrate` over training records: the framework's compute share, overlap efficiency and
// host time per step, fitted by the inference fit's own solver (calibrate.cc fit_group).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "memwall/core/error.h"
#include "memwall/measure/calibrate.h"
#include "memwall/measure/predict.h"
#include "memwall/perf/efficiency.h"

namespace memwall::measure {
namespace {

// A Megatron-LM step of llama-3.1-8b on `gpus` H100s, data parallel.
Record training_record(const std::string& id, int gpus, int64_t micro, int64_t global,
                       int64_t seq) {
  const Json j = {{"id", id},
                  {"model", "llama-3.1-8b"},
                  {"hardware", {{"accelerator", "h100"}, {"count", gpus}}},
                  {"stack",
                   {{"framework", "megatron"},
                    {"precision", "bf16"},
                    {"micro_batch", micro},
                    {"global_batch", global},
                    {"recompute", "full"}}},
                  {"workload", {{"mode", "training"}, {"seq_len", seq}}},
                  {"metric", {{"name", "step_time"}, {"value", 1.0}, {"unit", "s"}}}};
  return parse_record(j, id, Catalog::builtin());
}

const FittedParameter& param(const GroupFit& g, const std::string& name) {
  for (const auto& p : g.parameters)
    if (p.name == name) return p;
  throw std::runtime_error(name);
}

// Step times measured on a stack whose GEMMs keep 0.75 of the ceiling (built in 0.87) and whose
// host takes 50 ms a step (built in 30): the fit moves both towards the truth and their intervals
// hold it (the host time only as far as the short steps outweigh its prior of 30 +- 15 ms), and
// the fitted profile predicts the records back.
TEST(CalibrateTraining, RecoversTheFrameworkParametersAJobWasMeasuredWith) {
  std::vector<Record> records = {
      training_record("8gpu-gb128-s8k", 8, 1, 128, 8192),
      training_record("8gpu-gb64-s4k", 8, 2, 64, 4096),
      training_record("16gpu-gb256-s4k", 16, 2, 256, 4096),
      training_record("8gpu-gb8-s2k", 8, 1, 8, 2048),
      training_record("32gpu-gb32-s2k", 32, 1, 32, 2048),
      training_record("8gpu-gb512-s2k", 8, 4, 512, 2048),
      training_record("8gpu-gb8-s1k", 8, 1, 8, 1024),
      training_record("16gpu-gb16-s1k", 16, 1, 16, 1024),
  };
  const Json truth = {
      {"frameworks",
       {{"megatron", {{"compute_in_situ_fraction", 0.75}, {"step_overhead_ms", 50}}}}}};
  PredictOptions measured_with;
  measured_with.efficiency = std::make_shared<const perf::Efficiency>(
      perf::apply_calibration(perf::default_efficiency(), truth, "truth"));
  for (Record& r : records) {
    const Prediction p = predict(r, Catalog::builtin(), measured_with);
    ASSERT_TRUE(p.si) << r.id << ": " << p.unpredicted;
    r.measured.si = r.measured.value = *p.si;
  }
  const CalibrationFit fit = calibrate(records, Catalog::builtin());
  ASSERT_EQ(fit.groups.size(), 1u);
  const GroupFit& g = fit.groups[0];
  EXPECT_EQ(g.section, "frameworks");
  EXPECT_EQ(g.engine_key, "megatron");
  const FittedParameter& share = param(g, "compute_in_situ_fraction");
  EXPECT_DOUBLE_EQ(share.before, 0.87);
  ASSERT_TRUE(share.identified);
  ASSERT_TRUE(share.low && share.high);
  EXPECT_LE(*share.low, 0.75);
  EXPECT_GE(*share.high, 0.75);
  EXPECT_NEAR(share.after, 0.75, 0.03);
  const FittedParameter& host = param(g, "step_overhead_ms");
  EXPECT_DOUBLE_EQ(host.before, 30);
  ASSERT_TRUE(host.identified);
  EXPECT_GT(host.after, host.before);
  EXPECT_LE(*host.low, 50);
  EXPECT_GE(*host.high, 50);
  EXPECT_GT(g.median_abs_error_before, 0.05);
  EXPECT_LT(g.median_abs_error_after, 0.02);
  // The profile: frameworks.megatron, read by every face's --calibration, with its provenance.
  ASSERT_TRUE(fit.profile.contains("frameworks"));
  EXPECT_TRUE(fit.profile["frameworks"]["megatron"].contains("compute_in_situ_fraction"));
  EXPECT_EQ(fit.profile["fitted_on"]["groups"]["framework megatron"]["records"], 8);
  PredictOptions calibrated;
  calibrated.efficiency = std::make_shared<const perf::Efficiency>(
      perf::apply_calibration(perf::default_efficiency(), fit.profile, "fitted"));
  for (const Record& r : records) {
    const Prediction p = predict(r, Catalog::builtin(), calibrated);
    ASSERT_TRUE(p.si);
    EXPECT_NEAR(*p.si / r.measured.si, 1.0, 0.04) << r.id;
  }
  // What the records cannot fix is named with the run that would: one node, no overlap window.
  const FittedParameter& overlap = param(g, "overlap_efficiency");
  if (!overlap.identified) {
    EXPECT_NE(overlap.why_not.find("data parallelism across nodes"), std::string::npos);
  }
}

TEST(CalibrateTraining, AFrameworksSectionRefusesUnknownNamesByName) {
  auto refusal = [](const Json& doc) {
    try {
      (void)perf::apply_calibration(perf::default_efficiency(), doc, "p.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refusal({{"frameworks", {{"megatrn", {{"step_overhead_ms", 10}}}}}}).find("megatrn"),
            std::string::npos);
  EXPECT_NE(refusal({{"frameworks", {{"megatron", {{"gemm_share", 0.8}}}}}})
                .find("p.json: frameworks.megatron.gemm_share"),
            std::string::npos);
  EXPECT_NE(refusal({{"frameworks", {{"megatron", {{"compute_in_situ_fraction", 1.5}}}}}})
                .find("compute_in_situ_fraction"),
            std::string::npos);
  const perf::Efficiency e = perf::apply_calibration(
      perf::default_efficiency(), {{"frameworks", {{"nemo", {{"overlap_efficiency", 0.5}}}}}}, "p");
  ASSERT_NE(e.framework("nemo"), nullptr);
  EXPECT_EQ(*e.framework("nemo")->overlap_efficiency, 0.5);
  EXPECT_EQ(e.framework("megatron"), nullptr);
}

TEST(CalibrateTraining, ARecordsUnknownFrameworkIsRefusedByName) {
  Json j = {{"id", "x"},
            {"model", "llama-3.1-8b"},
            {"hardware", {{"accelerator", "h100"}, {"count", 8}}},
            {"stack", {{"framework", "megatorn"}, {"micro_batch", 1}, {"global_batch", 8}}},
            {"workload", {{"mode", "training"}, {"seq_len", 2048}}},
            {"metric", {{"name", "step_time"}, {"value", 1.0}, {"unit", "s"}}}};
  try {
    (void)parse_record(j, "r.json: records[0]", Catalog::builtin());
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: records[0].stack.framework"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("megatorn"), std::string::npos);
  }
}

}  // namespace
}  // namespace memwall::measure
