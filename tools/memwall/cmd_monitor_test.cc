// Runs the built memwall binary: `memwall monitor` without a driver (exit 3), replay of a
// recording with the advisor (text and one JSON object), and bad input (exit 2).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "memwall/core/test_paths.h"

#include "cli_test_util.h"

namespace {

using memwall::cli_test::run;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// Two GPUs decoding: DRAM 70 %, SM 55 %, tensor 8 %, the coarse util at 100 %.
std::string decode_recording() {
  std::string out;
  for (int pass = 0; pass < 5; ++pass)
    for (int gpu = 0; gpu < 2; ++gpu)
      out += "{\"time_s\":" + std::to_string(1764450000 + pass) +
             ",\"index\":" + std::to_string(gpu) +
             ",\"name\":\"NVIDIA H100 80GB HBM3\",\"sm_active_ratio\":0.55,"
             "\"dram_bw_util_ratio\":0.7,\"tensor_active_ratio\":0.08,\"gpu_util_ratio\":1,"
             "\"power_w\":520,\"throttle_reasons\":0}\n";
  return out;
}

// The advisor's estimate takes a calibration profile as every estimate does (docs/calibrate.md):
// a stack measured to stream its decode at half the bandwidth expects half the DRAM utilisation.
TEST(MonitorCli, AdvisorEstimateTakesACalibration) {
  const std::string file = write_file("monitor_decode_cal.jsonl", decode_recording());
  const std::string profile = write_file(
      "monitor_cal.json", R"({"engines": {"vllm": {"memory_stream_fraction": 0.4}}})");
  const std::string args = "monitor --replay " + file +
                           " --advise --model llama-3.1-8b --gpu h100 --engine vllm --batch 4 "
                           "--input 512 --output 256 --json";
  const auto plain = run(args);
  const auto calibrated = run(args + " --calibration " + profile);
  ASSERT_EQ(plain.status, 0);
  ASSERT_EQ(calibrated.status, 0);
  const auto p = nlohmann::json::parse(plain.out)["advice"]["expected"];
  const auto c = nlohmann::json::parse(calibrated.out)["advice"]["expected"];
  EXPECT_LT(c["throughput_tokens_per_s"].get<double>(), p["throughput_tokens_per_s"].get<double>());
  EXPECT_LT(c["dram_bw_util_ratio"].get<double>(), p["dram_bw_util_ratio"].get<double>());
  EXPECT_EQ(run(args + " --calibration /nonexistent.json").status, 2);
}

TEST(MonitorCli, WithoutADriverLiveModeExits3WithTheReason) {
  const auto r = run("monitor --once --nvml-library /nonexistent/libnvidia-ml.so.1", "2>&1");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("no NVML found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--replay FILE"), std::string::npos) << r.out;
}

