// `memwall monitor --prometheus URL`: the built binary against a fake Prometheus HTTP API on
// loopback serving answers recorded from a real Prometheus (src/memwall/monitor/testdata): the
// advisor per job compared with the estimate, the text view, and bad input (exit 2) or an
// unreachable server (exit 3).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"
#include "memwall/monitor/fake_prometheus.h"

namespace {

using memwall::cli_test::run;
using memwall::monitor::fixtures::FakePrometheus;
using memwall::monitor::fixtures::testdata;

TEST(MonitorPrometheusCli, AdvisorPerJobAgainstTheEstimate) {
  FakePrometheus fake(testdata("prom-dcgm-instant.json"), testdata("prom-dcgm-range.json"));
  const auto r = run("monitor --prometheus " + fake.url() +
                     " --window 10m --job 'job=\"dcgm\"' --advise --model llama-3.1-70b --gpu h100 "
                     "--tp 2 --batch 8 --input 1024 --output 256 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["window_s"], 600);
  EXPECT_EQ(j["step_s"], 2.5);  // 600 s / 240 points
  EXPECT_NE(j["query"].get<std::string>().find(",job=\"dcgm\"}"), std::string::npos);
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][0]["node"], "gpu-node-a");
  EXPECT_EQ(j["gpus"][0]["sources"][0], "dcgm-exporter");
  EXPECT_EQ(j["gpus"][0]["advice"]["wall"], "memory-bandwidth");
  EXPECT_TRUE(j["gpus"][0]["summary"]["sm_active_ratio"].is_null() ||
              !j["gpus"][0]["summary"].contains("sm_active_ratio"));
  ASSERT_EQ(j["jobs"].size(), 1u);
  const auto& job = j["jobs"][0];
  EXPECT_EQ(job["job"], "namespace=llm,pod=vllm-0,container=vllm");
  const auto& a = job["advice"];
  EXPECT_EQ(a["wall"], "memory-bandwidth");
  EXPECT_EQ(a["gpus"], 2);
  EXPECT_EQ(a["expected"]["devices"], 2);
  EXPECT_DOUBLE_EQ(a["measured_bandwidth_bytes_per_s"].get<double>(), 0.72 * 3350e9);
  EXPECT_NEAR(a["implied_tokens_per_s"].get<double>(),
              a["expected"]["throughput_tokens_per_s"].get<double>() * 0.72 /
                  a["expected"]["dram_bw_util_ratio"].get<double>(),
              1e-6);

  const auto text = run("monitor --prometheus " + fake.url() + " --advise");
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("2 GPU(s) on 1 node(s) in 1 job(s)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("job namespace=llm,pod=vllm-0,container=vllm (GPU 0, 1):\nwall: "
                          "memory-bandwidth-bound"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("SM activity unknown"), std::string::npos) << text.out;
}

TEST(MonitorPrometheusCli, BadInputExits2AndAnUnreachableServer3) {
  FakePrometheus fake(testdata("prom-amd-instant.json"), testdata("prom-amd-range.json"));
  const std::string url = " --prometheus " + fake.url();
  const auto window = run("monitor" + url + " --window 1w", "2>&1");
  EXPECT_EQ(window.status, 2);
  EXPECT_NE(window.out.find("--window: value '1w'"), std::string::npos) << window.out;
  EXPECT_EQ(run("monitor" + url + " --job '{pod=\"x\"}'").status, 2);
  EXPECT_EQ(run("monitor" + url + " --once").status, 2);
  EXPECT_EQ(run("monitor" + url + " --replay x.jsonl").status, 2);
  EXPECT_EQ(run("monitor --prometheus localhost:9090").status, 2);
  EXPECT_EQ(run("monitor --window 15m --replay x.jsonl").status, 2);
  EXPECT_EQ(run("monitor" + url + " --advise --model llama-3.1-8b").status, 2);
  int port = 0;
  {
    FakePrometheus gone("", "");
    port = std::stoi(gone.url().substr(17));
  }
  const auto down =
      run("monitor --prometheus http://127.0.0.1:" + std::to_string(port) + " --timeout 1", "2>&1");
  EXPECT_EQ(down.status, 3);
  EXPECT_NE(down.out.find("cannot reach Prometheus"), std::string::npos) << down.out;
}

// The rules file: to a file (equal to the committed tools/prometheus/memwall-rules.yml) or stdout.
TEST(MonitorPrometheusCli, EmitRules) {
  const std::string file = ::testing::TempDir() + "memwall-rules.yml";
  ASSERT_EQ(run("monitor --emit-rules " + file).status, 0);
  const auto out = run("monitor --emit-rules -");
  ASSERT_EQ(out.status, 0);
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(read(memwall::test::source_dir() + "/tools/prometheus/memwall-rules.yml"), out.out);
  EXPECT_EQ(read(file), out.out);
  EXPECT_EQ(run("monitor --emit-rules /nonexistent/dir/rules.yml").status, 2);
}

// --gpu adds the PCIe and NVLink saturation alerts of that accelerator (the committed
// memwall-rules-h100.yml); without it, and for a link the catalog has no bandwidth of, stderr says
// what is left out; an unknown id is exit 2 naming it and where the ids are listed.
TEST(MonitorPrometheusCli, EmitRulesWithAGpuAlertsOnItsLinks) {
  std::ifstream in(memwall::test::source_dir() + "/tools/prometheus/memwall-rules-h100.yml");
  const std::string h100((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto out = run("monitor --emit-rules - --gpu h100", "2>&1");
  ASSERT_EQ(out.status, 0);
  EXPECT_EQ(out.out, h100);  // nothing on stderr: every link's bandwidth is known
  EXPECT_NE(out.out.find("alert: MemwallPcieRxSaturated"), std::string::npos);

  const auto none = run("monitor --emit-rules /dev/null", "2>&1");
  ASSERT_EQ(none.status, 0);
  EXPECT_NE(none.out.find("memwall monitor --emit-rules: PCIe and NVLink saturation alerts need "
                          "--gpu ID"),
            std::string::npos)
      << none.out;
  const auto h20 = run("monitor --emit-rules /dev/null --gpu h20", "2>&1");
  ASSERT_EQ(h20.status, 0);
  EXPECT_NE(h20.out.find("nvidia-h20: the catalog gives no host-link bandwidth per direction"),
            std::string::npos)
      << h20.out;

  const auto bad = run("monitor --emit-rules - --gpu h1000", "2>&1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("--gpu: unknown name 'h1000'"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("memwall catalog list"), std::string::npos) << bad.out;
  EXPECT_EQ(bad.out.find("groups:"), std::string::npos);
}

}  // namespace
