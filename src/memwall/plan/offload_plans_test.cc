#include "memwall/plan/offload_plans.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/embedded.h"
#include "memwall/plan/query.h"

namespace memwall::plan {
namespace {

InferenceQuery deepseek_on_4090() {
  InferenceQuery q;
  q.model = "deepseek-v3";
  q.concurrency = 4;
  q.gpus = {"4090"};
  q.top = 3;
  // The pricing question of issue 14 over every precision (int4 on the 4090s), as it was asked.
  q.quality = "any";
  return q;
}

// The host costs far more than a 4090: priced in, the one-GPU offload plan is no longer cheaper
// per token than the 16-GPU plan (issue 14's `plan infer --model deepseek-v3 --gpus 4090`).
TEST(OffloadPlans, TheHostsPriceIsAddedToTheGpusAndRanksTheTotal) {
  const auto a =
      answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), deepseek_on_4090());
  ASSERT_FALSE(a->offload_plans.empty());
  ASSERT_FALSE(a->result.plans.empty());
  const OffloadPlan& p = a->offload_plans.front();
  EXPECT_EQ(p.host.host.id, "amd-epyc-9654");
  ASSERT_TRUE(p.host_cost.priced());
  ASSERT_TRUE(p.total.usd_per_million_tokens && p.cost.usd_per_million_tokens);
  const double gpu_only = *p.cost.usd_per_million_tokens, total = *p.total.usd_per_million_tokens;
  EXPECT_NEAR(p.total.per_hour->value(), p.cost.per_hour->value() + p.host_cost.hour.total->value(),
              1e-12);
  EXPECT_GT(p.host_cost.hour.capex->value(),
            5 * p.cost.capex_total->value());  // CPU + DRAM >> a 4090
  const double all_gpu = *a->result.plans.front().cost.usd_per_million_tokens;
  EXPECT_LT(gpu_only, all_gpu);  // what the GPU-only figure claimed
  EXPECT_GT(total, all_gpu);     // and what the buyer pays
  const Json j = offload_plans_json(a->offload_plans).at(0).at("cost");
  EXPECT_TRUE(j.at("host_priced").get<bool>());
  EXPECT_DOUBLE_EQ(j.at("usd_per_million_tokens_gpu_only").get<double>(), gpu_only);  // kept
  EXPECT_DOUBLE_EQ(j.at("usd_per_million_tokens").get<double>(), total);
  EXPECT_TRUE(j.at("host").at("covers").is_array());
  EXPECT_GT(j.at("total_capex_usd").get<double>(), j.at("gpu_capex_usd").get<double>());
}

// Without host prices the total is unknown (null), not the GPU's figure; a --catalog file's
// prices make a host cheap and the total follows.
TEST(OffloadPlans, UnknownHostPriceLeavesTheTotalUnknownAndUserPricesApply) {
  cost::PriceBook no_hosts;
  for (const auto& f : data::embedded_files()) {
    const std::string path(f.path);
    if (path.rfind("prices/", 0) == 0 && path != "prices/hosts.json")
      no_hosts.load(parse_document(f.content, path), "data/" + path);
  }
  const auto a = answer_inference(Catalog::builtin(), no_hosts, deepseek_on_4090());
  ASSERT_FALSE(a->offload_plans.empty());
  const OffloadPlan& p = a->offload_plans.front();
  EXPECT_FALSE(p.host_cost.priced());
  EXPECT_TRUE(p.cost.usd_per_million_tokens.has_value());
  EXPECT_FALSE(p.total.usd_per_million_tokens.has_value());
  const Json j = offload_plans_json(a->offload_plans).at(0).at("cost");
  EXPECT_FALSE(j.at("host_priced").get<bool>());
  EXPECT_TRUE(j.at("usd_per_million_tokens").is_null());
  EXPECT_FALSE(j.at("host").at("unknown").empty());

  cost::PriceBook cheap = cost::PriceBook::builtin();
  cheap.load(Json::parse(R"({"prices": {"hosts": [{"host": "amd-epyc-9654", "cpu_usd": 1}],
                                         "memory": [{"kind": "ddr5-rdimm", "usd_per_gb": 0.001}]}})"),
             "cheap.json");
  const auto b = answer_inference(Catalog::builtin(), cheap, deepseek_on_4090());
  const OffloadPlan& q = b->offload_plans.front();
  ASSERT_TRUE(q.host_cost.priced());
  EXPECT_NEAR(q.host_cost.hour.capex->value(), 1 + 768 * 0.001, 1e-9);
  EXPECT_LT(*q.total.usd_per_million_tokens, *b->result.plans.front().cost.usd_per_million_tokens);
}

// The vendor filters bind the offload section too (seed audit 3 D1: `plan infer --domestic-only
// --concurrency 300` listed RTX 5090/3090/4090, Gaudi 3 and L40S under "Offload plans").
TEST(OffloadPlans, VendorFiltersApplyToTheOffloadSection) {
  InferenceQuery q;
  q.concurrency = 300;
  q.domestic_only = true;
  const auto domestic = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  for (const auto& p : domestic->offload_plans)
    EXPECT_TRUE(is_domestic_vendor(Catalog::builtin().accelerator(p.gpu).vendor)) << p.gpu;
  q.domestic_only = false;
  q.vendors = {"huawei"};
  const auto huawei = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  for (const auto& p : huawei->offload_plans) EXPECT_EQ(p.gpu.rfind("huawei-", 0), 0u) << p.gpu;
  q.vendors = {"nvidia"};  // the filter keeps what it names
  const auto nvidia = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  ASSERT_FALSE(nvidia->offload_plans.empty());
  for (const auto& p : nvidia->offload_plans) EXPECT_EQ(p.gpu.rfind("nvidia-", 0), 0u) << p.gpu;
}

}  // namespace
}  // namespace memwall::plan