TEST(MonitorCli, ReplayWithAdviceAsOneJsonObject) {
  const std::string file = write_file("monitor_decode.jsonl", decode_recording());
  const auto r = run("monitor --replay " + file +
                     " --advise --model llama-3.1-8b --gpu h100 --tp 2 --batch 4 --input 512 "
                     "--output 256 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["samples"], 10);
  ASSERT_EQ(j["summary"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["summary"][1]["dram_bw_util_ratio"].get<double>(), 0.7);
  const auto& a = j["advice"];
  EXPECT_EQ(a["wall"], "memory-bandwidth");
  EXPECT_DOUBLE_EQ(a["measured_bandwidth_bytes_per_s"].get<double>(), 0.7 * 3350e9);
  EXPECT_NEAR(a["implied_tokens_per_s"].get<double>(),
              a["expected"]["throughput_tokens_per_s"].get<double>() * 0.7 /
                  a["expected"]["dram_bw_util_ratio"].get<double>(),
              1e-6);
  EXPECT_EQ(a["expected"]["devices"], 2);

  const auto text = run("monitor --replay " + file + " --advise");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("wall: memory-bandwidth-bound"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("70.0%"), std::string::npos) << text.out;
}

TEST(MonitorCli, BadInputExits2NamingFieldAndValue) {
  const std::string bad = write_file("monitor_bad.jsonl",
                                     "{\"time_s\":1,\"index\":0}\n{\"time_s\":2,\"index\":0,"
                                     "\"dram_bw_util_ratio\":7}\n");
  const auto r = run("monitor --replay " + bad, "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("monitor_bad.jsonl:2: dram_bw_util_ratio: value '7'"), std::string::npos)
      << r.out;
  const std::string good = write_file("monitor_good.jsonl", decode_recording());
  EXPECT_EQ(run("monitor --replay /nonexistent.jsonl").status, 2);
  EXPECT_EQ(run("monitor --replay " + write_file("monitor_empty.jsonl", "\n\n")).status, 2);
  EXPECT_EQ(run("monitor --replay " + good + " --once").status, 2);
  EXPECT_EQ(run("monitor --replay " + good + " --advise --model llama-3.1-8b").status, 2);
  EXPECT_EQ(run("monitor --replay " + good +
                " --advise --model llama-9 --gpu h100 --input 8 "
                "--output 8")
                .status,
            2);
  EXPECT_EQ(run("monitor --once --interval-ms 50").status, 2);
  EXPECT_EQ(run("monitor --once --interval-ms nan").status, 2);
  EXPECT_EQ(run("monitor --duration 0").status, 2);
  EXPECT_EQ(run("monitor --json").status, 2);  // live JSON needs an end
  EXPECT_EQ(run("monitor --once --serve :99999").status, 2);
}

// The live path end to end through a fake driver library (tools/memwall/testdata/fake_nvml.cc):
// dlopen, symbol lookup (including the older ...ThrottleReasons name), GPM over two passes,
// recording, and one JSON object. Each GPM sample the fake takes raises its SM and DRAM readings
// by one point, GPU 0 then GPU 1, so the values are exact.
TEST(MonitorCli, LivePathThroughAFakeDriver) {
  const std::string fake = memwall::test::fake_nvml_library();
  const std::string rec = ::testing::TempDir() + "monitor_live.jsonl";
  const auto r =
      run("monitor --once --interval-ms 100 --json --nvml-library " + fake + " --record " + rec);
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "nvml");
  ASSERT_EQ(j["readings"].size(), 2u);
  const auto& g0 = j["readings"][0];
  EXPECT_EQ(g0["uuid"], "GPU-fake-0");
  EXPECT_EQ(g0["name"], "Fake H100");
  EXPECT_DOUBLE_EQ(g0["sm_active_ratio"].get<double>(), 0.53);  // GPM samples 1, 2 primed; 3
  EXPECT_DOUBLE_EQ(g0["dram_bw_util_ratio"].get<double>(), 0.73);
  EXPECT_DOUBLE_EQ(j["readings"][1]["dram_bw_util_ratio"].get<double>(), 0.74);
  EXPECT_DOUBLE_EQ(g0["power_w"].get<double>(), 500);
  EXPECT_EQ(g0["throttle_reasons"], 0);
  EXPECT_DOUBLE_EQ(g0["nvlink_rx_bytes_per_s"].get<double>(), 1048576);  // 1 MiB/s
  // The recording replays to the same readings.
  const auto back = run("monitor --replay " + rec + " --json");
  ASSERT_EQ(back.status, 0);
  const auto b = nlohmann::json::parse(back.out);
  EXPECT_EQ(b["samples"], 2);
  EXPECT_DOUBLE_EQ(b["summary"][0]["dram_bw_util_ratio"].get<double>(), 0.73);
  // Text view and the advisor, live for three passes.
  const auto t = run("monitor --duration 0.3 --interval-ms 100 --advise --nvml-library " + fake);
  ASSERT_EQ(t.status, 0);
  EXPECT_NE(t.out.find("Fake H100"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("wall: memory-bandwidth-bound"), std::string::npos) << t.out;
}

// docs/monitor.md shows `memwall monitor --help` verbatim (the usage line without the path).
TEST(MonitorCli, DocsShowTheHelpText) {
  auto help = run("monitor --help").out;
  const auto usage = help.find("Usage: ");
  const auto name = help.find("memwall monitor", usage);
  ASSERT_NE(name, std::string::npos);
  help.replace(usage + 7, name - usage - 7, "");
  std::ifstream doc(memwall::test::source_dir() + "/docs/monitor.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const std::string marker = "## Options (`memwall monitor --help`)\n\n```\n";
  const auto start = text.find(marker);
  ASSERT_NE(start, std::string::npos);
  const auto end = text.find("\n```", start + marker.size());
  EXPECT_EQ(text.substr(start + marker.size(), end - start - marker.size() + 1), help);
}

}  // namespace
