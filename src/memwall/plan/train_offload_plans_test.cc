#include "memwall/plan/train_offload_plans.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"

namespace memwall::plan {
namespace {

// Llama 3.1 8B on 1B tokens within 30 days, on at most one RTX 4090.
struct EightBOnOne4090 {
  const Catalog& c = Catalog::builtin();
  TrainGoal goal;
  TrainSpace space;
  EightBOnOne4090() {
    goal.tokens = parse_token_count("1B");
    goal.days = 30;
    goal.max_gpus = 1;
    space.accelerators.push_back(&c.accelerator("4090"));
    for (const auto& n : c.nodes()) space.nodes.push_back(&n);
  }
};

TEST(TrainOffloadPlans, OneConsumerGpuTrainsAnEightBModelWithTheOptimizerInDram) {
  const EightBOnOne4090 s;
  const Catalog& c = s.c;
  const TrainGoal& goal = s.goal;
  const TrainSpace& space = s.space;
  const ModelSpec model = c.model("llama-3.1-8b");
  // The all-GPU search has no run: 8B with Adam does not fit one 24 GiB card.
  EXPECT_TRUE(search_training(model, goal, space, {}, cost::PriceBook::builtin()).plans.empty());
  const auto plans =
      search_training_offload(c, model, goal, space, {}, cost::PriceBook::builtin(), 5);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) {
    EXPECT_EQ(p.config.gpus, 1);
    EXPECT_NE(p.spec.optimizer, train::OffloadDevice::none);
    EXPECT_LE(p.memory_per_gpu.value(), 24.0 * kGiB);
    EXPECT_GT(p.host_per_node.value(), 100e9);  // ~14 bytes per parameter in DRAM
    EXPECT_NEAR(p.days, goal.tokens / p.tokens_per_s / 86400.0, 1e-9);
    EXPECT_EQ(p.meets_deadline, p.days <= goal.days);
  }
  EXPECT_TRUE(plans.front().meets_deadline);
  const Json j = train_offload_plans_json(plans);
  EXPECT_TRUE(j.at(0).at("offload").get<bool>());
  // The node's price already carries a host (its platform share): counted once, not twice.
  const TrainOffloadPlan& p = plans.front();
  EXPECT_TRUE(p.host_in_gpu_price);
  EXPECT_EQ(p.total_cost_usd, p.cost_usd);
  EXPECT_TRUE(j.at(0).at("host_priced").get<bool>());
  EXPECT_TRUE(j.at(0).at("host_cost").at("covers").is_array());
}

// --capex prices the device alone: the offload host's CPUs, DRAM and NVMe are added per node.
TEST(TrainOffloadPlans, ADeviceOnlyPriceAddsTheOffloadHost) {
  const EightBOnOne4090 s;
  cost::CostOverrides o;
  o.capex_usd = 1599;
  const auto plans = search_training_offload(s.c, s.c.model("llama-3.1-8b"), s.goal, s.space, o,
                                             cost::PriceBook::builtin(), 5);
  ASSERT_FALSE(plans.empty());
  const TrainOffloadPlan& p = plans.front();
  EXPECT_FALSE(p.host_in_gpu_price);
  ASSERT_TRUE(p.cost_usd && p.host_cost.priced() && p.total_cost_usd);
  EXPECT_NEAR(*p.total_cost_usd, *p.cost_usd + p.host_cost.hour.total->value() * p.nodes * p.days * 24.0, 1e-6);
  EXPECT_GT(*p.total_cost_usd, *p.cost_usd);
}

// --domestic-only binds the training offload plans as it does the all-GPU runs (the filter used
// to read only --vendors there).
TEST(TrainOffloadPlans, DomesticOnlyDropsOtherVendors) {
  EightBOnOne4090 s;
  s.space.domestic_only = true;
  EXPECT_TRUE(search_training_offload(s.c, s.c.model("llama-3.1-8b"), s.goal, s.space, {},
                                      cost::PriceBook::builtin(), 5)
                  .empty());
}

}  // namespace
}  // namespace memwall::plan
