// `memwall ui --report FILE` writes the page with the default answers preloaded; bad options exit 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli_test_util.h"

namespace memwall::cli {
namespace {

TEST(UiCli, ReportCarriesThePageAndTheDefaultAnswers) {
  // One file per test process: parallel runs (other checkouts' ctest) must not share it.
  const std::string path =
      ::testing::TempDir() + "memwall_report_" + std::to_string(getpid()) + ".html";
  ASSERT_EQ(cli_test::run("ui --report " + path).status, 0);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  const std::string html = s.str();
  EXPECT_NE(html.find("window.MEMWALL_PRELOAD = {"), std::string::npos);
  EXPECT_NE(html.find("\"pareto_throughput\""), std::string::npos);  // the planner's answer
  EXPECT_NE(html.find("\"operators\""), std::string::npos);          // the roofline's points
  EXPECT_NE(html.find("简体中文"), std::string::npos);
  std::remove(path.c_str());
}

TEST(UiCli, BadOptionsExitTwo) {
  EXPECT_EQ(cli_test::run("ui --port 70000").status, 2);
  EXPECT_EQ(cli_test::run("ui --report /nonexistent-dir/x.html").status, 2);
}

}  // namespace
}  // namespace memwall::cli
