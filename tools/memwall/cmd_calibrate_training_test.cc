// The training loop of calibration through the CLI: a Megatron-LM log imported to records,
// `memwall calibrate` fitting the framework on them, `memwall train --calibration` applying the
// profile, and `memwall validate --kind training --calibrate-on`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "memwall/core/test_paths.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

const std::string kImport = "import " + memwall::test::source_dir() +
                            "/src/memwall/measure/testdata/megatron_training.log "
                            "--format megatron-log --model llama-3.1-8b --gpu h100 --gpus 8 "
                            "--tp 1 --pp 1 --micro-batch 1 --precision bf16";

std::filesystem::path temp(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("memwall-" + std::to_string(::getpid()) + "-" + name);
}

TEST(CalibrateTrainingCli, MegatronLogToProfileThatTrainApplies) {
  // The sequence length is not in the log: refused by name, exit 2.
  const Result missing = run(kImport, "2>&1");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("--seq-len: required"), std::string::npos) << missing.out;
  const Result imported = run(kImport + " --seq-len 8192");
  ASSERT_EQ(imported.status, 0) << imported.out;
  const auto doc = nlohmann::json::parse(imported.out);
  ASSERT_EQ(doc["records"].size(), 2u);
  EXPECT_EQ(doc["records"][0]["metric"]["value"], (18520.0 + 18440.0 + 18460.0) / 3);
  const auto records = temp("megatron-records.json"), profile = temp("megatron-profile.json");
  std::ofstream(records) << imported.out;
  const Result fit = run("calibrate " + records.string() + " --out " + profile.string());
  ASSERT_EQ(fit.status, 0) << fit.out;
  EXPECT_NE(fit.out.find("megatron (Megatron-LM"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("compute_in_situ_fraction"), std::string::npos);
  EXPECT_NE(fit.out.find("step_overhead_ms"), std::string::npos);
  std::ifstream in(profile);
  const auto p = nlohmann::json::parse(in);
  ASSERT_TRUE(p.contains("frameworks")) << p.dump();
  const std::string train =
      "train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 1 --global-batch 128 --seq "
      "8192 --json";
  const Result plain = run(train), calibrated = run(train + " --calibration " + profile.string());
  // Applied to another accelerator than it was fitted on, the answer says so.
  const Result elsewhere =
      run("train --model llama-3.1-8b --gpu a100 --gpus 8 --micro-batch 1 --global-batch 128 --seq "
          "8192 --calibration " +
          profile.string());
  std::filesystem::remove(records);
  std::filesystem::remove(profile);
  ASSERT_EQ(plain.status, 0) << plain.out;
  ASSERT_EQ(calibrated.status, 0) << calibrated.out;
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(calibrated.out);
  EXPECT_NE(a["step_time_s"], b["step_time_s"]);
  EXPECT_NE(calibrated.out.find("calibrated megatron"), std::string::npos);
  EXPECT_EQ(calibrated.out.find("was fitted on"), std::string::npos);
  ASSERT_EQ(elsewhere.status, 0) << elsewhere.out;
  EXPECT_NE(elsewhere.out.find("the megatron calibration was fitted on nvidia-h100-sxm, not "
                               "nvidia-a100-80gb-sxm"),
            std::string::npos)
      << elsewhere.out;
}

TEST(CalibrateTrainingCli, ValidateCalibratesTrainingGroups) {
  const Result r = run("validate --kind training --calibrate-on 2 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["kind"], "training");
  EXPECT_GE(doc["groups_fitted"].get<int>(), 5);
  EXPECT_EQ(doc["rows"][0]["dimension"], "all");
  EXPECT_GE(doc["rows"][0]["cases"].get<int>(), 40);
}

}  // namespace
