// The planner with the real inference estimator and catalog picks what physics demands in clear
// cases (issue 7 "Done when"): capacity rules out impossible placements, long contexts at high
// concurrency move to large, fast memory, small loads go to cheap cards, and a tighter TTFT never
// makes the answer cheaper.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/step.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/inference_search.h"

namespace memwall::plan {
namespace {

struct Planner {
  const Catalog& catalog = Catalog::builtin();
  std::optional<Fabric> fabric = catalog.fabric("ib-ndr");
  cost::PriceBook prices = cost::PriceBook::builtin();
  SearchSpace space(const std::vector<std::string>& gpus) const {
    SearchSpace s;
    s.fabric = &*fabric;
    if (gpus.empty()) {
      for (const auto& a : catalog.accelerators()) s.accelerators.push_back(&a);
    } else {
      for (const auto& g : gpus) s.accelerators.push_back(&catalog.accelerator(g));
    }
    for (const auto& n : catalog.nodes()) s.nodes.push_back(&n);
    return s;
  }
  InferenceSearchResult run(const std::string& model, const InferenceWorkload& w, const SearchSpace& s,
                            SearchOptions o = {}) const {
    return search_inference(catalog.model(model), w, s, {}, o, estimator_factory(fabric), prices);
  }
};

InferenceWorkload load(double users, const std::string& in, const std::string& out, double ttft, double tpot) {
  InferenceWorkload w;
  w.load.concurrency = users;
  summarize_lengths(parse_lengths(in, out), w.input, w.output, &w);
  w.sla.ttft_p99 = Seconds(ttft);
  w.sla.tpot_p99 = Seconds(tpot);
  return w;
}

TEST(PlannerPhysics, Llama405bAtBf16IsNeverOnOneEightyGigabyteDevice) {
  Planner s;
  SearchSpace space = s.space({});
  space.weight_precisions = {Precision::bf16};
  const auto r = s.run("llama-3.1-405b", load(10, "sharegpt", "sharegpt", 2, 0.1), space);
  ASSERT_FALSE(r.plans.empty());
  for (const Plan& p : r.plans) {
    const double per_device = p.shape.accelerator->memory->value() * p.shape.devices();
    EXPECT_GT(per_device, 810e9) << p.shape.describe();  // 405 B x 2 bytes must fit the replica
    if (p.shape.accelerator->memory->value() <= 80e9) {
      EXPECT_GT(p.shape.devices(), 1);
    }
  }
  bool h100_rejected = false;
  for (const auto& v : r.rejected) {
    if (v.shape.accelerator->id == "nvidia-h100-sxm" && v.shape.devices() == 1) h100_rejected = true;
  }
  EXPECT_TRUE(h100_rejected);
}

TEST(PlannerPhysics, LongContextHighConcurrencyMovesToLargeFastMemory) {
  Planner s;
  const SearchSpace space = s.space({"4090", "l40s", "a100", "h100", "h200"});
  const auto small = s.run("llama-3.1-70b", load(16, "sharegpt", "sharegpt", 10, 0.05), space);
  const auto large = s.run("llama-3.1-70b", load(300, "32768", "512", 10, 0.05), space);
  ASSERT_FALSE(small.plans.empty());
  ASSERT_FALSE(large.plans.empty());
  const Accelerator& a = *small.plans.front().shape.accelerator;
  const Accelerator& b = *large.plans.front().shape.accelerator;
  // Never less capacity, strictly more bandwidth: the 80 GB A100 of the small load gives way to an
  // H100 or H200 (which of the two wins is a few % of cost per token, not physics).
  EXPECT_GE(b.memory->value(), a.memory->value());
  EXPECT_GT(b.memory_bandwidth->value(), a.memory_bandwidth->value());
  EXPECT_GE(b.memory->value(), 80e9);             // HBM data-centre parts, not 24-48 GB cards
  EXPECT_GE(b.memory_bandwidth->value(), 3e12);
}

TEST(PlannerPhysics, SmallModelAtLowLoadPicksACheapCard) {
  Planner s;
  const SearchSpace space = s.space({"h100", "4090", "l4"});
  for (auto basis : {cost::PricingBasis::owned, cost::PricingBasis::cloud}) {
    SearchOptions o;
    o.cost.basis = basis;
    const auto r = s.run("llama-2-7b", load(4, "sharegpt", "sharegpt", 5, 0.2), space, o);
    ASSERT_FALSE(r.plans.empty());
    const std::string best = r.plans.front().shape.accelerator->id;
    EXPECT_TRUE(best == "nvidia-rtx-4090" || best == "nvidia-l4") << best;
    double h100 = 0;
    for (const Plan& p : r.plans) {
      if (p.shape.accelerator->id == "nvidia-h100-sxm" && h100 == 0) h100 = *p.objective;
    }
    EXPECT_GT(h100, *r.plans.front().objective);
  }
}

TEST(PlannerPhysics, TighterTtftRaisesCostMonotonically) {
  Planner s;
  const SearchSpace space = s.space({"4090", "l40s", "h100", "h200", "mi300x"});
  double previous = 0;
  int plans = 0;
  for (double ttft : {8.0, 2.0, 1.0, 0.5, 0.25, 0.12}) {
    const auto r = s.run("qwen2.5-72b", load(300, "sharegpt", "sharegpt", ttft, 0.05), space);
    if (r.plans.empty()) break;
    ++plans;
    EXPECT_GE(*r.plans.front().objective, previous - 1e-12) << "TTFT " << ttft;
    previous = *r.plans.front().objective;
  }
  EXPECT_GE(plans, 4);
}

// A plan is timed with the engine it names, not a generic one: the planner's step for the shape
// of its best plan is the step `infer --engine <that engine>` times for the same deployment.
TEST(PlannerPhysics, PlansAreTimedWithTheEngineTheyName) {
  Planner s;
  const auto r = s.run("llama-3.1-8b", load(8, "1024", "256", 10, 0.1), s.space({"h100"}));
  ASSERT_FALSE(r.plans.empty());
  ReplicaShape shape = r.plans.front().shape;
  EXPECT_EQ(shape.engine, r.plans.front().software.engine);
  ASSERT_EQ(shape.engine, "vllm");
  const ModelSpec& model = s.catalog.model("llama-3.1-8b");
  const infer::DeploymentOptions o = deployment_options(shape);
  ASSERT_EQ(o.engine, "vllm");
  const infer::Deployment vllm = infer::make_deployment(
      model, *shape.accelerator, shape.node ? std::optional<Node>(*shape.node) : std::nullopt,
      s.fabric, o);
  infer::StepBatch decode;
  decode.decode_sequences = 8;
  decode.decode_context_tokens = 8 * 1024;
  const ReplicaModel named = estimator_factory(s.fabric)(model, shape);
  EXPECT_DOUBLE_EQ(named.step(decode).value(), infer::step_time(vllm, decode).value());
  shape.engine.clear();  // the generic default profile times it differently
  const ReplicaModel generic = estimator_factory(s.fabric)(model, shape);
  EXPECT_GT(std::abs(named.step(decode).value() / generic.step(decode).value() - 1), 0.02);
}

}  // namespace
}  // namespace memwall::plan
