// Runs the built memwall binary: the CLI contract of `memwall infer` and `memwall validate`
// (exit codes, one JSON object with the contract's fields).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "memwall/core/test_paths.h"

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

TEST(InferCli, JsonHasTheContractFields) {
  const Result r = run("infer --model llama-3.1-70b --gpu h100 --tp 4 --batch 8 --input 512 "
                       "--output 128 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"ttft_s", "tpot_s", "e2e_s", "throughput_tokens_per_s",
                        "throughput_tokens_per_s_per_device", "memory_per_gpu_bytes", "max_batch",
                        "bound", "mfu", "mbu", "memory", "assumptions", "overlap"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GT(j["ttft_s"].get<double>(), 0);
  EXPECT_GT(j["tpot_s"].get<double>(), 0);
  EXPECT_NEAR(j["e2e_s"].get<double>(),
              j["ttft_s"].get<double>() + 127 * j["tpot_s"].get<double>(), 1e-9);
  EXPECT_NEAR(j["throughput_tokens_per_s"].get<double>(), 8 * 128 / j["e2e_s"].get<double>(),
              1e-6);
  // KV for 8 x 640 tokens at 327,680 / 4 B per device.
  EXPECT_DOUBLE_EQ(j["memory"]["kv_cache_bytes"].get<double>(), 8.0 * 640 * 81920);
}

// Every figure has an 80 % interval around it; a probe profile of the same device narrows it.
TEST(InferCli, IntervalsAroundEveryFigure) {
  const std::string args = "infer --model llama-3.1-8b --gpu h100 --input 512 --output 128 --json";
  const Result r = run(args);
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"ttft_s", "tpot_s", "e2e_s", "throughput_tokens_per_s", "mfu", "mbu"}) {
    ASSERT_TRUE(j["intervals"].contains(k)) << k;
    EXPECT_LT(j["intervals"][k][0].get<double>(), j[k].get<double>()) << k;
    EXPECT_GT(j["intervals"][k][1].get<double>(), j[k].get<double>()) << k;
  }
  const Result p = run(args + std::string(" --calibration ") + memwall::test::source_dir() +
                       "/tools/memwall/testdata/probe-profile-h100.json");
  ASSERT_EQ(p.status, 0);
  const auto c = nlohmann::json::parse(p.out);
  auto ratio = [](const nlohmann::json& x) {
    return x["intervals"]["tpot_s"][1].get<double>() / x["intervals"]["tpot_s"][0].get<double>();
  };
  EXPECT_LT(ratio(c), ratio(j));
  const Result text = run("infer --model llama-3.1-8b --gpu h100 --input 512 --output 128");
  EXPECT_NE(text.out.find("ms ("), std::string::npos);
  EXPECT_NE(text.out.find("80 % interval"), std::string::npos);
}

// Families without evidence run on their vendor's conservative prior and say so (docs/infer.md
// "Uncalibrated families"); NVIDIA parts stay calibrated.
TEST(InferCli, UncalibratedFamiliesAreMarked) {
  const Result ascend = run("infer --model llama-3.1-8b --gpu 910b --tp 1 --batch 8 --input 512 --output 128 --json");
  ASSERT_EQ(ascend.status, 0);
  const auto a = nlohmann::json::parse(ascend.out);
  EXPECT_EQ(a["efficiency"], "uncalibrated");
  EXPECT_NE(a["deployment"]["ceilings"]["efficiency_source"].get<std::string>().find("Ascend"), std::string::npos);
  const Result h100 = run("infer --model llama-3.1-8b --gpu h100 --tp 1 --batch 8 --input 512 --output 128 --json");
  EXPECT_EQ(nlohmann::json::parse(h100.out)["efficiency"], "calibrated");
  const Result text = run("infer --model llama-3.1-8b --gpu gaudi3 --tp 1 --batch 8 --input 512 --output 128");
  EXPECT_NE(text.out.find("UNCALIBRATED"), std::string::npos) << text.out;
}

TEST(InferCli, BatchMaxAndSweep) {
  const Result m = run("infer --model llama-3.1-8b --gpu h100 --batch max --input 1024 "
                       "--output 1024 --json");
  ASSERT_EQ(m.status, 0);
  const auto j = nlohmann::json::parse(m.out);
  EXPECT_EQ(j["batch"], j["max_batch"]);
  const Result s = run("infer --model llama-3.1-8b --gpu h100 --batch 1,8,64 --input 128 "
                       "--output 128 --json");
  ASSERT_EQ(s.status, 0);
  EXPECT_EQ(nlohmann::json::parse(s.out)["sweep"].size(), 3u);
}

