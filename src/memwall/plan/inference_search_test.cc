// The search machinery on a synthetic replica model (a plain roofline written here as a test
// double): the estimator's physics is tested in infer/, the planner's choices with it in
// planner_physics_test.cc.
#include "memwall/plan/inference_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

struct Fixture {
  std::vector<Accelerator> accels;
  ModelSpec model;
  cost::PriceBook prices;
  Fixture() {
    accels.push_back(make("fast-gpu", "NVIDIA", 80, 3.35, 989, 700, 30000));
    accels.push_back(make("cheap-gpu", "NVIDIA", 24, 1.0, 165, 450, 1600));
    accels.push_back(make("npu", "Huawei", 64, 1.6, 300, 400, 16000));
    model.id = "toy-8b";
    model.layers = 32;
    model.hidden = 4096;
    model.heads = 32;
    model.kv_heads = 8;
    model.head_dim = 128;
    model.ffn = 14336;
    model.vocab = 128256;
    prices.load(Json::parse(R"({"prices": {"facility": {"electricity_usd_per_kwh": 0.1, "pue": 1.5,
        "hosting_usd_per_kw_month": 150, "life_years": 3, "idle_power_fraction": 0.3}}})"), "t");
    Json list = Json::array();
    for (const auto& a : accels) list.push_back({{"accelerator", a.id}, {"capex_usd", a.price->value()}});
    prices.load(Json{{"prices", {{"accelerators", list}}}}, "t");
  }
  static Accelerator make(std::string id, std::string vendor, double gb, double tbps, double tflops,
                          double tdp, double price) {
    Accelerator a;
    a.id = std::move(id);
    a.vendor = std::move(vendor);
    a.memory = Bytes(gb * 1e9);
    a.memory_bandwidth = BytesPerSecond(tbps * 1e12);
    a.dense_peak["bf16"] = FlopsPerSecond(tflops * 1e12);
    a.tdp = Watts(tdp);
    a.price = Dollars(price);
    return a;
  }
  SearchSpace space() const {
    SearchSpace s;
    for (const auto& a : accels) s.accelerators.push_back(&a);
    s.weight_precisions = {Precision::bf16};
    s.kv_precisions = {Precision::bf16};
    return s;
  }
};

// Roofline test double: 8e9 parameters, 128 KiB of KV per token, 20 ms of fixed overhead per step.
ReplicaModelFactory toy_factory() {
  return [](const ModelSpec&, const ReplicaShape& s) {
    ReplicaModel m;
    const double n = s.devices();
    const double weights = 16e9, kv_per_token = 131072, params = 8e9;
    const double memory = s.accelerator->memory->value() * n * 0.9;
    if (weights > memory) {
      m.infeasible = "weights do not fit";
      return m;
    }
    const double bw = s.accelerator->memory_bandwidth->value() * n * 0.8;
    const double flops = s.accelerator->dense_peak.at("bf16")->value() * n * 0.6;
    m.max_batch = [=](double ctx) { return int((memory - weights) / (ctx * kv_per_token)); };
    m.step = [=](const infer::StepBatch& b) {
      const double tokens = double(b.prefill_tokens + b.decode_sequences);
      const double bytes = weights + double(b.decode_context_tokens) * kv_per_token;
      return Seconds(std::max(bytes / bw, 2 * params * tokens / flops) + 0.002);
    };
    return m;
  };
}

InferenceWorkload chat(double users, double ttft) {
  InferenceWorkload w;
  w.load.concurrency = users;
  w.input = {1000, 3000, "test"};
  w.output = {300, 900, "test"};
  w.sla.ttft_p99 = Seconds(ttft);
  w.sla.tpot_p99 = Seconds(0.05);
  return w;
}

TEST(InferenceSearch, BisectionFindsTheLargestFeasibleBatch) {
  Fixture f;
  const auto factory = toy_factory();
  const auto w = chat(200, 2.0);
  const auto r = search_inference(f.model, w, f.space(), {}, {}, factory, f.prices);
  ASSERT_FALSE(r.plans.empty());
  for (const Plan& p : r.plans) {
    const ReplicaModel m = factory(f.model, p.shape);
    const int cap = std::min(200, m.max_batch(w.input.mean + w.output.mean / 2));
    int brute = 0;
    for (int b = 1; b <= cap; ++b) {
      if (meets_sla(steady_state(m, w, b), w.sla)) brute = b;
    }
    // The plan reports the even split of the 200 users; the per-replica cap is the brute-force one.
    EXPECT_EQ(int(std::ceil(200.0 / p.replicas - 1e-9)), p.point.batch);
    EXPECT_EQ(p.replicas, int(std::ceil(200.0 / brute - 1e-9))) << p.shape.describe();
    EXPECT_EQ(p.replicas, int(std::ceil(200.0 / brute - 1e-9)));
    EXPECT_LE(p.point.batch * p.replicas, 200 + brute);
  }
}

TEST(InferenceSearch, PlansAreRankedAndConstraintsHold) {
  Fixture f;
  Constraints c;
  c.domestic_only = true;
  const auto r = search_inference(f.model, chat(50, 2.0), f.space(), c, {}, toy_factory(), f.prices);
  ASSERT_FALSE(r.plans.empty());
  for (const Plan& p : r.plans) EXPECT_EQ(p.shape.accelerator->vendor, "Huawei");
  const auto all = search_inference(f.model, chat(50, 2.0), f.space(), {}, {}, toy_factory(), f.prices);
  for (size_t i = 1; i < all.plans.size(); ++i) {
    ASSERT_TRUE(all.plans[i - 1].objective && all.plans[i].objective);
    EXPECT_LE(*all.plans[i - 1].objective, *all.plans[i].objective);
  }
  // Every plan's $/M tokens is its hourly cost over its tokens per hour.
  const Plan& best = all.plans.front();
  EXPECT_NEAR(*best.cost.usd_per_million_tokens,
              best.cost.per_hour->value() / (best.generated_tokens_per_s * 3600) * 1e6, 1e-9);
  EXPECT_FALSE(best.binding.empty());
}

TEST(InferenceSearch, TighterTtftNeverLowersCost) {
  Fixture f;
  double previous = 0;
  for (double ttft : {4.0, 2.0, 1.0, 0.5, 0.3}) {
    const auto r = search_inference(f.model, chat(300, ttft), f.space(), {}, {}, toy_factory(), f.prices);
    if (r.plans.empty()) break;
    const double best = *r.plans.front().objective;
    EXPECT_GE(best, previous - 1e-12) << "ttft " << ttft;
    previous = best;
  }
  EXPECT_GT(previous, 0);
}

TEST(InferenceSearch, InfeasibleShapesSayWhy) {
  Fixture f;
  Constraints c;
  c.max_gpus = 1;
  const auto r = search_inference(f.model, chat(10, 1.0), f.space(), c, {}, toy_factory(), f.prices);
  // With one device allowed, every replica is one device.
  for (const Plan& p : r.plans) EXPECT_EQ(p.devices, p.replicas);
  InferenceWorkload bad = chat(10, 1.0);
  bad.load.rate_per_s = 1;
  EXPECT_THROW(search_inference(f.model, bad, f.space(), {}, {}, toy_factory(), f.prices), InputError);
}

}  // namespace
}  // namespace memwall::plan
