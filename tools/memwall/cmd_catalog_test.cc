// Runs the built memwall binary: the CLI contract of `memwall catalog` (exit codes, --json shape).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "memwall/core/test_paths.h"

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

std::string run_stderr(const std::string& args) { return run(args, "2>&1 >/dev/null").out; }

TEST(CatalogCli, ListGpusJsonHasAll46ReferenceRowsAndTheAddedNine) {
  const Result r = run("catalog list gpus --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);  // exactly one JSON object on stdout
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["accelerators"].size(), 55u);
  EXPECT_EQ(j["accelerators"][0]["id"], "nvidia-v100-sxm2-32gb");
  EXPECT_FALSE(j.contains("models"));
}

TEST(CatalogCli, ShowH100PrintsDatasheetValuesAndSources) {
  const Result r = run("catalog show h100");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("989.4 TFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3350 GB/s"), std::string::npos);
  EXPECT_NE(r.out.find("80 GiB HBM3 (85.9 GB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H100 datasheet"), std::string::npos);
  const Result j = run("catalog show h100 --json");
  ASSERT_EQ(j.status, 0);
  const auto e = nlohmann::json::parse(j.out)["entry"];
  EXPECT_EQ(e["tflops"]["bf16"], 989.4);
  EXPECT_EQ(e["mem_bw_gbps"], 3350.0);
  EXPECT_EQ(e["memory_gb"], 80.0);
  EXPECT_EQ(e["memory_unit"], "GiB");
}

TEST(CatalogCli, UnknownValuesPrintAsUnknown) {
  const Result r = run("catalog show enflame-s60");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("memory bandwidth      unknown"), std::string::npos) << r.out;
}

TEST(CatalogCli, Show910bPrintsBandwidthAndPeaksWithTheirSources) {
  const Result r = run("catalog show 910b");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("memory bandwidth      1600 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("313 TFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("figure sources"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tflops.bf16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("low, range 280-414"), std::string::npos) << r.out;
}

TEST(CatalogCli, ImportPrintsPublishedParameterCounts) {
  const Result r = run(std::string("catalog import --json ") + memwall::test::source_dir() +
                       "/src/memwall/model/testdata/deepseek-v3.config.json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  // DeepSeek-V3: 671B total, 37B activated per token (DeepSeek-V3 technical report, abstract).
  EXPECT_NEAR(j["parameters"]["total"].get<double>(), 671e9, 0.005 * 671e9);
  EXPECT_NEAR(j["parameters"]["active_per_token"].get<double>(), 37e9, 0.02 * 37e9);
  EXPECT_EQ(j["model"]["layers"], 61);
  EXPECT_FALSE(j["warnings"].empty());  // the MTP module it does not count is named
}

TEST(CatalogCli, UserCatalogFileAddsAnAccelerator) {
  const Result r = run(std::string("catalog show npu1 --json --catalog ") + memwall::test::source_dir() +
                       "/fuzz/corpus/catalog/new-npu.yaml");
  ASSERT_EQ(r.status, 0);
  const auto e = nlohmann::json::parse(r.out)["entry"];
  EXPECT_EQ(e["id"], "my-npu");
  EXPECT_EQ(e["tflops"]["fp16"], 300.0);
  // --catalog takes one file; the section after it stays the positional argument.
  const Result listed = run(std::string("catalog list --catalog ") + memwall::test::source_dir() +
                            "/fuzz/corpus/catalog/new-npu.yaml gpus --json");
  ASSERT_EQ(listed.status, 0);
  const auto all = nlohmann::json::parse(listed.out);
  EXPECT_EQ(all["accelerators"].size(), 56u);
  EXPECT_FALSE(all.contains("models"));
  EXPECT_EQ(run(std::string("catalog list --catalog ") + memwall::test::source_dir() +
                "/fuzz/corpus/catalog/negative.json")
                .status,
            2);
}

TEST(CatalogCli, UnknownIdExitsTwoAndSuggests) {
  EXPECT_EQ(run("catalog show nope").status, 2);
  const std::string err = run_stderr("catalog show h10");
  EXPECT_NE(err.find("h100"), std::string::npos) << err;
  EXPECT_EQ(run("catalog list gizmos").status, 2);
  EXPECT_EQ(run("catalog import /nonexistent/config.json").status, 2);
}

}  // namespace
