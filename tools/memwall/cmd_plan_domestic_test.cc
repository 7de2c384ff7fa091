// Runs the built memwall binary: domestic inference plans on the cards and small hosts buyers use
// (issue 33 item 2), each priced plan citing its price, each unpriced one naming what is unknown.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

bool has_source(const nlohmann::json& plan, const std::string& text) {
  for (const auto& s : plan["sources"])
    if (s.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// A 7B model for 20 users no longer buys an 8-card server: the cheapest domestic plan is one
// Atlas 300I Duo host (2 cards = 4 Ascend 310P chips, TP4, fp16: the card has no bf16), priced
// from the card's reported price and the sourced PCIe host, and it costs less per token than the
// best 8 x 910B server plan.
TEST(PlanDomesticCli, SevenBForTwentyUsersBuysAnInferenceCardHost) {
  const Result r =
      run("plan infer --domestic-only --model qwen2.5-7b --concurrency 20 --top 400 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& best = j["plans"][0];
  EXPECT_EQ(best["accelerator"], "huawei-atlas-300i-duo");
  EXPECT_EQ(best["node"].get<std::string>().rfind("atlas-300i-duo-", 0), 0u) << best["node"];
  EXPECT_LT(best["devices"].get<int>(), 8);
  EXPECT_EQ(best["servers"], 1);
  EXPECT_EQ(best["weight_precision"], "fp16");
  ASSERT_TRUE(best["usd_per_million_tokens"].is_number());
  EXPECT_TRUE(has_source(best, "capex of huawei-atlas-300i-duo: half of one Atlas 300I Duo card"))
      << best["sources"].dump();
  EXPECT_TRUE(has_source(best, "host platform of atlas-300i-duo-")) << best["sources"].dump();
  double best_server = 0;
  for (const auto& p : j["plans"])
    if (p["node"] == "ascend-910b-8" && p["usd_per_million_tokens"].is_number() &&
        (best_server == 0 || p["usd_per_million_tokens"].get<double>() < best_server))
      best_server = p["usd_per_million_tokens"].get<double>();
  ASSERT_GT(best_server, 0);
  EXPECT_LT(best["usd_per_million_tokens"].get<double>(), best_server);
}

// The default scenario (Qwen2.5-72B, 300 users) on domestic parts: plans are priced where a capex
// and a power figure are sourced, and every unpriced plan says which of them is unknown (the
// MLU590 now has a sourced price, so only its TDP is missing).
TEST(PlanDomesticCli, EveryUnpricedDomesticPlanNamesWhatIsUnknown) {
  const Result r = run("plan infer --domestic-only --concurrency 300 --top 400 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["plans"][0]["usd_per_million_tokens"].is_number());
  std::set<std::string> priced;
  bool mlu590_seen = false;
  for (const auto& p : j["plans"]) {
    const std::string id = p["accelerator"];
    if (p["usd_per_million_tokens"].is_number()) {
      priced.insert(id);
      continue;
    }
    ASSERT_FALSE(p["unknown"].empty()) << id;
    if (id == "cambricon-mlu590") {  // a disaggregated plan also lists its prefill pool's gaps
      mlu590_seen = true;
      const std::string unknown = p["unknown"].dump();
      EXPECT_NE(unknown.find("TDP of cambricon-mlu590"), std::string::npos) << unknown;
      EXPECT_EQ(unknown.find("capex of cambricon-mlu590"), std::string::npos) << unknown;
    }
  }
  EXPECT_TRUE(priced.count("huawei-ascend-910b"));
  EXPECT_TRUE(mlu590_seen);
}

}  // namespace
