// The fleet over Prometheus: the four name sets (dcgm-exporter, AMD device-metrics-exporter,
// Ascend npu-exporter, memwall's own), recorded from a real Prometheus scraping expositions of one
// decode load (testdata/README.md), give the same advisor verdict; units are converted, series
// are grouped per node, GPU and job, and what a set does not expose stays unknown.
#include "memwall/monitor/fleet.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "memwall/core/document.h"
#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/monitor/fake_prometheus.h"

namespace memwall::monitor {
namespace {

constexpr double kMiB = 1048576;

Fleet fleet_of(const std::string& set, Seconds window = Seconds(900.0)) {
  fixtures::FakePrometheus fake(fixtures::testdata("prom-" + set + "-instant.json"),
                                fixtures::testdata("prom-" + set + "-range.json"));
  FleetOptions o;
  o.url = fake.url();
  o.window = window;
  o.job_selector = "job=\"" + set + "\"";
  Fleet f = fetch_fleet(o);
  EXPECT_EQ(fake.last_query(), f.query);
  return f;
}

TEST(MonitorFleet, EveryNameSetGivesTheSameVerdictOnTheSameLoad) {
  std::optional<Advice> first;
  for (const std::string set : {"memwall", "dcgm", "amd", "ascend"}) {
    SCOPED_TRACE(set);
    for (const Seconds window : {Seconds(900.0), Seconds(0.0)}) {
      const Fleet f = fleet_of(set, window);
      ASSERT_EQ(f.gpus.size(), 2u);
      const FleetAdvice a = advise_fleet(f, std::nullopt);
      ASSERT_EQ(a.jobs.size(), 1u);
      const Advice& job = a.jobs[0].advice;
      EXPECT_EQ(job.wall, Wall::memory_bandwidth);
      EXPECT_EQ(job.gpus, 2u);
      ASSERT_TRUE(job.dram_util && job.tensor_active && job.gpu_util);
      EXPECT_NEAR(*job.dram_util, 0.72, 1e-12);
      EXPECT_NEAR(*job.tensor_active, 0.05, 1e-12);
      EXPECT_NEAR(*job.gpu_util, 1.0, 1e-12);
      for (const Advice& g : a.gpus) EXPECT_EQ(g.wall, Wall::memory_bandwidth);
      // dcgm-exporter's default counters leave SM activity out: unknown, never zero.
      if (set == "dcgm") {
        EXPECT_FALSE(job.sm_active);
        EXPECT_NE(job.verdict.find("SM activity unknown"), std::string::npos) << job.verdict;
      } else {
        ASSERT_TRUE(job.sm_active);
        EXPECT_NEAR(*job.sm_active, 0.55, 1e-12);
        if (!first) first = job;
        EXPECT_EQ(job.verdict, first->verdict);
      }
    }
  }
}

TEST(MonitorFleet, RangeQueriesGiveOneSamplePerStepAndInstantOne) {
  const Fleet range = fleet_of("dcgm");
  EXPECT_EQ(range.gpus[0].samples.size(), 6u);  // recorded: 10 s at a 2 s step
  EXPECT_DOUBLE_EQ(range.step_s, 900.0 / 240);
  const Fleet now = fleet_of("dcgm", Seconds(0.0));
  EXPECT_EQ(now.gpus[0].samples.size(), 1u);
  EXPECT_EQ(now.step_s, 0);
}

TEST(MonitorFleet, GroupsPerNodeGpuAndJobWithUnitsConverted) {
  const Fleet dcgm = fleet_of("dcgm");
  const FleetGpu& g = dcgm.gpus[0];
  EXPECT_EQ(g.node, "gpu-node-a");  // Hostname, not the scrape target
  EXPECT_EQ(g.gpu, "GPU-5a6b1c2d-0000-4000-8000-00000000a0a0");
  EXPECT_EQ(g.job, "namespace=llm,pod=vllm-0,container=vllm");
  EXPECT_EQ(g.device_index, 0);
  EXPECT_EQ(g.sources, std::set<std::string>{"dcgm-exporter"});
  const GpuSample& s = g.samples[0];
  EXPECT_EQ(s.name, "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(*s.memory_used_bytes, 67830 * kMiB);
  EXPECT_DOUBLE_EQ(*s.memory_total_bytes, (67830 + 12718 + 547) * kMiB);
  EXPECT_DOUBLE_EQ(*s.power_w, 520.25);
  EXPECT_DOUBLE_EQ(*s.pcie_tx_bytes_per_s, 2e8);
  EXPECT_FALSE(s.nvlink_tx_bytes_per_s);  // not in the default counters
  EXPECT_FALSE(s.throttle_reasons);

  const Fleet amd = fleet_of("amd");
  const GpuSample& a = amd.gpus[1].samples[0];
  EXPECT_EQ(amd.gpus[1].job, "namespace=llm,pod=vllm-0,container=vllm");
  EXPECT_DOUBLE_EQ(*a.sm_clock_mhz, (2100 + 2060) / 2.0);  // system clocks averaged
  EXPECT_DOUBLE_EQ(*a.memory_clock_mhz, 1300);
  EXPECT_DOUBLE_EQ(*a.memory_used_bytes, 150000 * kMiB);
  EXPECT_DOUBLE_EQ(*a.sm_occupancy_ratio, 0.2);

  const Fleet ascend = fleet_of("ascend");
  EXPECT_EQ(ascend.gpus[0].job, "namespace=llm,pod=vllm-0,container=vllm");  // pod_name as pod
  EXPECT_EQ(ascend.gpus[0].node, "127.0.0.1:18181");  // no host label: the scrape target
  EXPECT_FALSE(ascend.gpus[0].samples[0].sm_occupancy_ratio);

  const Fleet mine = fleet_of("memwall");
  const GpuSample& m = mine.gpus[0].samples[0];
  EXPECT_EQ(mine.gpus[0].job, "");
  EXPECT_DOUBLE_EQ(*m.sm_clock_mhz, 1980);  // from hertz
  EXPECT_EQ(m.throttle_reasons, 0u);        // every reason reported, none set
  EXPECT_EQ(m.name, "NVIDIA H100 80GB HBM3");
}

PromSeries series(std::map<std::string, std::string> labels, double v) {
  return {std::move(labels), {{100.0, v}}};
}

TEST(MonitorFleet, ReasonsNaNAndBadSeries) {
  const ExporterTable& t = exporter_table();
  // memwall's per-reason 0/1 series rebuild the bitmask; dcgm's field is the bitmask itself.
  auto f = fleet_from_series(
      {series({{"__name__", "memwall_gpu_clocks_event_reason"},
               {"gpu", "0"},
               {"uuid", "u"},
               {"reason", "sw_power_cap"}},
              1),
       series({{"__name__", "memwall_gpu_clocks_event_reason"},
               {"gpu", "0"},
               {"uuid", "u"},
               {"reason", "gpu_idle"}},
              0),
       series({{"__name__", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"}, {"gpu", "1"}, {"UUID", "v"}},
              0x40),
       series({{"__name__", "DCGM_FI_PROF_DRAM_ACTIVE"}, {"gpu", "1"}, {"UUID", "v"}},
              std::nan(""))},
      t);
  ASSERT_EQ(f.size(), 2u);
  // Two MIG instances of one GPU are two GPUs, not one mean.
  const auto mig = fleet_from_series(
      {series({{"__name__", "DCGM_FI_PROF_DRAM_ACTIVE"}, {"UUID", "v"}, {"GPU_I_ID", "1"}}, 0.2),
       series({{"__name__", "DCGM_FI_PROF_DRAM_ACTIVE"}, {"UUID", "v"}, {"GPU_I_ID", "2"}}, 0.8)},
      t);
  ASSERT_EQ(mig.size(), 2u);
  EXPECT_EQ(mig[1].gpu, "v/mig 2");
  EXPECT_DOUBLE_EQ(*mig[1].samples[0].dram_bw_util_ratio, 0.8);
  EXPECT_EQ(f[0].samples[0].throttle_reasons, 0x4u);
  EXPECT_EQ(f[1].samples[0].throttle_reasons, 0x40u);
  EXPECT_FALSE(f[1].samples[0].dram_bw_util_ratio);  // NaN: blank, unknown

  auto bad = [&](std::map<std::string, std::string> labels, double v) {
    try {
      fleet_from_series({series(std::move(labels), v)}, t);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(bad({{"__name__", "DCGM_FI_PROF_DRAM_ACTIVE"}, {"gpu", "0"}}, 1.5)
                .find("DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"0\"}: dram_bw_util_ratio: value '1.5'"),
            std::string::npos);
  EXPECT_NE(bad({{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"gpu", "0"}}, HUGE_VAL)
                .find("gpu_util_ratio: value 'inf'"),
            std::string::npos);
  EXPECT_NE(bad({{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"Hostname", "h"}}, 50).find("no GPU label"),
            std::string::npos);
  EXPECT_NE(bad({{"__name__", "memwall_gpu_clocks_event_reason"},
                 {"gpu", "0"},
                 {"reason", "sw_power_capp"}},
                1)
                .find("sw_power_cap"),
            std::string::npos);
  // Names no set maps, and AMD clocks of a type memwall does not read, are skipped.
  EXPECT_TRUE(
      fleet_from_series(
          {series({{"__name__", "up"}, {"gpu", "0"}}, 1),
           series({{"__name__", "gpu_clock"}, {"gpu_id", "0"}, {"clock_type", "fabric"}}, 2000)},
          t)
          .empty());
}

// dcgm-exporter's memory total is used + free (+ reserved, exported from 4.3.1-4.4.0): known
// without the optional part, unknown (not the used part alone) without a required one.
TEST(MonitorFleet, SummedReadingsNeedEveryRequiredPart) {
  const ExporterTable& t = exporter_table();
  const std::map<std::string, std::string> gpu = {{"gpu", "0"}, {"UUID", "GPU-a"}};
  auto with = [&](const char* name) {
    auto l = gpu;
    l["__name__"] = name;
    return l;
  };
  const auto old = fleet_from_series(
      {series(with("DCGM_FI_DEV_FB_USED"), 1000), series(with("DCGM_FI_DEV_FB_FREE"), 24)}, t);
  ASSERT_EQ(old.size(), 1u);
  EXPECT_DOUBLE_EQ(*old[0].samples[0].memory_total_bytes, 1024 * kMiB);
  EXPECT_DOUBLE_EQ(*old[0].samples[0].memory_used_bytes, 1000 * kMiB);
  const auto partial = fleet_from_series({series(with("DCGM_FI_DEV_FB_USED"), 1000)}, t);
  EXPECT_FALSE(partial[0].samples[0].memory_total_bytes);
  EXPECT_FALSE(partial[0].samples[0].power_w);
}

TEST(MonitorFleet, QueryAndWindowSyntax) {
  const std::string q = fleet_query(exporter_table(), "namespace=\"llm\"");
  EXPECT_EQ(q.rfind("{__name__=~\"", 0), 0u);
  EXPECT_NE(q.find("DCGM_FI_PROF_DRAM_ACTIVE|"), std::string::npos);
  EXPECT_NE(q.find("npu_chip_info_hbm_bandwidth_utilization"), std::string::npos);
  EXPECT_EQ(q.substr(q.size() - 17), ",namespace=\"llm\"}");
  EXPECT_THROW(fleet_query(exporter_table(), "{pod=\"x\"}"), InputError);
  EXPECT_DOUBLE_EQ(parse_window("15m", "--window").value(), 900);
  EXPECT_DOUBLE_EQ(parse_window("1.5h", "--window").value(), 5400);
  EXPECT_DOUBLE_EQ(parse_window("90", "--window").value(), 90);
  EXPECT_DOUBLE_EQ(parse_window("0", "--window").value(), 0);
  for (const char* bad : {"", "15 m", "-1m", "1w", "31d", "1e3"})
    EXPECT_THROW(parse_window(bad, "--window"), InputError) << bad;
}

TEST(MonitorFleet, NoMappedSeriesIsExit3WithTheQuery) {
  fixtures::FakePrometheus fake(
      R"({"status":"success","data":{"resultType":"vector","result":[]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
  FleetOptions o;
  o.url = fake.url();
  o.job_selector = "pod=\"none\"";
  try {
    fetch_fleet(o);
    FAIL();
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("pod=\"none\""), std::string::npos) << e.what();
  }
}

// Every mapped name of the table carries its source and the versions it was read in.
TEST(MonitorFleet, TheTableCitesASourceForEveryName) {
  EXPECT_EQ(exporter_table().sets,
            (std::vector<std::string>{"dcgm-exporter", "amd", "ascend", "memwall"}));
  Json doc;
  for (const auto& f : data::embedded_files())
    if (f.path == "monitor/exporters.json") doc = parse_document(f.content, "exporters.json");
  size_t names = 0;
  for (const auto& set : doc.at("exporters").at("sets"))
    for (const auto& m : set.at("metrics")) {
      ++names;
      EXPECT_FALSE(m.at("source").get<std::string>().empty()) << m.dump();
      EXPECT_FALSE(m.at("versions").get<std::string>().empty()) << m.dump();
      EXPECT_FALSE(m.at("unit").get<std::string>().empty()) << m.dump();
    }
  EXPECT_EQ(names, exporter_table().metrics.size());
}

}  // namespace
}  // namespace memwall::monitor
