// The engines' own metrics through the built binary: `memwall monitor --prometheus` reports the
// operating point of the hand-written vLLM 0.10 and SGLang loads (src/memwall/monitor/testdata,
// README.md "Engine metrics") served by the fake Prometheus, with memwall's estimate beside it,
// and `memwall calibrate --prometheus` fits a profile from it; bad input exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"
#include "memwall/monitor/fake_prometheus.h"

namespace {

using memwall::cli_test::run;
using memwall::monitor::fixtures::FakePrometheus;
using memwall::monitor::fixtures::testdata;

TEST(MonitorEnginesCli, Vllm010OperatingPointWithTheEstimate) {
  FakePrometheus fake("", testdata("prom-vllm-0.10-range.json"));
  const auto r = run("monitor --prometheus " + fake.url() +
                     " --window 1m --gpu h100 --engine-version 0.10.1 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["gpus"].empty());  // no exporter series: the engines alone
  ASSERT_EQ(j["engines"].size(), 1u);
  const auto& e = j["engines"][0];
  EXPECT_EQ(e["engine"], "vllm");
  EXPECT_EQ(e["job"], "namespace=llm,pod=vllm-0,container=engine");
  EXPECT_DOUBLE_EQ(e["running_requests_mean"].get<double>(), 24);
  EXPECT_DOUBLE_EQ(e["generation_tokens_per_s"].get<double>(), 2000);
  EXPECT_NEAR(e["inter_token"]["mean_s"].get<double>(), 0.012, 1e-12);
  EXPECT_NEAR(e["inter_token"]["p99_s"].get<double>(), 0.05 + 0.025 * 562.4 / 1500, 1e-12);
  EXPECT_NEAR(e["ttft"]["p50_s"].get<double>(), 0.13, 1e-12);
  const auto& est = e["estimate"];
  EXPECT_EQ(est["running"], 24);
  EXPECT_EQ(est["input_tokens"], 1000);
  EXPECT_EQ(est["output_tokens"], 500);
  ASSERT_EQ(est["rows"].size(), 4u);
  EXPECT_EQ(est["rows"][0]["metric"], "itl mean");
  EXPECT_NEAR(est["rows"][0]["measured"].get<double>(), 0.012, 1e-12);
  EXPECT_GT(est["rows"][0]["predicted"].get<double>(), 0);

  const auto text = run("monitor --prometheus " + fake.url() + " --window 1m");
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("TPOT (inter-token)   mean 12.0 ms, p50 14.8 ms, p99 59.4 ms (119760 "
                          "observations)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("24.0 running (mean), 0.2 waiting, KV cache 35 %"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("memwall's estimate"), std::string::npos);  // no --gpu: none
}

// One Prometheus holding dcgm-exporter's and vLLM's series: the advisor per GPU job and the
// engines' operating point in one report.
TEST(MonitorEnginesCli, GpuExportersAndEnginesTogether) {
  auto dcgm = nlohmann::json::parse(testdata("prom-dcgm-range.json"));
  const auto vllm = nlohmann::json::parse(testdata("prom-vllm-0.10-range.json"));
  for (const auto& s : vllm["data"]["result"]) dcgm["data"]["result"].push_back(s);
  FakePrometheus fake("", dcgm.dump());
  const auto r = run("monitor --prometheus " + fake.url() + " --advise --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["jobs"][0]["advice"]["wall"], "memory-bandwidth");
  ASSERT_EQ(j["engines"].size(), 1u);
  EXPECT_DOUBLE_EQ(j["engines"][0]["prompt_tokens_per_s"].get<double>(), 4000);
}

// dcgm-exporter's recorded series of pod llm/vllm-0 and vLLM 0.10's of the same pod, the latter
// with the pod labels memwall's deploy emitter writes, as Prometheus's labelmap of
// __meta_kubernetes_pod_label_(.+) names them (`extra`).
std::string deployed_answer(const nlohmann::json& extra) {
  auto answer = nlohmann::json::parse(testdata("prom-dcgm-range.json"));
  auto vllm = nlohmann::json::parse(testdata("prom-vllm-0.10-range.json"));
  for (auto& s : vllm["data"]["result"]) {
    for (const auto& [k, v] : extra.items()) s["metric"][k] = v;
    answer["data"]["result"].push_back(s);
  }
  return answer.dump();
}

// Without --model/--gpu the advisor compares each job with the deployment its pod's labels name:
// the accelerator and tp from memwall.io/* pod labels, the model from vLLM's model_name, the
// workload from the engine's series (24 running requests, 1000 / 500 token means); it says which
// labels it used.
TEST(MonitorEnginesCli, AdviseComparesWithTheDeploymentTheLabelsName) {
  FakePrometheus fake(
      "", deployed_answer({{"memwall_io_accelerator", "nvidia-h100-sxm"}, {"memwall_io_tp", "2"}}));
  const auto r = run("monitor --prometheus " + fake.url() + " --advise --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["jobs"].size(), 1u) << r.out;
  const auto& job = j["jobs"][0];
  EXPECT_EQ(job["job"], "namespace=llm,pod=vllm-0,container=vllm");
  const auto& d = job["deployment_from_labels"];
  EXPECT_EQ(
      d["used"],
      nlohmann::json({"model llama-3.1-8b (model_name=meta-llama/Llama-3.1-8B-Instruct)",
                      "accelerator nvidia-h100-sxm (memwall_io_accelerator=nvidia-h100-sxm)",
                      "tp 2 (memwall_io_tp=2)", "engine vllm (its vllm:* series)",
                      "batch 24 (the engine's mean running requests)",
                      "prompt 1000 tokens (the engine's prompt-length histogram mean)",
                      "generation 500 tokens (the engine's generation-length histogram mean)"}))
      << d.dump(2);
  EXPECT_TRUE(d["not_mapped"].empty()) << d.dump(2);
  const auto& expected = job["advice"]["expected"];
  ASSERT_TRUE(expected.is_object()) << job.dump(2);
  EXPECT_EQ(expected["deployment"].get<std::string>().rfind(
                "llama-3.1-8b on nvidia-h100-sxm x2 (tp 2 pp 1 dp 1), batch 24 x (input 1000 + "
                "output 500)",
                0),
            0u)
      << expected.dump();
  EXPECT_TRUE(job["advice"]["bandwidth_vs_expected"].is_number()) << job.dump(2);

  const auto text = run("monitor --prometheus " + fake.url() + " --advise");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("deployment from the series' labels: model llama-3.1-8b (model_name="),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("memwall estimates for llama-3.1-8b on nvidia-h100-sxm x2"),
            std::string::npos)
      << text.out;
}

// A label that maps to nothing is named with the reason and the job gets no estimate; no value
// is guessed. --model/--gpu, when given, are the deployment and the labels are not read.
TEST(MonitorEnginesCli, AdviseNamesTheLabelsItCannotMap) {
  FakePrometheus fake("", deployed_answer({{"memwall_io_accelerator", "h100x"},
                                           {"memwall_io_tp", "two"},
                                           {"memwall_io_replicas", "3"}}));
  const auto r = run("monitor --prometheus " + fake.url() + " --advise --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto& d = j["jobs"][0]["deployment_from_labels"];
  const std::string unmapped = d["not_mapped"].dump();
  EXPECT_NE(unmapped.find("memwall_io_accelerator='h100x': no catalog accelerator has that id or "
                          "alias"),
            std::string::npos)
      << unmapped;
  EXPECT_NE(unmapped.find("memwall_io_tp='two': not a whole number from 1 to 1024"),
            std::string::npos)
      << unmapped;
  EXPECT_NE(unmapped.find("memwall_io_replicas='3': not a label memwall's deploy emitter writes"),
            std::string::npos)
      << unmapped;
  EXPECT_EQ(d["notes"], nlohmann::json({"the labels name no accelerator (memwall_io_accelerator; "
                                        "or --gpu)"}))
      << d.dump(2);
  EXPECT_FALSE(j["jobs"][0]["advice"].contains("expected")) << j["jobs"][0].dump(2);
  EXPECT_EQ(j["jobs"][0]["advice"]["wall"], "memory-bandwidth");  // the diagnosis stands

  const auto flags = run("monitor --prometheus " + fake.url() +
                         " --advise --json --model llama-3.1-8b --gpu h100 --input 1000 --output "
                         "500");
  ASSERT_EQ(flags.status, 0) << flags.out;
  const auto jf = nlohmann::json::parse(flags.out);
  EXPECT_FALSE(jf["jobs"][0].contains("deployment_from_labels"));
  EXPECT_EQ(jf["jobs"][0]["advice"]["expected"]["deployment"].get<std::string>().rfind(
                "llama-3.1-8b on nvidia-h100-sxm x1", 0),
            0u);
}

// The engine's operating point is estimated on the deployment its own series' labels name when
// no --gpu is given (the accelerator and tp from the memwall.io/* pod labels, the model from
// model_name): the same estimate as the flags that say the same give, another than tp 1's; each
// label used is named. A flag wins over its label.
TEST(MonitorEnginesCli, EngineEstimateOnTheDeploymentTheLabelsName) {
  FakePrometheus fake(
      "", deployed_answer({{"memwall_io_accelerator", "nvidia-h100-sxm"}, {"memwall_io_tp", "2"}}));
  auto estimate = [&](const std::string& flags) {
    const auto r = run("monitor --prometheus " + fake.url() + " --json" + flags);
    EXPECT_EQ(r.status, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["engines"].size(), 1u) << r.out;
    return j["engines"][0].value("estimate", nlohmann::json());
  };
  const auto labels = estimate("");
  ASSERT_TRUE(labels.contains("rows")) << labels.dump(2);
  EXPECT_EQ(labels["notes"][0],
            "deployment from the engine's labels: accelerator nvidia-h100-sxm "
            "(memwall_io_accelerator=nvidia-h100-sxm)");
  EXPECT_EQ(labels["notes"][1], "deployment from the engine's labels: tp 2 (memwall_io_tp=2)");
  const auto same = estimate(" --gpu nvidia-h100-sxm --tp 2");
  const auto tp1 = estimate(" --gpu nvidia-h100-sxm --tp 1");
  ASSERT_EQ(labels["rows"].size(), same["rows"].size());
  for (size_t i = 0; i < labels["rows"].size(); ++i)
    EXPECT_DOUBLE_EQ(labels["rows"][i]["predicted"].get<double>(),
                     same["rows"][i]["predicted"].get<double>())
        << labels["rows"][i]["metric"];
  EXPECT_NE(labels["rows"][0]["predicted"].get<double>(), tp1["rows"][0]["predicted"].get<double>());
  // --tp 1 is a flag: no tp label is named as used.
  for (const auto& n : tp1["notes"])
    EXPECT_EQ(n.get<std::string>().find("memwall_io_tp"), std::string::npos) << n;

  const auto text = run("monitor --prometheus " + fake.url());
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("memwall's estimate at 24 running requests"), std::string::npos)
      << text.out;
}

// Labels that name no accelerator memwall knows: no estimate, and the labels not mapped say why.
TEST(MonitorEnginesCli, EngineEstimateNamesTheLabelsItCannotMap) {
  FakePrometheus fake("", deployed_answer({{"memwall_io_accelerator", "h100x"}}));
  const auto r = run("monitor --prometheus " + fake.url() + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const std::string why = j["engines"][0]["estimate"]["not_estimated"];
  EXPECT_EQ(why.rfind("the series name no accelerator (memwall_io_accelerator, or --gpu); "
                      "memwall_io_accelerator='h100x': no catalog accelerator",
                      0),
            0u)
      << why;
}

TEST(MonitorEnginesCli, ContradictorySeriesExit2) {
  auto answer = nlohmann::json::parse(testdata("prom-vllm-0.10-range.json"));
  for (auto& s : answer["data"]["result"])
    if (s["metric"]["__name__"] == "vllm:e2e_request_latency_seconds_count")
      s["values"][4][1] = "9999";
  FakePrometheus fake("", answer.dump());
  const auto r = run("monitor --prometheus " + fake.url(), "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("vllm:e2e_request_latency_seconds{container=\"engine\""), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("a _count equal to its +Inf bucket"), std::string::npos) << r.out;
}

TEST(CalibrateEnginesCli, ProfileFromTheVllmWindow) {
  FakePrometheus fake("", testdata("prom-vllm-0.10-range.json"));
  const std::string profile = ::testing::TempDir() + "vllm-window-profile.json";
  const auto r = run("calibrate --prometheus " + fake.url() +
                     " --job 'job=\"vllm\"' --window 1m --gpu h100 --engine-version 0.10.1 --out " +
                     profile + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["groups"].size(), 1u);
  const auto& g = j["groups"][0];
  EXPECT_EQ(g["engine"], "vllm@0.8");    // 0.10.1 resolves to the profile at or below it
  EXPECT_EQ(g["residuals"].size(), 4u);  // itl, output throughput, ttft, e2e
  EXPECT_EQ(g["residuals"][0]["id"], "vllm/itl_mean (namespace=llm,pod=vllm-0,container=engine)");
  EXPECT_NEAR(g["residuals"][0]["measured"].get<double>(), 12.0, 1e-9);  // ms
  EXPECT_LE(g["median_abs_error_after"].get<double>(), g["median_abs_error_before"].get<double>());
  std::ifstream in(profile);
  const auto written = nlohmann::json::parse(in);
  EXPECT_TRUE(written.contains("engines"));
  EXPECT_NE(written["fitted_on"]["files"][0].get<std::string>().find("{job=\"vllm\"} 60 s"),
            std::string::npos)
      << written.dump();
  // The window's records, written with --records-out, fit the same as a file.
  const std::string records = ::testing::TempDir() + "vllm-window-records.json";
  ASSERT_EQ(run("calibrate --prometheus " + fake.url() +
                " --job 'job=\"vllm\"' --window 1m --gpu h100 --engine-version 0.10.1 "
                "--records-out " +
                records)
                .status,
            0);
  const auto from_file = run("calibrate " + records + " --json");
  ASSERT_EQ(from_file.status, 0) << from_file.out;
  EXPECT_EQ(nlohmann::json::parse(from_file.out)["profile"]["engines"], written["engines"]);
  EXPECT_EQ(run("calibrate " + records + " --records-out x.json").status, 2);
  // The profile is one every face takes.
  EXPECT_EQ(run("infer --model llama-3.1-8b --gpu h100 --engine vllm --input 1000 --output 500 "
                "--calibration " +
                profile)
                .status,
            0);
}

TEST(CalibrateEnginesCli, WhatTheSeriesCannotSayComesFromFlagsOrIsRefused) {
  FakePrometheus fake("", testdata("prom-sglang-range.json"));
  const std::string base =
      "calibrate --prometheus " + fake.url() + " --job 'job=\"sglang\"' --window 1m";
  const auto no_input = run(base + " --gpu h100", "2>&1");
  EXPECT_EQ(no_input.status, 2);
  EXPECT_NE(no_input.out.find("--input: required"), std::string::npos) << no_input.out;
  EXPECT_NE(no_input.out.find("500 prompt tokens per finished request"), std::string::npos)
      << no_input.out;
  const auto ok = run(base + " --gpu h100 --input 500 --output 400 --json", "2>&1 >/dev/null");
  EXPECT_NE(ok.out.find("ttft not used: 4.0 requests waited"), std::string::npos) << ok.out;
  EXPECT_EQ(run(base + " --gpu h100 --input 500 --output 400").status, 0);
  EXPECT_EQ(run(base + " --input 500 --output 400").status, 2);  // --gpu
  EXPECT_EQ(run(base + " --gpu h100 --input 500 --output 400 --engine vllm").status, 2);
  EXPECT_EQ(run("calibrate --prometheus " + fake.url() + " --window 1m --gpu h100").status, 2);
  EXPECT_EQ(run(base + " --window 0 --gpu h100").status, 2);
  EXPECT_EQ(run("calibrate").status, 2);
  EXPECT_EQ(run("calibrate --job 'job=\"x\"'").status, 2);
}

}  // namespace
