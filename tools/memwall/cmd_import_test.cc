// memwall import: a vllm bench serve result in, the records document out, which validate and
// calibrate read as it is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "memwall/core/test_paths.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

std::string fixture(const std::string& name) {
  return memwall::test::source_dir() + "/src/memwall/measure/testdata/" + name;
}

const std::string kServe = "import " + fixture("vllm_serve_concurrency.json") +
                           " --format vllm-serve --gpu h100 --engine vllm --engine-version 0.10.2";

TEST(ImportCli, ServeResultToRecordsThatValidateReads) {
  const Result r = run(kServe + " --input 1024 --output 128");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["format"], "memwall-measurements/1");
  ASSERT_EQ(doc["records"].size(), 19u);
  EXPECT_EQ(doc["records"][0]["metric"]["value"], 210.5);
  const auto path = std::filesystem::temp_directory_path() /
                    ("memwall-import-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << r.out;
  const Result v = run("validate " + path.string() + " --json");
  std::filesystem::remove(path);
  ASSERT_EQ(v.status, 0) << v.out;
  const auto report = nlohmann::json::parse(v.out);
  ASSERT_EQ(report["cases"].size(), 19u);
  // The ITL percentiles are read and reported as not predicted; every other record is predicted.
  EXPECT_EQ(report["summary"][0]["predicted"], 16);
  EXPECT_EQ(report["summary"][0]["skipped"], 3);
}

TEST(ImportCli, NotesOnStderrAndMissingFlagsNamed) {
  const Result notes = run(kServe + " --input 1024 --output 128 2>&1 >/dev/null", "");
  EXPECT_EQ(notes.status, 0);
  EXPECT_NE(notes.out.find("note: "), std::string::npos) << notes.out;
  EXPECT_NE(notes.out.find("run_by=alice"), std::string::npos) << notes.out;
  const Result no_lengths = run(kServe + " 2>&1", "");
  EXPECT_EQ(no_lengths.status, 2);
  EXPECT_NE(no_lengths.out.find("--input: required"), std::string::npos) << no_lengths.out;
  const Result no_gpu = run("import " + fixture("vllm_serve_concurrency.json") +
                                " --format vllm-serve --engine vllm --input 1024 --output 128 2>&1",
                            "");
  EXPECT_EQ(no_gpu.status, 2);
  EXPECT_NE(no_gpu.out.find("--gpu: required"), std::string::npos) << no_gpu.out;
  EXPECT_EQ(run("import " + fixture("vllm_serve_concurrency.json") + " --format gguf").status, 2);
}

TEST(ImportCli, GuidellmReportToRecordsThatValidateReads) {
  const Result r = run("import " + fixture("guidellm_benchmarks.json") +
                       " --format guidellm --gpu h100 --engine vllm --engine-version 0.10.2");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["records"].size(), 31u);
  EXPECT_EQ(doc["records"][0]["metric"]["name"], "ttft");
  EXPECT_EQ(doc["records"][0]["metric"]["value"], 22.8);
  EXPECT_EQ(doc["records"][0]["workload"]["concurrency"], 1);
  const auto path = std::filesystem::temp_directory_path() /
                    ("memwall-import-guidellm-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << r.out;
  const Result v = run("validate " + path.string() + " --json");
  std::filesystem::remove(path);
  ASSERT_EQ(v.status, 0) << v.out;
  EXPECT_EQ(nlohmann::json::parse(v.out)["cases"].size(), 31u);
}

