// `memwall monitor --source amd|ascend|gaudi` end to end through the fake vendor libraries
// (tools/memwall/testdata/fake_amdsmi.cc, fake_dcmi.cc, fake_hlml.cc): dlopen, sampling and one
// JSON object with the exact readings each fake reports; a missing library (exit 3, naming the
// library and its package), a failing call and no devices (exit 3, named), and bad selectors
// (exit 2).
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"
#include "memwall/monitor/fake_libraries.h"

namespace {

using memwall::cli_test::run;
using memwall::test::fake_source_library;

nlohmann::json once(const std::string& source) {
  const auto r = run("monitor --once --interval-ms 100 --json --source " + source + " --library " +
                     fake_source_library(source));
  EXPECT_EQ(r.status, 0) << source;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(MonitorSources, AmdOnceGivesTheFakesReadings) {
  const auto j = once("amd");
  EXPECT_EQ(j["source"], "amd");
  ASSERT_EQ(j["readings"].size(), 2u);
  const auto& g0 = j["readings"][0];
  EXPECT_EQ(g0["uuid"], "fake-amd-0");
  EXPECT_EQ(g0["name"], "AMD Instinct MI300X (fake)");
  EXPECT_DOUBLE_EQ(g0["gpu_util_ratio"].get<double>(), 0.87);
  EXPECT_DOUBLE_EQ(g0["dram_bw_util_ratio"].get<double>(), 0.41);  // UMC activity 41 %
  EXPECT_FALSE(g0.contains("sm_active_ratio"));
  EXPECT_DOUBLE_EQ(g0["power_w"].get<double>(), 650);
  EXPECT_DOUBLE_EQ(g0["memory_used_bytes"].get<double>(), 68719476736.0);
  EXPECT_DOUBLE_EQ(g0["sm_clock_mhz"].get<double>(), 2100);
  EXPECT_DOUBLE_EQ(g0["temperature_c"].get<double>(), 71);
  const auto& g1 = j["readings"][1];
  EXPECT_DOUBLE_EQ(g1["power_w"].get<double>(), 420);
  EXPECT_FALSE(g1.contains("dram_bw_util_ratio"));  // unknown, not 0
  EXPECT_FALSE(g1.contains("sm_clock_mhz"));
}

TEST(MonitorSources, AscendOnceGivesTheFakesReadings) {
  const auto j = once("ascend");
  EXPECT_EQ(j["source"], "ascend");
  ASSERT_EQ(j["readings"].size(), 2u);
  const auto& n0 = j["readings"][0];
  EXPECT_EQ(n0["name"], "Ascend 910B3");
  EXPECT_DOUBLE_EQ(n0["sm_active_ratio"].get<double>(), 0.62);
  EXPECT_DOUBLE_EQ(n0["tensor_active_ratio"].get<double>(), 0.55);
  EXPECT_DOUBLE_EQ(n0["dram_bw_util_ratio"].get<double>(), 0.71);
  EXPECT_DOUBLE_EQ(n0["gpu_util_ratio"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(n0["power_w"].get<double>(), 310.5);
  EXPECT_DOUBLE_EQ(n0["memory_total_bytes"].get<double>(), 68719476736.0);
  EXPECT_DOUBLE_EQ(n0["sm_clock_mhz"].get<double>(), 1800);
  const auto& n1 = j["readings"][1];
  EXPECT_DOUBLE_EQ(n1["dram_bw_util_ratio"].get<double>(), 0.33);
  EXPECT_FALSE(n1.contains("power_w"));
  EXPECT_FALSE(n1.contains("tensor_active_ratio"));
}

TEST(MonitorSources, GaudiOnceGivesTheFakesReadings) {
  const auto j = once("gaudi");
  EXPECT_EQ(j["source"], "gaudi");
  ASSERT_EQ(j["readings"].size(), 2u);
  const auto& d0 = j["readings"][0];
  EXPECT_EQ(d0["uuid"], "fake-gaudi-0");
  EXPECT_DOUBLE_EQ(d0["gpu_util_ratio"].get<double>(), 0.93);
  EXPECT_DOUBLE_EQ(d0["power_w"].get<double>(), 812.345);
  EXPECT_DOUBLE_EQ(d0["memory_total_bytes"].get<double>(), 137438953472.0);
  EXPECT_DOUBLE_EQ(d0["sm_clock_mhz"].get<double>(), 1600);
  EXPECT_FALSE(d0.contains("dram_bw_util_ratio"));
  EXPECT_FALSE(j["readings"][1].contains("power_w"));
}

// The text view names the memory controller's busy share beside the device, not as DRAM bw.
// UMC activity is the DRAM column's reading (sample.h), as through the AMD exporter.
TEST(MonitorSources, AmdTextViewShowsUmcActivityInTheDramColumn) {
  const auto r =
      run("monitor --once --interval-ms 100 --source amd --library " + fake_source_library("amd"));
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("41.0%"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("memory controller busy"), std::string::npos) << r.out;
}

TEST(MonitorSources, AMissingLibraryExits3NamingItAndItsPackage) {
  const auto r = run("monitor --once --source amd --library /nonexistent/libamd_smi.so", "2>&1");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("no amd-smi library found (/opt/rocm/lib/libamd_smi.so is installed by "
                       "ROCm's amd-smi-lib package"),
            std::string::npos)
      << r.out;
  const auto d = run("monitor --once --source ascend --library /nonexistent/libdcmi.so", "2>&1");
  EXPECT_EQ(d.status, 3);
  EXPECT_NE(d.out.find("no DCMI library found"), std::string::npos) << d.out;
  const auto h = run("monitor --once --source gaudi --library /nonexistent/libhlml.so", "2>&1");
  EXPECT_EQ(h.status, 3);
  EXPECT_NE(h.out.find("no hlml library found"), std::string::npos) << h.out;
}

TEST(MonitorSources, AFailingCallAndNoDevicesExit3Named) {
  setenv("MEMWALL_FAKE_FAIL", "dcmi_init", 1);
  const auto r =
      run("monitor --once --source ascend --library " + fake_source_library("ascend"), "2>&1");
  unsetenv("MEMWALL_FAKE_FAIL");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("dcmi_init failed: DCMI error -8008"), std::string::npos) << r.out;
  setenv("MEMWALL_FAKE_DEVICES", "0", 1);
  const auto g =
      run("monitor --once --source gaudi --library " + fake_source_library("gaudi"), "2>&1");
  unsetenv("MEMWALL_FAKE_DEVICES");
  EXPECT_EQ(g.status, 3);
  EXPECT_NE(g.out.find("hlml found no Gaudi device"), std::string::npos) << g.out;
}

TEST(MonitorSources, BadSelectorsExit2) {
  const auto r = run("monitor --once --source rocm", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--source: value 'rocm' is not allowed; allowed: one of nvml, amd, "
                       "ascend, gaudi"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(run("monitor --once --source amd --nvml-library /x.so").status, 2);
  EXPECT_EQ(run("monitor --replay /dev/null --source amd").status, 2);
  EXPECT_EQ(run("monitor --prometheus http://127.0.0.1:1 --library /x.so").status, 2);
  // NVML through the new --library flag, as through --nvml-library.
  const auto n =
      run("monitor --once --interval-ms 100 --json --library " + fake_source_library("nvml"));
  ASSERT_EQ(n.status, 0);
  EXPECT_EQ(nlohmann::json::parse(n.out)["source"], "nvml");
}

}  // namespace
