// Runs the built memwall binary: the CLI contract of `memwall train` (exit codes, --json keys).
#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

const std::string kGpt3 =
    "train --model gpt3-175b --gpu a100 --gpus 1024 --tp 8 --pp 8 --micro-batch 1 "
    "--global-batch 1536 --seq 2048 --recompute selective --sequence-parallel --zero 1";

TEST(TrainCli, JsonCarriesTheContractKeys) {
  const Result r = run(kGpt3 + " --tokens 300e9 --price-per-gpu-hour 2 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);  // exactly one JSON object on stdout
  for (const char* k : {"step_time_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu",
                        "memory_per_gpu_bytes", "hfu", "breakdown", "memory_breakdown", "train"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["node"], "hgx-a100");
  EXPECT_EQ(j["fabric"], "ib-hdr");
  EXPECT_EQ(j["config"]["dp"], 16);
  // The breakdown sums to the step time; MFU = model TFLOP/s / 312.
  double sum = 0;
  for (const auto& [k, v] : j["breakdown"].items()) sum += v.get<double>();
  EXPECT_NEAR(sum, j["step_time_s"].get<double>(), 1e-9);
  EXPECT_NEAR(j["mfu"].get<double>(), j["model_tflops_per_gpu"].get<double>() / 312.0, 1e-9);
  EXPECT_GT(j["mfu"].get<double>(), 0.3);
  EXPECT_LT(j["mfu"].get<double>(), 0.7);
  EXPECT_NEAR(j["train"]["cost_usd"].get<double>(), 2 * j["train"]["gpu_hours"].get<double>(),
              1e-6);
}

TEST(TrainCli, ImpossibleConfigurationsExit3AndBadInputExit2) {
  EXPECT_EQ(run(kGpt3 + " --dp 15 --json").status, 3);  // 8 x 8 x 15 != 1024
  EXPECT_EQ(run("train --model gpt3-175b --gpu a100 --gpus 8 --tp 8 --micro-batch 1 "
                "--global-batch 8 --seq 2048")
                .status,
            3);  // 175B on one node does not fit
  EXPECT_EQ(run(kGpt3 + " --precision fp8").status, 3);  // A100 has no fp8 path
  EXPECT_EQ(run(kGpt3 + " --tp 0").status, 2);
  EXPECT_EQ(run(kGpt3 + " --recompute some").status, 2);
  EXPECT_EQ(run(kGpt3 + " --tokens nan").status, 2);
  EXPECT_EQ(run(kGpt3 + " --tokens -1").status, 2);
  EXPECT_EQ(run(kGpt3 + " --zero 7").status, 2);
  EXPECT_EQ(run(kGpt3 + " --flash-attention-version 4").status, 2);
  EXPECT_EQ(run("train --model gpt3-175bb --gpu a100 --gpus 8 --micro-batch 1 --global-batch 8 "
                "--seq 2048")
                .status,
            2);
}

}  // namespace

namespace {

const std::string k8bOn4090 =
    "train --model llama-3.1-8b --gpu 4090 --gpus 1 --micro-batch 1 --global-batch 16 --seq 2048";

TEST(TrainCli, OffloadNamedOnExit3AndAnsweredWithIt) {
  const Result no = run(k8bOn4090, "2>&1");
  EXPECT_EQ(no.status, 3);
  EXPECT_NE(no.out.find("--offload optimizer:cpu would fit it"), std::string::npos) << no.out;
  const Result yes = run(k8bOn4090 + " --offload optimizer:cpu --json");
  ASSERT_EQ(yes.status, 0);
  const auto j = nlohmann::json::parse(yes.out);
  for (const char* k : {"strategy", "gpu_bytes_per_gpu", "gpu_bytes_saved_per_gpu",
                        "host_bytes_per_node", "nvme_bytes_per_node",
                        "transfer_time_per_iteration_s", "cpu_step_time_per_iteration_s", "bound",
                        "host"})
    EXPECT_TRUE(j["offload"].contains(k)) << k;
  EXPECT_LE(j["memory_per_gpu_bytes"].get<double>(), 24.0 * (1 << 30));
  double sum = 0;
  for (const auto& [k, v] : j["breakdown"].items()) sum += v.get<double>();
  EXPECT_NEAR(sum, j["step_time_s"].get<double>(), 1e-9);
  EXPECT_EQ(run(k8bOn4090 + " --offload optimizer:gpu").status, 2);
  EXPECT_EQ(run(k8bOn4090 + " --offload params:cpu --zero 2").status, 2);
  EXPECT_EQ(run(k8bOn4090 + " --delayed-update").status, 2);
  EXPECT_EQ(run(k8bOn4090 + " --offload optimizer:cpu --host-memory 32").status, 3);
}

// A run that does not fit at --recompute selective is offered full recomputation first when it
// fits and is faster than the offload (seed audit 3 D12: only --offload optimizer:cpu, 4.41 s, was
// offered where --recompute full fits at 50.2 GiB and steps in 3.89 s).
TEST(TrainCli, FullRecomputeIsOfferedBeforeASlowerOffload) {
  const Result r = run("train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 2 --global-batch 64 "
                       "--seq 4096 --recompute selective",
                       "2>&1");
  EXPECT_EQ(r.status, 3);
  const size_t full = r.out.find("--recompute full would fit it: 50.2 GiB per GPU, step 3.89 s");
  const size_t offload = r.out.find("--offload optimizer:cpu would fit it");
  ASSERT_NE(full, std::string::npos) << r.out;
  ASSERT_NE(offload, std::string::npos) << r.out;
  EXPECT_LT(full, offload) << r.out;
  EXPECT_NE(r.out.find("step 4.41 s"), std::string::npos) << r.out;
}

}  // namespace
