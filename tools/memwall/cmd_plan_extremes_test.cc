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
      "plan infer --concurrency 100000000 --gpus google-tpu-v5e,moorethreads-mtt-s4000";
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

}  // namespace
