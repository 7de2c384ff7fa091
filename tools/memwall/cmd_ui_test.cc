// `memwall ui --report FILE` writes the page with the default answers preloaded; bad options exit 2.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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
  EXPECT_EQ(html.find("<script src="), std::string::npos);            // the chart library inline: no server needed
  EXPECT_NE(html.find("简体中文"), std::string::npos);
  std::remove(path.c_str());
}

TEST(UiCli, BadOptionsExitTwo) {
  EXPECT_EQ(cli_test::run("ui --port 70000").status, 2);
  // A calibration profile is read before the server listens: missing or malformed, exit 2.
  EXPECT_EQ(cli_test::run("ui --calibration /nonexistent.json --port 0").status, 2);
  const std::string bad = ::testing::TempDir() + "memwall_ui_badcal_" + std::to_string(getpid()) + ".json";
  std::ofstream(bad) << R"({"memory_bandwidth_fraction": {"default": 7}})";
  const auto r = cli_test::run("ui --calibration " + bad + " --port 0", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("memory_bandwidth_fraction"), std::string::npos) << r.out;
  std::remove(bad.c_str());
  EXPECT_EQ(cli_test::run("ui --report /nonexistent-dir/x.html").status, 2);
}

// A second server on a port already served does not share it (no SO_REUSEPORT): exit 2.
TEST(UiCli, APortInUseExitsTwo) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  EXPECT_EQ(cli_test::run("ui --port " + std::to_string(port)).status, 2);
  const auto zh = cli_test::run("ui --lang zh --port " + std::to_string(port), "2>&1");
  EXPECT_NE(zh.out.find("输入有误"), std::string::npos) << zh.out;
  ::close(fd);
}

TEST(UiCli, BadLanguageExitsTwo) { EXPECT_EQ(cli_test::run("ui --lang fr --port 70000").status, 2); }

}  // namespace
}  // namespace memwall::cli
