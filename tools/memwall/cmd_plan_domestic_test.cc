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

// The vendor of a plan's accelerator: the catalog id's first word (huawei-ascend-910b -> huawei).
std::string vendor_of(const nlohmann::json& plan) {
  const std::string id = plan["accelerator"];
  return id.substr(0, id.find('-'));
}

// A 7B model for 20 users no longer buys an 8-card server: the cheapest domestic plan is one small
// PCIe host (an Iluvatar Tiangai 100 card, priced at the training series' prospectus average
// selling price), the Atlas 300I Duo host (2 cards = 4 Ascend 310P chips, TP4, fp16: the card has
// no bf16) is priced from the card's reported price and the sourced PCIe host, and both cost less
// per token than the best 8 x 910B server plan.
TEST(PlanDomesticCli, SevenBForTwentyUsersBuysAnInferenceCardHost) {
  const Result r =
      run("plan infer --domestic-only --model qwen2.5-7b --concurrency 20 --top 400 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& best = j["plans"][0];
  EXPECT_EQ(best["accelerator"], "iluvatar-bi-v100");
  EXPECT_EQ(best["node"].get<std::string>().rfind("iluvatar-bi-v100-", 0), 0u) << best["node"];
  EXPECT_LT(best["devices"].get<int>(), 8);
  ASSERT_TRUE(best["usd_per_million_tokens"].is_number());
  EXPECT_TRUE(has_source(best, "capex of iluvatar-bi-v100: Iluvatar CoreX Hong Kong prospectus"))
      << best["sources"].dump();
  EXPECT_TRUE(has_source(best, "host platform of iluvatar-bi-v100-")) << best["sources"].dump();
  const nlohmann::json* duo = nullptr;
  double best_server = 0;
  for (const auto& p : j["plans"]) {
    if (!duo && p["accelerator"] == "huawei-atlas-300i-duo") duo = &p;
    if (p["node"] == "ascend-910b-8" && p["usd_per_million_tokens"].is_number() &&
        (best_server == 0 || p["usd_per_million_tokens"].get<double>() < best_server))
      best_server = p["usd_per_million_tokens"].get<double>();
  }
  ASSERT_NE(duo, nullptr);
  EXPECT_EQ((*duo)["node"].get<std::string>().rfind("atlas-300i-duo-", 0), 0u) << (*duo)["node"];
  EXPECT_LT((*duo)["devices"].get<int>(), 8);
  EXPECT_EQ((*duo)["servers"], 1);
  EXPECT_EQ((*duo)["weight_precision"], "fp16");
  ASSERT_TRUE((*duo)["usd_per_million_tokens"].is_number());
  EXPECT_TRUE(has_source(*duo, "capex of huawei-atlas-300i-duo: half of one Atlas 300I Duo card"))
      << (*duo)["sources"].dump();
  EXPECT_TRUE(has_source(*duo, "host platform of atlas-300i-duo-")) << (*duo)["sources"].dump();
  ASSERT_GT(best_server, 0);
  EXPECT_LT(best["usd_per_million_tokens"].get<double>(), best_server);
  EXPECT_LT((*duo)["usd_per_million_tokens"].get<double>(), best_server);
}

// The default scenario (Qwen2.5-72B, 300 users) on domestic parts: plans are priced where a capex
// and a power figure are sourced, and every unpriced plan says which of them is unknown (the
// Kunlun P800 and Moore Threads S4000 lack both, the Hygon K100 and Biren BR100 a price).
TEST(PlanDomesticCli, EveryUnpricedDomesticPlanNamesWhatIsUnknown) {
  const Result r = run("plan infer --domestic-only --concurrency 300 --top 400 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["plans"][0]["usd_per_million_tokens"].is_number());
  std::set<std::string> priced;
  bool p800_seen = false;
  for (const auto& p : j["plans"]) {
    const std::string id = p["accelerator"];
    if (p["usd_per_million_tokens"].is_number()) {
      priced.insert(id);
      continue;
    }
    ASSERT_FALSE(p["unknown"].empty()) << id;
    if (id == "kunlunxin-p800") {  // a disaggregated plan also lists its prefill pool's gaps
      p800_seen = true;
      const std::string unknown = p["unknown"].dump();
      EXPECT_NE(unknown.find("capex of kunlunxin-p800"), std::string::npos) << unknown;
      EXPECT_NE(unknown.find("TDP of kunlunxin-p800"), std::string::npos) << unknown;
    }
  }
  EXPECT_TRUE(priced.count("huawei-ascend-910b"));
  EXPECT_TRUE(priced.count("cambricon-mlu590"));  // aggregator price and TDP, both low confidence
  EXPECT_TRUE(p800_seen);
}

// Issue 33: both domestic questions get priced plans from several vendors, each price cited with
// its confidence. Four vendors have a sourced price today (Huawei, Cambricon, MetaX, Iluvatar;
// docs/cost.md lists what was searched for the rest), on 8-card servers and, for the 7B model, on
// hosts smaller than one.
// The bar: both domestic questions are priced on at least five vendors. The fifth and
// sixth are Hygon (a K100 64 GB card at a university's purchase price, 8-card servers) and, for
// the 7B model, Kunlunxin (R200 hosts at fp16: the vendor states fp16 and no bf16 peak).
TEST(PlanDomesticCli, BothDomesticQuestionsArePricedOnFiveVendors) {
  for (const std::string args : {"plan infer --domestic-only --concurrency 300 --top 400 --json",
                                  "plan infer --domestic-only --model qwen2.5-7b --concurrency 20 "
                                  "--top 400 --json"}) {
    const Result r = run(args);
    ASSERT_EQ(r.status, 0) << args;
    const auto j = nlohmann::json::parse(r.out);
    std::set<std::string> vendors;
    bool small_host = false;
    for (const auto& p : j["plans"]) {
      // Aggregated plans only: a vendor counts when its own servers serve the whole workload,
      // not as the decode half of a pair with another vendor's prefill pool.
      if (!p["usd_per_million_tokens"].is_number() || p["serving"] != "aggregated") continue;
      vendors.insert(vendor_of(p));
      // No bf16 peak is published for the R200: its plans run at the fp16 the vendor states.
      if (vendor_of(p) == "kunlunxin") {
        EXPECT_EQ(p["weight_precision"], "fp16") << args;
      }
      // The device's own price, or its server's (a CloudMatrix 384 is bought as one rack).
      const std::string id = p["accelerator"];
      EXPECT_TRUE(has_source(p, "capex of " + id + ": ") || has_source(p, "server price of "))
          << args << ": " << p["sources"].dump();
      if (p["devices"].get<int>() < 8 && p["servers"].get<int>() <= 1) small_host = true;
    }
    for (const char* v : {"huawei", "cambricon", "metax", "iluvatar", "hygon"})
      EXPECT_TRUE(vendors.count(v)) << args << ": no priced plan on " << v;
    EXPECT_GE(vendors.size(), 5u) << args;
    if (args.find("qwen2.5-7b") != std::string::npos) {
      EXPECT_TRUE(small_host) << args;
      // The R200 (16 GB) serves the 7B model on a 4-card host, at fp16.
      EXPECT_TRUE(vendors.count("kunlunxin")) << args;
    }
  }
}

}  // namespace
