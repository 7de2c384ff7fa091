// Runs the built memwall binary: one ranking prices every row on one stated boundary (issue 28
// item 2; docs/cost.md "One boundary per ranking").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

// The issue's own command: every row owned, every priced row on a node (a host is part of the
// price), and the consumer cards bought as one-card workstations, not bare cards or 8-card servers.
TEST(PlanPricingCli, SevenBForTwentyUsersIsPricedOnOneBoundary) {
  const Result r = run("plan infer --model qwen2.5-7b --concurrency 20 --top 400 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["plans"].empty());
  bool saw_consumer = false;
  for (const auto& p : j["plans"]) {
    EXPECT_EQ(p["pricing_basis"], "owned") << p["accelerator"];
    if (p["usd_per_million_tokens"].is_number() || p["tokens_per_joule"].is_number()) {
      EXPECT_FALSE(p["node"].is_null()) << p["accelerator"] << ": priced or powered without a host";
    }
    const std::string a = p["accelerator"];
    if (a == "nvidia-rtx-5090" || a == "nvidia-rtx-3090" || a == "nvidia-rtx-4090") {
      if (p["devices"] == 1 && p["usd_per_million_tokens"].is_number()) {
        saw_consumer = true;
        EXPECT_EQ(p["billed_devices"], 1) << a << " on " << p["node"];
      }
    }
  }
  EXPECT_TRUE(saw_consumer);
  const Result text = run("plan infer --model qwen2.5-7b --concurrency 20 --top 5");
  EXPECT_NE(text.out.find("Every row priced owned (card + host + network + power x PUE + hosting)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("power: TDP of nvidia-rtx-5090 (catalog))"), std::string::npos);
}

TEST(PlanPricingCli, CloudBoundaryIsOneOptionAndAutoIsGone) {
  const Result r =
      run("plan infer --model qwen2.5-7b --concurrency 20 --pricing cloud --top 50 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);  // kept alive: the loop runs over its "plans"
  for (const auto& p : j["plans"])
    EXPECT_EQ(p["pricing_basis"], "cloud") << p["accelerator"];
  EXPECT_EQ(run("plan infer --model qwen2.5-7b --concurrency 20 --pricing auto").status, 2);
}

// A node that needs a patched peer-to-peer driver is a risk, in RISK and in the JSON.
TEST(PlanPricingCli, PatchedPeerToPeerDriverIsFlagged) {
  const Result r = run(
      "plan infer --model qwen2.5-72b --concurrency 50 --gpus rtx-4090 --top 400 --json");
  ASSERT_EQ(r.status, 0);
  bool saw_p2p = false;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& p : j["plans"]) {
    if (p["node"] != "pcie-4090-p2p") continue;
    saw_p2p = true;
    bool flagged = false;
    for (const auto& risk : p["risks"])
      flagged |= risk.get<std::string>().find("patched") != std::string::npos;
    EXPECT_TRUE(flagged) << p["risks"];
  }
  EXPECT_TRUE(saw_p2p);
}

// --objective power ranks rows of one power boundary: a board-only row (no node, no host) has no
// wall power and cannot rank first against rows that include their host.
TEST(PlanPricingCli, PowerRankingNeverPutsABoardOnlyRowFirst) {
  const Result r = run("plan infer --concurrency 300 --objective power --top 5 --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["plans"].empty());
  EXPECT_FALSE(j["plans"][0]["node"].is_null()) << j["plans"][0]["accelerator"];
  EXPECT_TRUE(j["plans"][0]["facility_power_w"].is_number());
}

// A rack-scale system is charged and labelled as a rack: a CloudMatrix 384 plan buys the whole
// 384-NPU system at its $8 M price (SemiAnalysis, data/prices/servers.json), never a per-card
// share of it, its NODE cell says
// [rack] and its JSON purchase_unit "rack"; an HGX plan in the same ranking buys servers.
TEST(PlanPricingCli, RackScaleSystemsAreChargedAndLabelledAsRacks) {
  const std::string args = "plan infer --concurrency 300 --gpus 910c,h100 --top 50";
  const Result r = run(args + " --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  bool saw_rack = false, saw_server = false;
  for (const auto& p : j["plans"]) {
    if (p["node"] == "cloudmatrix-384") {
      saw_rack = true;
      EXPECT_EQ(p["purchase_unit"], "rack");
      EXPECT_EQ(p["servers"], 1);
      EXPECT_EQ(p["billed_devices"], 384);
      // The rack, plus fabric ports where a plan spans the fabric.
      EXPECT_GE(p["capex_usd"].get<double>(), 8e6);
    } else if (p["node"] == "hgx-h100") {
      saw_server = true;
      EXPECT_EQ(p["purchase_unit"], "server");
    }
  }
  EXPECT_TRUE(saw_rack && saw_server);
  const Result text = run(args);
  EXPECT_NE(text.out.find("cloudmatrix-384 [rack]"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("a [rack] NODE"), std::string::npos);
}

}  // namespace
