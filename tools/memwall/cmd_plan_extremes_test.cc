// Runs the built memwall binary on extreme but legal inputs that once exited 0 with a wrong answer
// (issue 28 item 6, reliability audit 3 section 2): each answer is right, or it is exit 3 with the
// reason in numbers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

// 1e8 users (the largest --concurrency allowed) once overflowed a 32-bit device count
// (replicas x devices per replica) into "bad input: devices: value '-1094967296'" (TPU v5e) and
// '-1540566336' (MTT S4000). Plans stay within the planner's 2^24-device bound.
TEST(PlanExtremes, AHundredMillionUsersIsAnAnswerNotAnOverflow) {
  const std::string args =
      "plan infer --concurrency 100000000 --gpus google-tpu-v5e,moorethreads-mtt-s4000 --quality any";
  const Result err = run(args, "2>&1 >/dev/null");
  EXPECT_EQ(err.out.find("bad input"), std::string::npos) << err.out;
  const Result r = run(args + " --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["plans"].empty());
  for (const auto& p : j["plans"]) {
    EXPECT_GT(p["devices"].get<double>(), 0);
    EXPECT_LE(p["devices"].get<double>(), 1 << 24);
    EXPECT_GT(p["replicas"].get<double>(), 0);
  }
}

// A plan that is shown meets its SLA: the steady state's fixed point once stopped unconverged and
// listed a 405B plan on B200 at TPOT 61.7 ms under "TPOT <= 50 ms".
TEST(PlanExtremes, EveryShownPlanMeetsItsTpot) {
  const Result r = run("plan infer --model llama-3.1-405b --rate 500 --gpus b200 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["plans"].empty());
  for (const auto& p : j["plans"]) {
    EXPECT_LE(p["tpot_s"].get<double>(), 0.05 + 1e-12);
    EXPECT_LE(p["ttft_p99_s"].get<double>(), 1.0 + 1e-12);
  }
}

// Prompts beyond the model's context (131,072 positions for Llama 3.1 8B) are refused with the
// numbers (exit 3) by plan and by infer with an offload, as plain infer refuses them.
TEST(PlanExtremes, PromptsBeyondTheContextAreRefused) {
  Result r =
      run("plan infer --model llama-3.1-8b --concurrency 1 --input 1000000 --output 16 --gpus h100 "
          "--sla ttft_p99=100000,tpot_p99=100",
          "2>&1");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("1000000 positions exceed the 131072 context"), std::string::npos) << r.out;
  r = run("infer --model llama-3.1-8b --gpu h100 --input 1000000 --output 128 --offload auto",
          "2>&1");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("1000127 positions exceed the 131072 context"), std::string::npos) << r.out;
  r = run("infer --model llama-3.1-8b --gpu h100 --input 1000000 --output 128 --offload kv",
          "2>&1");
  EXPECT_EQ(r.status, 3);
}

}  // namespace
