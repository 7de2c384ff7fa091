// Every command-line option range-checked: NaN, infinities, out-of-range integers, empty or zero
// values and contradictory options are refused with exit 2 and a message naming the option, the
// value and what is allowed (reliability audit 3, defects 13-16 and 18).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::run;

struct Refused {
  const char* args;
  const char* message;  // a part of stderr that must appear
};

const char* kInfer = "infer --model llama-3.1-8b --gpu h100 --input 512 --output 128 ";
const char* kSimulate =
    "simulate --model llama-3.1-8b --gpu h100 --rate 4 --requests 50 "
    "--dataset fixed:256,64 ";
const char* kTrain =
    "train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 1 "
    "--global-batch 64 --seq 4096 ";
const char* kPlan = "plan infer --model llama-3.1-8b --concurrency 32 --input 512 --output 128 ";

void expect_refused(const std::string& args, const std::string& message, int status = 2) {
  const auto r = run(args, "2>&1 >/dev/null");
  EXPECT_EQ(r.status, status) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
}

TEST(OptionsCli, NanAndInfinitiesRefused) {
  expect_refused(std::string(kPlan) + "--gpus h100 --confidence nan",
                 "--confidence: value 'nan' is not allowed; allowed: a finite number");
  expect_refused("probe --quick --device host --sustained-seconds nan",
                 "--sustained-seconds: value 'nan' is not allowed; allowed: a finite number");
  expect_refused(std::string(kSimulate) + "--watermark inf", "--watermark: value 'inf'");
  // 1e-300 requests/s: 2e302 s between requests, every latency printed as 0.000.
  expect_refused(
      "simulate --model llama-3.1-8b --gpu h100 --rate 1e-300 --requests 200 "
      "--dataset fixed:256,64",
      "rate: value '1e-300' is not allowed; allowed: at least requests / 1e9 s = "
      "2e-07 requests/s for 200 requests");
  expect_refused(std::string(kTrain) + "--tokens 1e300",
                 "tokens: value '1e+300' is not allowed; allowed: a positive count up to 1e16");
}

TEST(OptionsCli, EngineVersionsThatDoNotExistRefused) {
  for (const char* v : {"99", "-1", "0.6abc", "''", "0..6"})
    expect_refused(std::string(kInfer) + "--engine vllm --engine-version " + v,
                   "allowed: vllm@0.14, vllm@0.8, vllm@0.6");
  expect_refused(std::string(kInfer) + "--engine-version 0.6",
                 "--engine-version: value '0.6' is not allowed; allowed: only with --engine NAME");
  expect_refused(std::string(kSimulate) + "--engine-version 0.6", "only with --engine NAME");
  // A patch release of a profile's version is that profile.
  EXPECT_EQ(run(std::string(kInfer) + "--engine vllm --engine-version 0.14.2").status, 0);
  EXPECT_EQ(run(std::string(kInfer) + "--engine vllm --engine-version 0.10.2").status, 0);
}

TEST(OptionsCli, IntegersOutOfRangeNameTheRange) {
  expect_refused(std::string(kSimulate) + "--seed -1",
                 "--seed: value '-1' is not allowed; allowed: a whole number from 0 to "
                 "18446744073709551615");
  expect_refused(std::string(kSimulate) + "--seed 18446744073709551616", "--seed: value");
  expect_refused(std::string(kInfer) + "--tp 2147483648",
                 "--tp: value '2147483648' is not allowed; allowed: a whole number from "
                 "-2147483648 to 2147483647");
  expect_refused(std::string(kInfer) + "--dp 9223372036854775807",
                 "--dp: value '9223372036854775807' is not allowed; allowed: a whole number");
  expect_refused(std::string(kInfer) + "--scheduler-steps 9223372036854775808",
                 "--scheduler-steps: value '9223372036854775808' is not allowed");
  expect_refused(std::string(kInfer) +
                     "--weight-precision int4 --weight-group-size "
                     "9223372036854775807",
                 "--weight-group-size: value '9223372036854775807' is not allowed");
  expect_refused("infer --model llama-3.1-8b --gpu h100 --input 1.5 --output 128",
                 "--input: value '1.5' is not allowed; allowed: a whole number");
  expect_refused(std::string(kPlan) + "--gpus h100 --max-gpus 9223372036854775808",
                 "--max-gpus: value '9223372036854775808' is not allowed");
  expect_refused(std::string(kPlan) + "--gpus h100 --verify 99999999999",
                 "--verify: value '99999999999' is not allowed");
  expect_refused(
      "train --model llama-3.1-8b --gpu h100 --gpus 9223372036854775808 --micro-batch 1 "
      "--global-batch 64 --seq 4096",
      "--gpus: value '9223372036854775808' is not allowed");
}

