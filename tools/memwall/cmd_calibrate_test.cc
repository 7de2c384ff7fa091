// memwall calibrate and the --calibration a profile is applied with in every face that times an
// engine: the CLI of each takes the file and its answer moves the way the profile says.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"
#include "memwall/core/test_paths.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

// A profile whose vLLM host takes 5 ms per iteration (built-in: well under 1 ms).
std::string slow_host_profile() {
  const auto path = std::filesystem::path(testing::TempDir()) / "slow-host.json";
  std::ofstream(path) << R"({"engines": {"vllm": {"step_overhead_us": 5000}}})";
  return path.string();
}

double number_at(const std::string& json, const char* a, const char* b = nullptr) {
  const auto j = nlohmann::json::parse(json);
  return b ? j.at(a).at(b).get<double>() : j.at(a).get<double>();
}

TEST(CalibrationFaces, PlanSimulateAndCompareTimeWithTheProfile) {
  const std::string profile = slow_host_profile();
  const std::string plan = "plan infer --model llama-3.1-8b --concurrency 8 --gpus h100 --engine vllm "
                           "--serving aggregated --top 1 --json";
  const Result plain = run(plan), calibrated = run(plan + " --calibration " + profile);
  ASSERT_EQ(plain.status, 0);
  ASSERT_EQ(calibrated.status, 0) << calibrated.out;
  const auto p0 = nlohmann::json::parse(plain.out)["plans"][0];
  const auto p1 = nlohmann::json::parse(calibrated.out)["plans"][0];
  EXPECT_GT(p1["tpot_s"].get<double>(), p0["tpot_s"].get<double>() + 0.004);

  const std::string sim = "simulate --model llama-3.1-8b --gpu h100 --engine vllm --rate 2 "
                          "--requests 50 --dataset fixed:256,64 --json";
  const Result s0 = run(sim), s1 = run(sim + " --calibration " + profile);
  ASSERT_EQ(s0.status, 0);
  ASSERT_EQ(s1.status, 0) << s1.out;
  EXPECT_GT(number_at(s1.out, "tpot_s", "mean"), number_at(s0.out, "tpot_s", "mean") + 0.004);

  EXPECT_EQ(run("compare --gpus h100,mi300x --calibration " + profile).status, 0);
  EXPECT_EQ(run("simulate --model llama-3.1-8b --gpu h100 --calibration /nonexistent.json").status, 2);
}

// calibrate reads measurement records and writes a profile infer accepts.
TEST(CalibrationFaces, CalibrateWritesAProfileInferApplies) {
  const std::string records =
      memwall::test::source_dir() + "/docs/examples/calibrate/synthetic-vllm-h100.json";
  const auto out = (std::filesystem::path(testing::TempDir()) / "fitted.json").string();
  const Result c = run("calibrate " + records + " --out " + out + " --json");
  ASSERT_EQ(c.status, 0) << c.out;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_LT(j["groups"][0]["median_abs_error_after"].get<double>(), 0.01);
  const std::string infer = "infer --model llama-3.1-8b --gpu h100 --engine vllm --engine-version "
                            "0.10 --batch 16 --input 4096 --output 1 --json";
  const double fitted = number_at(run(infer + " --calibration " + out).out, "ttft_s");
  // The record measured 2905 ms (docs/calibrate.md); the built-in profile says about 2350.
  EXPECT_NEAR(fitted, 2.905, 0.1);
  EXPECT_EQ(run("calibrate " + records + " --out /dev/full").status, 2);
}

}  // namespace
