// Runs the built memwall binary: the CLI contract of `memwall probe` (structure, exit codes, a
// profile that `memwall infer --calibration` accepts). No timing is asserted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

std::string run_stderr(const std::string& args) { return run(args, "2>&1 >/dev/null").out; }

TEST(ProbeCli, QuickJsonIsOneObjectWithEveryMeasurement) {
  const Result r = run("probe --quick --threads 1 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto& host = j["host"];
  EXPECT_EQ(host["threads"], 1);
  const auto& stream = host["stream"];
  EXPECT_TRUE(stream["validated"].get<bool>());
  const double n = stream["elements_per_array"].get<double>();
  EXPECT_EQ(n, 1'000'000);  // --quick: 8 MB arrays of doubles
  EXPECT_EQ(stream["kernels"]["copy"]["bytes_per_pass"].get<double>(), 2 * 8 * n);
  EXPECT_EQ(stream["kernels"]["triad"]["bytes_per_pass"].get<double>(), 3 * 8 * n);
  for (const char* k : {"copy", "scale", "add", "triad"})
    EXPECT_GT(stream["kernels"][k]["best_bytes_per_s"].get<double>(), 0) << k;
  EXPECT_TRUE(j["gpu"].contains("built"));
  if (host["gemm"].empty()) GTEST_SKIP() << "built without OpenBLAS";
  const auto& g = host["gemm"][0];
  EXPECT_EQ(g["precision"], "fp32");
  EXPECT_EQ(g["flops"].get<double>(), 2.0 * 256 * 256 * 256);
  const auto& sweep = host["roofline_sweep"];
  EXPECT_EQ(sweep["points"].size(), 7u);  // n = 1 ... 64
  double last = 0;
  for (const auto& p : sweep["points"]) {
    EXPECT_GT(p["intensity_flops_per_byte"].get<double>(), last);
    last = p["intensity_flops_per_byte"].get<double>();
  }
  EXPECT_DOUBLE_EQ(sweep["ridge_flops_per_byte"].get<double>(),
                   sweep["compute_roof_flops_per_s"].get<double>() /
                       sweep["bandwidth_roof_bytes_per_s"].get<double>());
  // Predicted vs measured: triad, each GEMM, each sweep point; host predictions need peaks.
  const auto& rows = j["predicted_vs_measured"];
  EXPECT_EQ(rows.size(), 1 + host["gemm"].size() + 7);
  EXPECT_TRUE(rows[0]["predicted_s"].is_null());
}

TEST(ProbeCli, ProfileHasTheCalibrationKeysAndInferAcceptsIt) {
  // One file per process: the release and sanitizer suites (or two checkouts) may run at once.
  const auto path = std::filesystem::path(::testing::TempDir()) /
                    ("memwall_probe_test_profile_" + std::to_string(getpid()) + ".json");
  // The quick probe's arrays fit in the last-level cache, so its triad ranges from under 1 GB/s
  // (sanitizer build, loaded machine) to over 100 GB/s (fast cache): no fixed peak keeps the
  // fraction inside the (1e-3, 1] the profile accepts. Take the peak as 4 x a first run's triad.
  const Result first = run("probe --quick --threads 1 --device host --json");
  ASSERT_EQ(first.status, 0) << first.out;
  const double first_triad = nlohmann::json::parse(first.out)["host"]["stream"]["kernels"]["triad"]
                                                             ["best_bytes_per_s"];
  const std::string peak_gb_s = std::to_string(4 * first_triad / 1e9);  // as the CLI reads it
  const Result r = run("probe --quick --threads 1 --device host --cpu-peak-bandwidth " + peak_gb_s +
                       " --cpu-peak-flops 100000 --out " + path.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream f(path);
  const auto doc = nlohmann::json::parse(f);
  ASSERT_TRUE(doc.contains("memory_bandwidth_fraction")) << doc.dump();
  const double bw = doc["memory_bandwidth_fraction"]["cpu"].get<double>();
  EXPECT_GT(bw, 0);
  EXPECT_LE(bw, 1);
  EXPECT_TRUE(doc["probe"]["host"]["stream"].is_object());
  // The fraction is the STREAM triad over the given peak.
  const double triad = doc["probe"]["host"]["stream"]["kernels"]["triad"]["best_bytes_per_s"];
  EXPECT_NEAR(bw, triad / (std::stod(peak_gb_s) * 1e9), 1e-4);
  EXPECT_NE(r.out.find("Calibration profile written"), std::string::npos);
  const Result infer = run("infer --model llama-3.1-8b --gpu h100 --tp 1 --batch 1 --input 128 "
                           "--output 16 --json --calibration " + path.string());
  EXPECT_EQ(infer.status, 0);
  EXPECT_TRUE(nlohmann::json::parse(infer.out).contains("tpot_s"));
  std::filesystem::remove(path);
}

TEST(ProbeCli, GivenPeaksGiveHostPredictionsAndTheirError) {
  const Result r = run("probe --quick --threads 1 --device host --cpu-peak-bandwidth 50 "
                       "--cpu-peak-flops 200 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& row : j["predicted_vs_measured"]) {
    if (row["what"].get<std::string>().find("fp64") != std::string::npos) continue;
    ASSERT_FALSE(row["predicted_s"].is_null()) << row.dump();
    EXPECT_DOUBLE_EQ(row["error"].get<double>(),
                     row["predicted_s"].get<double>() / row["measured_s"].get<double>() - 1);
  }
  // The STREAM triad row: 3 x 8 bytes per element of the 1,000,000-element arrays.
  EXPECT_EQ(j["predicted_vs_measured"][0]["what"], "STREAM triad");
  EXPECT_EQ(j["predicted_vs_measured"][0]["bytes"].get<double>(), 24e6);
}

TEST(ProbeCli, SizesBeyondPhysicalMemoryExit3BeforeAllocating) {
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                         static_cast<double>(sysconf(_SC_PAGESIZE));
  if (3 * 65536e6 < 0.8 * physical) GTEST_SKIP() << "this host could run it";
  const std::string err = run_stderr("probe --device host --size-mb 65536");
  EXPECT_EQ(run("probe --device host --size-mb 65536").status, 3);
  EXPECT_NE(err.find("smaller --size-mb"), std::string::npos) << err;
}

TEST(ProbeCli, BadValuesExit2NamingTheField) {
  EXPECT_EQ(run("probe --quick --threads 0").status, 2);
  EXPECT_NE(run_stderr("probe --quick --threads 0").find("--threads"), std::string::npos);
  EXPECT_NE(run_stderr("probe --quick --size-mb nan").find("--size-mb"), std::string::npos);
  EXPECT_EQ(run("probe --quick --size-mb 0").status, 2);
  EXPECT_EQ(run("probe --quick --size-mb 1e9").status, 2);
  EXPECT_EQ(run("probe --quick --cpu-peak-bandwidth -5").status, 2);
  EXPECT_NE(run_stderr("probe --quick --cpu-peak-flops inf").find("--cpu-peak-flops"),
            std::string::npos);
  EXPECT_NE(run_stderr("probe --quick --device tpu").find("--device"), std::string::npos);
  EXPECT_EQ(run("probe --quick --gpu h1000").status, 2);
}

TEST(ProbeCli, GpuOnlyWithoutAGpuExits3) {
  const auto j = nlohmann::json::parse(run("probe --quick --threads 1 --json").out);
  if (j["gpu"]["ran"].get<bool>()) GTEST_SKIP() << "a GPU is present";
  const std::string err = run_stderr("probe --quick --device gpu");
  EXPECT_EQ(run("probe --quick --device gpu").status, 3);
  EXPECT_NE(err.find("no GPU measured"), std::string::npos) << err;
}

// A GPU left out says why (seed audit 3 D11: "GPU: not measured: " with nothing after it).
TEST(ProbeCli, HostOnlySaysWhyTheGpuWasNotMeasured) {
  const Result r = run("probe --quick --threads 1 --device host");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("GPU: not measured: --device host"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(run("probe --quick --threads 1 --device host --json").out);
  EXPECT_FALSE(j["gpu"]["reason"].get<std::string>().empty());
}

}  // namespace
