#include "memwall/plan/train_offload_plans.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"

namespace memwall::plan {
namespace {

TEST(TrainOffloadPlans, OneConsumerGpuTrainsAnEightBModelWithTheOptimizerInDram) {
  const Catalog& c = Catalog::builtin();
  TrainGoal goal;
  goal.tokens = parse_token_count("1B");
  goal.days = 30;
  goal.max_gpus = 1;
  TrainSpace space;
  space.accelerators.push_back(&c.accelerator("4090"));
  for (const auto& n : c.nodes()) space.nodes.push_back(&n);
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
}

}  // namespace
}  // namespace memwall::plan
