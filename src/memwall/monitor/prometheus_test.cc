// The Prometheus text of fixed samples, line by line.
#include "memwall/monitor/prometheus.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>

#include "memwall/core/test_paths.h"
#include "memwall/monitor/test_samples.h"

namespace memwall::monitor {
namespace {

using fixtures::h100_sample;

TEST(MonitorPrometheus, ExactTextOfAFixedSample) {
  GpuSample partial;  // a pre-Hopper GPU: no GPM readings, no throttle reasons
  partial.time_s = 1764450000.5;
  partial.index = 1;
  partial.uuid = "GPU-\"odd\"\\id";
  partial.gpu_util_ratio = 0.5;
  const std::string expected =
      "# HELP memwall_gpu_info Device identity; the value is always 1\n"
      "# TYPE memwall_gpu_info gauge\n"
      "memwall_gpu_info{gpu=\"0\",uuid=\"GPU-12345678-abcd\",name=\"NVIDIA H100 80GB HBM3\"} 1\n"
      "memwall_gpu_info{gpu=\"1\",uuid=\"GPU-\\\"odd\\\"\\\\id\",name=\"\"} 1\n"
      "# HELP memwall_gpu_sm_activity_ratio Fraction of cycles an SM had a warp resident, "
      "averaged over SMs (NVML GPM SM_UTIL)\n"
      "# TYPE memwall_gpu_sm_activity_ratio gauge\n"
      "memwall_gpu_sm_activity_ratio{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 0.42\n"
      "# HELP memwall_gpu_sm_occupancy_ratio Resident warps / maximum warps per SM, averaged over "
      "SMs (NVML GPM SM_OCCUPANCY)\n"
      "# TYPE memwall_gpu_sm_occupancy_ratio gauge\n"
      "memwall_gpu_sm_occupancy_ratio{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 0.25\n"
      "# HELP memwall_gpu_tensor_activity_ratio Tensor-pipe activity relative to its peak "
      "sustained rate (NVML GPM ANY_TENSOR_UTIL)\n"
      "# TYPE memwall_gpu_tensor_activity_ratio gauge\n"
      "memwall_gpu_tensor_activity_ratio{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 0.125\n"
      "# HELP memwall_gpu_dram_bandwidth_utilization_ratio DRAM bandwidth used / theoretical "
      "maximum (NVML GPM DRAM_BW_UTIL), or the memory interface's busy share where that is what "
      "the device reports (AMD UMC activity)\n"
      "# TYPE memwall_gpu_dram_bandwidth_utilization_ratio gauge\n"
      "memwall_gpu_dram_bandwidth_utilization_ratio{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 0.75\n"
      "# HELP memwall_gpu_utilization_ratio Share of time any kernel ran (coarse NVML "
      "utilization.gpu; not how much of the GPU)\n"
      "# TYPE memwall_gpu_utilization_ratio gauge\n"
      "memwall_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 1\n"
      "memwall_gpu_utilization_ratio{gpu=\"1\",uuid=\"GPU-\\\"odd\\\"\\\\id\"} 0.5\n"
      "# HELP memwall_gpu_memory_used_bytes Device memory in use (NVML memory info)\n"
      "# TYPE memwall_gpu_memory_used_bytes gauge\n"
      "memwall_gpu_memory_used_bytes{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 64000000000\n"
      "# HELP memwall_gpu_memory_total_bytes Device memory capacity (NVML memory info)\n"
      "# TYPE memwall_gpu_memory_total_bytes gauge\n"
      "memwall_gpu_memory_total_bytes{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 85899345920\n"
      "# HELP memwall_gpu_power_watts Board power draw (NVML power usage)\n"
      "# TYPE memwall_gpu_power_watts gauge\n"
      "memwall_gpu_power_watts{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 612.5\n"
      "# HELP memwall_gpu_temperature_celsius GPU die temperature\n"
      "# TYPE memwall_gpu_temperature_celsius gauge\n"
      "memwall_gpu_temperature_celsius{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 61\n"
      "# HELP memwall_gpu_sm_clock_hertz Current SM clock\n"
      "# TYPE memwall_gpu_sm_clock_hertz gauge\n"
      "memwall_gpu_sm_clock_hertz{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 1755000000\n"
      "# HELP memwall_gpu_memory_clock_hertz Current memory clock\n"
      "# TYPE memwall_gpu_memory_clock_hertz gauge\n"
      "memwall_gpu_memory_clock_hertz{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 2619000000\n"
      "# HELP memwall_gpu_pcie_rx_bytes_per_second PCIe bytes received by the GPU per second\n"
      "# TYPE memwall_gpu_pcie_rx_bytes_per_second gauge\n"
      "memwall_gpu_pcie_rx_bytes_per_second{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 1048576\n"
      "# HELP memwall_gpu_pcie_tx_bytes_per_second PCIe bytes sent by the GPU per second\n"
      "# TYPE memwall_gpu_pcie_tx_bytes_per_second gauge\n"
      "memwall_gpu_pcie_tx_bytes_per_second{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 2097152\n"
      "# HELP memwall_gpu_nvlink_rx_bytes_per_second NVLink bytes received per second (all "
      "links)\n"
      "# TYPE memwall_gpu_nvlink_rx_bytes_per_second gauge\n"
      "memwall_gpu_nvlink_rx_bytes_per_second{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 50000000000\n"
      "# HELP memwall_gpu_nvlink_tx_bytes_per_second NVLink bytes sent per second (all links)\n"
      "# TYPE memwall_gpu_nvlink_tx_bytes_per_second gauge\n"
      "memwall_gpu_nvlink_tx_bytes_per_second{gpu=\"0\",uuid=\"GPU-12345678-abcd\"} 45000000000\n"
      "# HELP memwall_gpu_clocks_event_reason 1 while the reason holds the clocks down (NVML "
      "clocks event reasons)\n"
      "# TYPE memwall_gpu_clocks_event_reason gauge\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\",reason=\"gpu_idle\"} "
      "0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"applications_clocks_setting\"} 0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"sw_power_cap\"} 1\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"hw_slowdown\"} 0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"sync_boost\"} 0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"sw_thermal_slowdown\"} 0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"hw_thermal_slowdown\"} 0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"hw_power_brake_slowdown\"} 0\n"
      "memwall_gpu_clocks_event_reason{gpu=\"0\",uuid=\"GPU-12345678-abcd\","
      "reason=\"display_clock_setting\"} 0\n";
  EXPECT_EQ(prometheus_text({h100_sample(), partial}), expected);
  EXPECT_EQ(prometheus_text({}), "");
}

// AMD's UMC activity is one reading whichever way it arrives: the local amd-smi source fills
// dram_bw_util_ratio with it, so memwall's own exporter writes it in the DRAM family, and the
// mapping table reads the AMD exporter's gpu_umc_activity into the same reading (sample.h).
TEST(MonitorPrometheus, AmdUmcActivityIsTheDramReadingLocallyAndThroughTheExporter) {
  GpuSample amd;
  amd.index = 0;
  amd.uuid = "fake-amd-0";
  amd.dram_bw_util_ratio = 0.41;
  const std::string text = prometheus_text({amd});
  EXPECT_NE(text.find("memwall_gpu_dram_bandwidth_utilization_ratio{gpu=\"0\",uuid=\"fake-amd-0\"} "
                      "0.41\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("memory_controller"), std::string::npos) << text;
  std::ifstream in(memwall::test::source_dir() + "/data/monitor/exporters.json");
  const Json table = Json::parse(in);
  int umc = 0;
  for (const auto& set : table["exporters"]["sets"])
    for (const auto& m : set["metrics"])
      if (m["name"] == "gpu_umc_activity") {
        ++umc;
        EXPECT_EQ(m["reading"], "dram_bw_util_ratio");
      }
  EXPECT_EQ(umc, 1);
}

// Every series the Grafana dashboard queries is one the exporter writes.
TEST(MonitorPrometheus, GrafanaDashboardQueriesExportedSeries) {
  std::ifstream in(memwall::test::source_dir() + "/tools/grafana/memwall.json");
  const std::string dashboard((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  const std::string exported = prometheus_text({h100_sample()});
  const std::regex series("memwall_gpu_[a-z_]+");
  int count = 0;
  for (auto it = std::sregex_iterator(dashboard.begin(), dashboard.end(), series);
       it != std::sregex_iterator(); ++it, ++count)
    EXPECT_NE(exported.find("\n" + it->str() + "{"), std::string::npos) << it->str();
  EXPECT_GE(count, 15);
}

}  // namespace
}  // namespace memwall::monitor
