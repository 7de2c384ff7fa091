// Runs the built memwall binary: `memwall infer --offload` (the done-when commands), its
// exit codes, the JSON `offload` object, and the hosts in `memwall catalog list`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

TEST(OffloadCli, SeventyBOnOne4090RunsWithAutoOffload) {
  const Result plain =
      run("infer --model llama-3.1-70b --gpu 4090 --weight-precision int4 "
          "--input 512 --output 128",
          "2>&1");  // the message is on stderr
  EXPECT_EQ(plain.status, 3);
  EXPECT_NE(plain.out.find("--offload auto would run it"), std::string::npos) << plain.out;
  const Result r =
      run("infer --model llama-3.1-70b --gpu 4090 --weight-precision int4 "
          "--input 512 --output 128 --offload auto --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"ttft_s", "tpot_s", "throughput_tokens_per_s", "memory_per_gpu_bytes",
                        "memory_per_host_bytes", "bound", "offload"})
    EXPECT_TRUE(j.contains(k)) << k;
  const auto& o = j["offload"];
  for (const char* k : {"strategy", "placement", "gpu_bytes", "host_bytes", "disk_bytes",
                        "transfer_time_per_step_s", "decode_step", "host"})
    EXPECT_TRUE(o.contains(k)) << k;
  EXPECT_GT(o["host_bytes"].get<double>(), 0);
  EXPECT_LE(o["gpu_bytes"].get<double>(), o["gpu_usable_bytes"].get<double>());
}

TEST(OffloadCli, DeepSeekV3OnOne4090WithATerabyteOfHostMemory) {
  const Result r =
      run("infer --model deepseek-v3 --gpu 4090 --weight-precision int4 --offload "
          "auto --host-memory 1024 --input 512 --output 128 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["offload"]["strategy"], "experts");
  EXPECT_EQ(j["offload"]["placement"]["expert_weights"]["compute"], "cpu");
  EXPECT_EQ(j["bound"], "DRAM bandwidth");
}

TEST(OffloadCli, BadInputExitsTwoAndImpossibleExitsThree) {
  const std::string base =
      "infer --model llama-3.1-70b --gpu 4090 --weight-precision int4 "
      "--input 64 --output 8 ";
  EXPECT_EQ(run(base + "--offload sideways").status, 2);
  EXPECT_EQ(run(base + "--offload layers:999").status, 2);
  EXPECT_EQ(run(base + "--offload experts").status, 2);  // a dense model
  EXPECT_EQ(run(base + "--offload auto --cpu no-such-cpu").status, 2);
  EXPECT_EQ(run(base + "--offload auto --host-memory -4").status, 2);
  EXPECT_EQ(run(base + "--offload auto --cpu 7950x --host-memory 4096").status, 3);
  EXPECT_EQ(run(base + "--offload none").status, 3);
}

TEST(OffloadCli, CatalogListsHosts) {
  const Result r = run("catalog list hosts");
  ASSERT_EQ(r.status, 0);
  for (const char* id :
       {"amd-epyc-9654", "amd-epyc-9755", "intel-xeon-platinum-8480", "intel-xeon-platinum-8592",
        "intel-xeon-6980p", "huawei-kunpeng-920-6426", "nvidia-grace", "amd-ryzen-9-7950x"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
}

}  // namespace