TEST(InferCli, BadAndImpossibleInputs) {
  EXPECT_EQ(run("infer --model llama-3.1-70b --gpu h100 --tp 3 --input 8 --output 8").status, 3);
  EXPECT_EQ(run("infer --model llama-3.1-70b --gpu h100 --pp 81 --tp 1 --input 8 --output 8 "
                "--node hgx-h100").status, 3);
  EXPECT_EQ(run("infer --model llama-3.1-8b --gpu a100 --weight-precision fp8 --input 8 "
                "--output 8").status, 3);
  EXPECT_EQ(run("infer --model llama-3.1-70b --gpu h100 --input 8 --output 8").status, 3);
  EXPECT_EQ(run("infer --model llama-3.1-8b --gpu h100 --batch abc --input 8 --output 8").status,
            2);
  EXPECT_EQ(run("infer --model llama-3.1-8b --gpu h100 --input 0 --output 8").status, 2);
  EXPECT_EQ(run("infer --model llama-9 --gpu h100 --input 8 --output 8").status, 2);
  EXPECT_EQ(run("infer --model llama-3.1-8b --gpu h100 --input 8 --output 8 "
                "--memory-utilization nan").status, 2);
}

TEST(ValidateCli, JsonSummary) {
  const Result r = run(std::string("validate ") + memwall::test::source_dir() +
                       "/validation/dev-cases.json --kind microbench --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  // The original microbench set, the all-to-all and the domestic (FlagPerf Ascend GEMM) cases
  // reported apart as their groups, and all three pooled.
  ASSERT_EQ(j["summary"].size(), 4u);
  EXPECT_EQ(j["summary"][0]["kind"], "microbench");
  EXPECT_EQ(j["summary"][1]["kind"], "microbench/alltoall");
  EXPECT_EQ(j["summary"][2]["kind"], "microbench/domestic");
  EXPECT_EQ(j["summary"][3]["kind"], "microbench (all)");
  EXPECT_EQ(j["summary"][3]["predicted"], j["summary"][0]["predicted"].get<int>() +
                                              j["summary"][1]["predicted"].get<int>() +
                                              j["summary"][2]["predicted"].get<int>());
  EXPECT_EQ(run("validate /nonexistent.json").status, 2);
}

// With no file, validate runs the repository's cases compiled into the binary: the same report as
// the file in validation/, whatever the working directory.
TEST(ValidateCli, NoFileRunsTheBuiltInDevCases) {
  const Result builtin = run("validate --kind microbench --json");
  ASSERT_EQ(builtin.status, 0);
  const Result file = run(std::string("validate ") + memwall::test::source_dir() +
                          "/validation/dev-cases.json --kind microbench --json");
  ASSERT_EQ(file.status, 0);
  EXPECT_EQ(nlohmann::json::parse(builtin.out), nlohmann::json::parse(file.out));
  EXPECT_GE(nlohmann::json::parse(builtin.out)["cases"].size(), 20u);
}

TEST(VersionCli, NamesVersionAndCommit) {
  const Result r = run("--version");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("memwall 0."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
}

}  // namespace

// vLLM 0.6's multi-step scheduling: one scheduler call per N iterations divides the host work
// of each; outside 1-1024 the flag is bad input naming the field.
TEST(InferCli, SchedulerStepsDivideTheHostWork) {
  const std::string base = "infer --model llama-3.1-8b --gpu a100 --engine vllm --engine-version 0.6 "
                           "--batch max --input 200 --output 200 --json ";
  const auto one = run(base), ten = run(base + "--scheduler-steps 10");
  ASSERT_EQ(one.status, 0);
  ASSERT_EQ(ten.status, 0);
  const auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(ten.out);
  EXPECT_GT(b["throughput_tokens_per_s"].get<double>(), a["throughput_tokens_per_s"].get<double>());
  const auto bad = run(base + "--scheduler-steps 0", "2>&1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("scheduler_steps"), std::string::npos) << bad.out;
  EXPECT_EQ(run("simulate --model llama-3.1-8b --gpu a100 --engine vllm --engine-version 0.6 "
                "--engine-limits --rate 5 --requests 20 --scheduler-steps 2000").status, 2);
  EXPECT_EQ(run("simulate --model llama-3.1-8b --gpu a100 --engine vllm --engine-version 0.6 "
                "--engine-limits --rate 5 --requests 20 --scheduler-steps 8").status, 0);
}
