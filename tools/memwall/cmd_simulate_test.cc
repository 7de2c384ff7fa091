// CLI contract of `memwall simulate`'s host-memory options: swap and the host KV cache answer with
// the host_kv object, bad values exit 2 naming the field, too little host memory exits 3.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::run;

TEST(SimulateCli, HostKvCacheAndSwapAnswerWithTheirCounters) {
  const auto r =
      run("simulate --model llama-3.1-8b --gpu h100 --dataset fixed:2000,20 --rate 2 --requests 50 "
          "--prefix-hit-rate 0.5 --prefix-pool 5 --host-kv-cache 8 --preemption swap --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("host_kv"));
  const auto& p = j["host_kv"]["prefix"];
  EXPECT_EQ(p["requested_tokens"].get<int64_t>(), p["gpu_hit_tokens"].get<int64_t>() +
                                                      p["host_hit_tokens"].get<int64_t>() +
                                                      p["computed_tokens"].get<int64_t>());
  EXPECT_GT(p["host_hit_tokens"].get<int64_t>(), 0);
  EXPECT_TRUE(j["host_kv"]["host"]["link"].is_string());
  EXPECT_TRUE(j.contains("preemptions"));  // existing keys stay
}

TEST(SimulateCli, BadHostValuesExitTwoAndTooLittleHostMemoryExitsThree) {
  const std::string base =
      "simulate --model llama-3.1-8b --gpu h100 --dataset fixed:100,10 --rate 1 --requests 5 ";
  EXPECT_EQ(run(base + "--prefix-hit-rate 1.5").status, 2);
  EXPECT_EQ(run(base + "--host-kv-cache -1").status, 2);
  EXPECT_EQ(run(base + "--prefix-pool 0").status, 2);
  EXPECT_EQ(run(base + "--preemption drop").status, 2);
  const auto e = run(base + "--host-kv-cache 100 --host-memory 64", "2>&1");
  EXPECT_EQ(e.status, 3);
  EXPECT_NE(e.out.find("host memory"), std::string::npos) << e.out;
}

}  // namespace
