// The rules file of the advisor's walls and the links: generated from the exporter table with the
// advisor's thresholds and, given an accelerator, its link bandwidths. The committed
// tools/prometheus/memwall-rules.yml and memwall-rules-h100.yml are that output (promtool checks
// them in scripts/check-prometheus-rules.sh, CTest label prometheus).
#include "memwall/monitor/rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/test_paths.h"

namespace memwall::monitor {
namespace {

std::string committed(const std::string& name) {
  std::ifstream in(memwall::test::source_dir() + "/tools/prometheus/" + name);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(MonitorRules, TheCommittedRulesFilesAreTheGeneratedOnes) {
  EXPECT_EQ(committed("memwall-rules.yml"), prometheus_rules(exporter_table()))
      << "regenerate: build/memwall monitor --emit-rules tools/prometheus/memwall-rules.yml";
  const Accelerator& h100 = Catalog::builtin().accelerator("h100");
  EXPECT_EQ(committed("memwall-rules-h100.yml"), prometheus_rules(exporter_table(), &h100))
      << "regenerate: build/memwall monitor --emit-rules tools/prometheus/memwall-rules-h100.yml "
         "--gpu h100";
}

// The links' traffic is recorded from the names the table maps for it (dcgm-exporter's PROF
// counters and memwall's own; AMD's pcie_bandwidth and Ascend's port rate are unmapped), whatever
// the accelerator.
TEST(MonitorRules, TheLinksTrafficIsRecordedFromTheMappedNames) {
  const std::string r = prometheus_rules(exporter_table());
  for (const char* expr :
       {"record: memwall:pcie_rx:bytes_per_second\n        expr: "
        "label_replace(label_replace(label_replace(DCGM_FI_PROF_PCIE_RX_BYTES,",
        "record: memwall:pcie_tx:bytes_per_second\n        expr: "
        "label_replace(label_replace(label_replace(DCGM_FI_PROF_PCIE_TX_BYTES,",
        "record: memwall:nvlink_rx:bytes_per_second\n        expr: "
        "label_replace(label_replace(label_replace(DCGM_FI_PROF_NVLINK_RX_BYTES,",
        "record: memwall:nvlink_tx:bytes_per_second\n        expr: "
        "memwall_gpu_nvlink_tx_bytes_per_second\n",
        "record: memwall:pcie_rx:bytes_per_second\n        expr: "
        "memwall_gpu_pcie_rx_bytes_per_second\n"})
    EXPECT_NE(r.find(expr), std::string::npos) << expr;
  EXPECT_EQ(r.find("pcie_bandwidth"), std::string::npos);
  EXPECT_EQ(r.find("npu_chip_info_bandwidth_rx"), std::string::npos);
}

// Without an accelerator the file says the saturation alerts need one and has none.
TEST(MonitorRules, WithoutAGpuTheLinkAlertsAreLeftOutAndSaidSo) {
  const std::string r = prometheus_rules(exporter_table());
  EXPECT_NE(r.find("# PCIe and NVLink saturation alerts need --gpu ID"), std::string::npos);
  EXPECT_EQ(r.find("Saturated"), std::string::npos);
  EXPECT_EQ(r.find("memwall-links"), std::string::npos);
  ASSERT_EQ(link_alert_notes(nullptr).size(), 1u);
}

// With one, each direction of PCIe and NVLink alerts at link_fraction (0.8, offload's achievable
// share) of the catalog's per-direction bandwidth: H100 SXM's 63 GB/s PCIe Gen5 x16 and 450 GB/s
// NVLink 4.
TEST(MonitorRules, TheLinkAlertsUseTheCatalogsPerDirectionBandwidth) {
  EXPECT_DOUBLE_EQ(link_saturation_fraction(), 0.8);
  const Catalog& c = Catalog::builtin();
  const std::string r = prometheus_rules(exporter_table(), &c.accelerator("h100"));
  EXPECT_TRUE(link_alert_notes(&c.accelerator("h100")).empty());
  for (const char* expr :
       {"alert: MemwallPcieRxSaturated\n        expr: "
        "avg_over_time(memwall:pcie_rx:bytes_per_second[10m]) >= 0.8 * 63000000000\n",
        "alert: MemwallPcieTxSaturated\n        expr: "
        "avg_over_time(memwall:pcie_tx:bytes_per_second[10m]) >= 0.8 * 63000000000\n",
        "alert: MemwallNvlinkRxSaturated\n        expr: "
        "avg_over_time(memwall:nvlink_rx:bytes_per_second[10m]) >= 0.8 * 450000000000\n",
        "alert: MemwallNvlinkTxSaturated\n        expr: "
        "avg_over_time(memwall:nvlink_tx:bytes_per_second[10m]) >= 0.8 * 450000000000\n",
        "link: pcie\n          direction: rx\n          accelerator: nvidia-h100-sxm\n",
        "# Link saturation alerts for nvidia-h100-sxm (--gpu nvidia-h100-sxm)"})
    EXPECT_NE(r.find(expr), std::string::npos) << expr;
  EXPECT_EQ(r.find("need --gpu"), std::string::npos);
}

// A link whose bandwidth the catalog does not give, or a scale-up fabric that is not NVLink, has
// no alert, and the file and the notes say why: no number is made up.
TEST(MonitorRules, AnUnknownLinkBandwidthGivesNoAlertAndSaysSo) {
  const Catalog& c = Catalog::builtin();
  const Accelerator& h20 = c.accelerator("h20");  // host link not stated
  ASSERT_FALSE(h20.host_bandwidth_per_direction.has_value());
  const std::string r = prometheus_rules(exporter_table(), &h20);
  EXPECT_EQ(r.find("MemwallPcie"), std::string::npos);
  EXPECT_NE(r.find("MemwallNvlinkRxSaturated"), std::string::npos);
  EXPECT_NE(r.find("# nvidia-h20: the catalog gives no host-link bandwidth per direction (host "
                   "link: unknown): no PCIe saturation alerts.\n"),
            std::string::npos);
  EXPECT_EQ(link_alert_notes(&h20).size(), 1u);

  const std::string l40s = prometheus_rules(exporter_table(), &c.accelerator("l40s"));
  EXPECT_NE(l40s.find("MemwallPcieRxSaturated"), std::string::npos);
  EXPECT_NE(l40s.find(">= 0.8 * 31500000000\n"), std::string::npos);
  EXPECT_EQ(l40s.find("MemwallNvlink"), std::string::npos);
  EXPECT_NE(l40s.find("is not NVLink"), std::string::npos);

  // MI300X: Infinity Fabric has a bandwidth, but no mapped counter measures it.
  const std::string mi300x = prometheus_rules(exporter_table(), &c.accelerator("mi300x"));
  EXPECT_EQ(mi300x.find("MemwallNvlink"), std::string::npos);
  EXPECT_NE(mi300x.find("# amd-mi300x: its scale-up fabric ('Infinity Fabric"), std::string::npos);

  const std::string gb200 = prometheus_rules(exporter_table(), &c.accelerator("gb200"));
  EXPECT_EQ(gb200.find("MemwallPcie"), std::string::npos);
  EXPECT_NE(gb200.find("MemwallNvlinkTxSaturated"), std::string::npos);
}

TEST(MonitorRules, EveryExporterFeedsTheReadingsAndTheAlertsUseTheAdvisorsThresholds) {
  const std::string r = prometheus_rules(exporter_table());
  for (const char* expr :
       {"(label_replace(DCGM_FI_PROF_DRAM_ACTIVE, \"pod\", \"$1\", \"pod_name\", \"(.+)\"), "
        "\"container\", \"$1\", \"container_name\", \"(.+)\"), \"slurm_job\", \"$1\", \"job_id\", "
        "\"(.+)\")\n",
        "(gpu_umc_activity * 0.01, \"pod\"",
        "(npu_chip_info_hbm_bandwidth_utilization * 0.01, \"pod\"",
        "expr: memwall_gpu_dram_bandwidth_utilization_ratio\n", "memwall_source: ascend\n",
        "max without (reason) (memwall_gpu_clocks_event_reason{reason=~\"sw_power_cap|"})
    EXPECT_NE(r.find(expr), std::string::npos) << expr;
  EXPECT_EQ(r.find("gpu_clock{"), std::string::npos);  // clocks are not wall readings
  EXPECT_NE(r.find("avg_over_time(memwall:dram_bw_util:ratio[10m]) >= 0.5 unless"),
            std::string::npos);
  EXPECT_NE(r.find("avg_over_time(memwall:tensor_active:ratio[10m]) >= 0.4 unless"),
            std::string::npos);
  EXPECT_NE(r.find("avg_over_time(memwall:clocks_limited:ratio[10m]) >= 0.25"), std::string::npos);
  EXPECT_NE(r.find("avg_over_time(memwall:sm_active:ratio[10m]) < 0.5 and"), std::string::npos);
}

// tools/grafana/memwall-fleet.json plots the recorded readings of these rules per job: every
// memwall:* name it queries is recorded here (the walls' ratios and the links' bytes per second the
// saturation alerts read), and every query selects the job's variables.
TEST(MonitorRules, TheFleetDashboardQueriesTheRecordedReadings) {
  const std::string rules = prometheus_rules(exporter_table());
  std::ifstream in(memwall::test::source_dir() + "/tools/grafana/memwall-fleet.json");
  const Json d = Json::parse(in);
  const std::regex recorded_name("memwall:[a-z_]+:(ratio|bytes_per_second)");
  size_t names = 0;
  for (const auto& p : d.at("panels"))
    for (const auto& t : p.at("targets")) {
      const std::string expr = t.at("expr").get<std::string>();
      EXPECT_NE(expr.find("namespace=~\"$namespace\",pod=~\"$pod\""), std::string::npos) << expr;
      for (std::sregex_iterator it(expr.begin(), expr.end(), recorded_name), end; it != end;
           ++it, ++names)
        EXPECT_NE(rules.find("record: " + it->str() + "\n"), std::string::npos) << it->str();
    }
  EXPECT_EQ(names, 9u);  // 5 ratios, PCIe and NVLink rx and tx (the link alerts' readings)
}

}  // namespace
}  // namespace memwall::monitor
