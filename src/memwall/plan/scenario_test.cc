// compare --scenario (issue 33 item 5): the presets rank accelerators with the wall that decides
// each row, through answer_compare and search_training.
#include "memwall/plan/scenario.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

struct Planner {
  const Catalog& catalog = Catalog::builtin();
  const cost::PriceBook prices = cost::PriceBook::builtin();
  const score::EcosystemBook ecosystem = score::EcosystemBook::builtin();
  ScenarioAnswer run(const std::string& scenario, std::vector<std::string> gpus) const {
    CompareQuery q;
    q.gpus = std::move(gpus);
    return answer_scenario(catalog, prices, ecosystem, scenario, q);
  }
};

const ScenarioRow& row(const ScenarioAnswer& a, const std::string& id) {
  for (const auto& r : a.rows)
    if (r.accelerator->id == id) return r;
  throw std::logic_error("no row " + id);
}

TEST(Scenario, ABadNameIsBadInputNamingTheAllowedOnes) {
  try {
    scenario_preset("longcontext");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--scenario"), std::string::npos) << what;
    EXPECT_NE(what.find("longcontext"), std::string::npos) << what;
    EXPECT_NE(what.find("chat, long-context, batch, training"), std::string::npos) << what;
  }
}

// Long context on mature stacks: 16 sequences of 101000 tokens hold 16 x 101000 x 327680 B = 530 GB
// of KV beside 141 GB of weights, so KV space caps every replica's batch: memory capacity decides.
// The same chips in the chat preset are not decided by capacity: the wall is computed per workload.
TEST(Scenario, LongContextIsDecidedByMemoryCapacity) {
  const Planner s;
  // The H100's 80 GB holds 14 of the 16 users' 100,000-token KV caches per decode replica: memory
  // capacity decides. The H200's 141 GB holds all 16, so the users (load) decide it, not memory.
  const ScenarioAnswer lc = s.run("long-context", {"h100", "h200"});
  ASSERT_EQ(lc.rows.size(), 2u);
  const ScenarioRow& h100 = row(lc, "nvidia-h100-sxm");
  ASSERT_TRUE(h100.feasible) << h100.basis;
  EXPECT_EQ(h100.wall, DecidingWall::memory_capacity) << h100.basis;
  // Aggregated ("memory capacity binds") or disaggregated ("its batch capped by memory").
  EXPECT_NE(h100.basis.find("memory"), std::string::npos) << h100.basis;
  const ScenarioRow& h200 = row(lc, "nvidia-h200-sxm");
  ASSERT_TRUE(h200.feasible) << h200.basis;
  EXPECT_NE(h200.wall, DecidingWall::compute) << h200.basis;
  const ScenarioAnswer chat = s.run("chat", {"h100"});
  EXPECT_NE(row(chat, "nvidia-h100-sxm").wall, DecidingWall::memory_capacity);
}

// An immature stack (below 6/10 or unknown) is decided by its ecosystem, whatever its hardware
// wall, which is still given; a mature one by the hardware. Rows are ranked by cost.
TEST(Scenario, AnImmatureStackIsDecidedByItsEcosystem) {
  const Planner s;
  const ScenarioAnswer chat = s.run("chat", {"h100", "mi300x", "910b", "p800"});
  const ScenarioRow& p800 = row(chat, "kunlunxin-p800");
  ASSERT_TRUE(p800.ecosystem);
  EXPECT_LT(*p800.ecosystem, 6.0);
  EXPECT_EQ(p800.wall, DecidingWall::ecosystem);
  EXPECT_NE(p800.hardware_wall, DecidingWall::ecosystem);
  EXPECT_TRUE(p800.domestic);
  const ScenarioRow& h100 = row(chat, "nvidia-h100-sxm");
  EXPECT_EQ(h100.wall, h100.hardware_wall);
  EXPECT_FALSE(h100.domestic);
  for (size_t i = 1; i < chat.rows.size(); ++i)
    if (chat.rows[i - 1].usd_per_million_tokens && chat.rows[i].usd_per_million_tokens) {
      EXPECT_LE(*chat.rows[i - 1].usd_per_million_tokens, *chat.rows[i].usd_per_million_tokens);
    }
}

// Training: the largest share of the step decides; a 70B run on H100 is compute-bound.
TEST(Scenario, TrainingRowsComeFromTheTrainingPlanner) {
  const Planner s;
  const ScenarioAnswer t = s.run("training", {"h100", "910b"});
  ASSERT_TRUE(t.preset.training);
  const ScenarioRow& h100 = row(t, "nvidia-h100-sxm");
  ASSERT_TRUE(h100.feasible) << h100.basis;
  ASSERT_TRUE(h100.run_days);
  EXPECT_LE(*h100.run_days, 30.0);
  EXPECT_LE(h100.devices, 2048);
  EXPECT_EQ(h100.wall, DecidingWall::compute) << h100.basis;
  EXPECT_NE(h100.basis.find("compute"), std::string::npos);
}

}  // namespace
}  // namespace memwall::plan
