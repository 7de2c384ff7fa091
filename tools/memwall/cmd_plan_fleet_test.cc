// Runs the built memwall binary: `plan fleet` over the example week (docs/plan.md "Fleet").
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"
#include "memwall/core/test_paths.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

const std::string kWeek =
    "plan fleet --model llama-3.1-70b --input 1024 --output 256 --demand " +
    memwall::test::source_dir() + "/docs/examples/fleet/diurnal-week.csv";

TEST(PlanFleetCli, PrintsTheSavingAndTheSameAnswerAsJson) {
  const Result text = run(kWeek);
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("saving against sizing for the peak around the clock: $"), std::string::npos);
  EXPECT_NE(text.out.find("every hour meets the SLA in the simulator"), std::string::npos);
  EXPECT_NE(text.out.find("assumption: repair: 24 h per failed replica (assumed"), std::string::npos);
  const Result json = run(kWeek + " --json");
  ASSERT_EQ(json.status, 0);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["hours"].size(), 168u);
  EXPECT_TRUE(j["all_hours_meet_sla"].get<bool>());
  EXPECT_GT(j["saving_usd"].get<double>(), 0);
  EXPECT_NE(text.out.find(fmt::format("${:.0f}", j["saving_usd"].get<double>())), std::string::npos);
  // Given values are stated as given.
  const Result given = run(kWeek + " --repair-hours 4 --startup-s 120 --check-requests 0 --json");
  ASSERT_EQ(given.status, 0);
  const auto g = nlohmann::json::parse(given.out);
  EXPECT_EQ(g["assumptions"][1], "repair: 4 h per failed replica (given)");
  EXPECT_LE(g["replica_unavailability"].get<double>(), j["replica_unavailability"].get<double>());
}

TEST(PlanFleetCli, BadDemandAndOptionsExitTwoNamingThem) {
  const std::string path = ::testing::TempDir() + "/fleet-gap.csv";
  {
    std::ofstream f(path);
    f << "hour,rate_per_s\n0,5\n3,5\n";
  }
  const Result gap = run("plan fleet --model llama-3.1-8b --demand " + path, "2>&1 >/dev/null");
  EXPECT_EQ(gap.status, 2);
  EXPECT_NE(gap.out.find(path + ":3: hour: value '3' is not allowed; allowed: 1"), std::string::npos)
      << gap.out;
  const Result missing = run("plan fleet --model llama-3.1-8b", "2>&1 >/dev/null");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("--demand"), std::string::npos) << missing.out;
  const Result avail = run(kWeek + " --availability 1", "2>&1 >/dev/null");
  EXPECT_EQ(avail.status, 2);
  EXPECT_NE(avail.out.find("availability: value '1' is not allowed"), std::string::npos) << avail.out;
  std::remove(path.c_str());
}

}  // namespace
