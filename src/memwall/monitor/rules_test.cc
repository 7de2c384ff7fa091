// The rules file of the advisor's walls: generated from the exporter table with the advisor's
// thresholds, and the committed tools/prometheus/memwall-rules.yml is that output (promtool checks
// it in scripts/check-prometheus-rules.sh, CTest label prometheus).
#include "memwall/monitor/rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "memwall/core/document.h"
#include "memwall/core/test_paths.h"

namespace memwall::monitor {
namespace {

TEST(MonitorRules, TheCommittedRulesFileIsTheGeneratedOne) {
  std::ifstream in(memwall::test::source_dir() + "/tools/prometheus/memwall-rules.yml");
  const std::string committed((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  EXPECT_EQ(committed, prometheus_rules(exporter_table()))
      << "regenerate: build/memwall monitor --emit-rules tools/prometheus/memwall-rules.yml";
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
// memwall:* name it queries is recorded here, and every query selects the job's variables.
TEST(MonitorRules, TheFleetDashboardQueriesTheRecordedReadings) {
  const std::string rules = prometheus_rules(exporter_table());
  std::ifstream in(memwall::test::source_dir() + "/tools/grafana/memwall-fleet.json");
  const Json d = Json::parse(in);
  const std::regex recorded_name("memwall:[a-z_]+:ratio");
  size_t names = 0;
  for (const auto& p : d.at("panels"))
    for (const auto& t : p.at("targets")) {
      const std::string expr = t.at("expr").get<std::string>();
      EXPECT_NE(expr.find("namespace=~\"$namespace\",pod=~\"$pod\""), std::string::npos) << expr;
      for (std::sregex_iterator it(expr.begin(), expr.end(), recorded_name), end; it != end;
           ++it, ++names)
        EXPECT_NE(rules.find("record: " + it->str() + "\n"), std::string::npos) << it->str();
    }
  EXPECT_EQ(names, 5u);
}

}  // namespace
}  // namespace memwall::monitor