TEST(OptionsCli, EmptyOrZeroIsNotNotGiven) {
  expect_refused(std::string(kPlan) + "--gpus ''",
                 "--gpus: value '' is not allowed; allowed: a comma list of accelerator ids");
  expect_refused(std::string(kPlan) + "--gpus h100 --vendors ,", "--vendors: value ','");
  expect_refused("monitor --serve '' --once --nvml-library /nonexistent.so", "--serve: value ''");
  expect_refused(std::string(kSimulate) + "--kv-capacity-tokens 0",
                 "--kv-capacity-tokens: value '0' is not allowed");
  expect_refused(std::string(kSimulate) + "--max-len 0", "max-len: value '0' is not allowed");
  expect_refused(std::string(kSimulate) + "--token-budget 0",
                 "--token-budget: value '0' is not allowed");
  expect_refused(std::string(kInfer) + "--weight-precision int4 --weight-group-size 0",
                 "--weight-group-size: value '0' is not allowed; allowed: an integer in [1, "
                 "1048576]");
}

TEST(OptionsCli, ContradictionsRefused) {
  expect_refused(std::string(kTrain) + "--fp8-recipe blockwise",
                 "--fp8-recipe: value 'blockwise' is not allowed; allowed: only with --precision "
                 "fp8, not bf16");
  expect_refused(std::string(kInfer) + "--node hgx-a100",
                 "--node: value 'hgx-a100' is not allowed; allowed: a node built from a Hopper "
                 "accelerator like nvidia-h100-sxm (--gpu); hgx-a100 holds nvidia-a100");
  EXPECT_EQ(run("infer --model llama-3.1-8b --gpu a100-40gb --input 512 --output 128 --node "
                "hgx-a100")
                .status,
            0);
  expect_refused("compare --domestic-only --vendors nvidia",
                 "--domestic-only with --vendors nvidia: these filters exclude every one of the");
  expect_refused(std::string(kPlan) + "--domestic-only --vendors nvidia",
                 "--domestic-only with --vendors nvidia: these filters exclude every one of the");
  expect_refused("compare --domestic-only --gpus h100",
                 "--domestic-only: these filters exclude every one of the 1 accelerators asked "
                 "(vendors NVIDIA)");
}

TEST(OptionsCli, MessagesSayWhatIsWrongInNumbers) {
  expect_refused(std::string(kTrain) + "--tp 16",
                 "TP x CP x PP = 16 x 1 x 1 = 16 does not divide the 8 GPUs (DP would be 8 / 16)",
                 3);
  expect_refused(
      "train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 1 --global-batch "
      "64 --seq 2000000000",
      "seq: value '2000000000' is not allowed; allowed: 1 to 67108864 tokens");
  // 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine.
  expect_refused("ui --host 192.0.2.1 --port 0",
                 "--host: value '192.0.2.1' is not allowed; allowed: an address of this machine");
}

}  // namespace

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

// A host profile claiming 1e300 B/s was printed as "1e288 GB/s measured".
TEST(OptionsCli, ImpossibleMeasurementsRefused) {
  const std::string profile = write_temp(
      "hp-huge.json",
      R"({"probe":{"host":{"stream":{"kernels":{"triad":{"best_bytes_per_s":1e300}}}}}})");
  expect_refused(
      "infer --model llama-3.1-70b --gpu h100 --input 512 --output 128 --offload auto "
      "--host-profile " +
          profile,
      "a STREAM triad of at most 1e13 B/s");
  const std::string cases = write_temp(
      "val-neg.json",
      R"([{"id":"neg-case","kind":"microbench","metric":"tflops","unit":"TFLOP/s","value":-137}])");
  expect_refused("validate " + cases,
                 "case neg-case: value: value '-137' is not allowed; allowed: a measured value "
                 ">= 0");
}

// `validate --kind training --calibrate-on 2` printed the inference report under a training ask.
TEST(OptionsCli, CalibrateOnRefusesKindsItCannotFit) {
  expect_refused("validate --kind memory --calibrate-on 2",
                 "--kind: value 'memory' is not allowed; allowed: inference (or no --kind) or "
                 "training with --calibrate-on");
  expect_refused("validate --calibrate-on 2 --fit-uncertainty", "--fit-uncertainty: value 'given'");
}

}  // namespace