TEST(ImportCli, ProfileExportsAndTheirRefusalsNamed) {
  const Result aiperf = run("import " + fixture("aiperf_profile_export.json") +
                            " --format aiperf --gpu h100 --engine vllm --engine-version 0.10.2");
  ASSERT_EQ(aiperf.status, 0) << aiperf.out;
  EXPECT_EQ(nlohmann::json::parse(aiperf.out)["records"].size(), 17u);
  // genai-perf's output lengths vary: the flag that says how to read them is named.
  const std::string genai = "import " + fixture("genai_perf_profile_export.json") +
                            " --format genai-perf --gpu h100 --engine trtllm";
  const Result lengths = run(genai + " 2>&1", "");
  EXPECT_EQ(lengths.status, 2);
  EXPECT_NE(lengths.out.find("output_sequence_length: the lengths vary"), std::string::npos)
      << lengths.out;
  EXPECT_EQ(run(genai + " --output uniform").status, 0);
  // One tool's export read as the other's: exit 2 naming the field.
  const Result other = run("import " + fixture("genai_perf_profile_export.json") +
                               " --format aiperf --gpu h100 --engine vllm 2>&1",
                           "");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.out.find("input_config.analyze"), std::string::npos) << other.out;
}

TEST(ImportCli, HelpListsEveryFormat) {
  const Result r = run("import --help");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* f : {"llm-d-report", "torchtitan-log", "nanotron-log", "megatron-log"})
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
}

// An llm-d Benchmark Report v0.2 (YAML) in, records that validate predicts.
TEST(ImportCli, LlmdReportToRecordsThatValidateReads) {
  const Result r = run("import " + fixture("llmd_benchmark_report_v0_2.yaml") +
                       " --format llm-d-report --gpu h100 --engine vllm --engine-version 0.10.2");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["records"].size(), 23u);
  EXPECT_EQ(doc["records"][0]["workload"]["concurrency"], 16);
  const auto path = std::filesystem::temp_directory_path() /
                    ("memwall-import-llmd-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << r.out;
  const Result v = run("validate " + path.string() + " --json");
  std::filesystem::remove(path);
  ASSERT_EQ(v.status, 0) << v.out;
  EXPECT_EQ(nlohmann::json::parse(v.out)["cases"].size(), 23u);
  const Result no_engine = run("import " + fixture("llmd_benchmark_report_v0_2.yaml") +
                                   " --format llm-d-report --gpu h100 2>&1",
                               "");
  EXPECT_EQ(no_engine.status, 2);
  EXPECT_NE(no_engine.out.find("--engine: required"), std::string::npos) << no_engine.out;
}

// torchtitan and nanotron logs in, records that calibrate fits the framework on.
TEST(ImportCli, TrainingLogsToRecordsThatCalibrateFits) {
  const std::string common =
      " --model llama-3.1-8b --gpu h100 --gpus 8 --tp 1 --pp 1 --precision bf16";
  const std::string torchtitan = "import " + fixture("torchtitan_training.log") +
                                 " --format torchtitan-log --framework fsdp-compiled" + common +
                                 " --micro-batch 1 --global-batch 8";
  const Result missing = run(torchtitan + " 2>&1", "");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("--seq-len: required"), std::string::npos) << missing.out;
  for (const auto& [name, command, n] :
       {std::tuple{std::string("torchtitan"), torchtitan + " --seq-len 8192", size_t(3)},
        std::tuple{std::string("nanotron"),
                   "import " + fixture("nanotron_training.log") + " --format nanotron-log" + common,
                   size_t(3)}}) {
    const Result imported = run(command);
    ASSERT_EQ(imported.status, 0) << name << ": " << imported.out;
    const auto doc = nlohmann::json::parse(imported.out);
    ASSERT_EQ(doc["records"].size(), n) << name;
    const auto records = std::filesystem::temp_directory_path() /
                         ("memwall-import-" + name + "-" + std::to_string(::getpid()) + ".json");
    const auto profile = std::filesystem::temp_directory_path() /
                         ("memwall-profile-" + name + "-" + std::to_string(::getpid()) + ".json");
    std::ofstream(records) << imported.out;
    const Result fit = run("calibrate " + records.string() + " --out " + profile.string());
    std::filesystem::remove(records);
    std::filesystem::remove(profile);
    ASSERT_EQ(fit.status, 0) << name << ": " << fit.out;
    EXPECT_NE(fit.out.find("compute_in_situ_fraction"), std::string::npos) << name << fit.out;
  }
}

}  // namespace
