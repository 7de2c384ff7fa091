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
  // One 8-device server per accelerator for the tests of cost: an owned plan buys servers (a card in
  // no node has no owned price; docs/cost.md "One boundary per ranking"); the host is free here.
  std::vector<Node> nodes;
  ModelSpec model;
  cost::PriceBook prices;
  Fixture() {
    accels.push_back(make("fast-gpu", "NVIDIA", 80, 3.35, 989, 700, 30000));
    accels.push_back(make("cheap-gpu", "NVIDIA", 24, 1.0, 165, 450, 1600));
    accels.push_back(make("npu", "Huawei", 64, 1.6, 300, 400, 16000));
    for (const auto& a : accels) {
      Node n;
      n.id = a.id + "-server";
      n.accelerator = a.id;
      n.device_link_bandwidth_per_direction = BytesPerSecond(100e9);
      n.nic_bandwidth_per_direction = BytesPerSecond(50e9);
      nodes.push_back(n);
    }
    model.id = "toy-8b";
    model.layers = 32;
    model.hidden = 4096;
    model.heads = 32;
    model.kv_heads = 8;
    model.head_dim = 128;
    model.ffn = 14336;
    model.vocab = 128256;
    prices.load(Json::parse(R"({"prices": {"facility": {"electricity_usd_per_kwh": 0.1, "pue": 1.5,
        "hosting_usd_per_kw_month": 150, "life_years": 3, "idle_power_fraction": 0.3},
        "platform": {"host_platform_usd": 0, "host_power_w": 0, "switch_port_usd": 0,
                     "optics_per_port_usd": 0}}})"), "t");  // devices only: the search, not the server bill
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
  // The same with the servers, for tests of what plans cost.
  SearchSpace priced_space() const {
    SearchSpace s = space();
    for (const auto& n : nodes) s.nodes.push_back(&n);
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
  w.input = {1000, 3000, "test", {}};
  w.output = {300, 900, "test", {}};
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

// The engine never schedules more than its max_num_seqs: a replica whose memory and SLA would
// allow more sequences is capped there, and the plan says the engine's limit binds.
TEST(InferenceSearch, EngineMaxNumSeqsCapsTheBatch) {
  Fixture f;
  const auto base = toy_factory();
  const auto w = chat(2000, 30.0);
  const auto free_run = search_inference(f.model, w, f.space(), {}, {}, base, f.prices);
  ASSERT_FALSE(free_run.plans.empty());
  int widest = 0;
  for (const Plan& p : free_run.plans) widest = std::max(widest, p.point.batch);
  ASSERT_GT(widest, 8);
  ReplicaModelFactory capped = [&](const ModelSpec& m, const ReplicaShape& s) {
    ReplicaModel r = base(m, s);
    r.max_num_seqs = 8;
    return r;
  };
  const auto r = search_inference(f.model, w, f.space(), {}, {}, capped, f.prices);
  ASSERT_FALSE(r.plans.empty());
  bool engine_binds = false;
  for (const Plan& p : r.plans) {
    EXPECT_LE(p.point.batch, 8) << p.shape.describe();
    engine_binds = engine_binds || p.binding.find("engine's limit binds") != std::string::npos;
  }
  EXPECT_TRUE(engine_binds);
}

TEST(InferenceSearch, PlansAreRankedAndConstraintsHold) {
  Fixture f;
  Constraints c;
  c.domestic_only = true;
  const auto r = search_inference(f.model, chat(50, 2.0), f.priced_space(), c, {}, toy_factory(), f.prices);
  ASSERT_FALSE(r.plans.empty());
  for (const Plan& p : r.plans) EXPECT_EQ(p.shape.accelerator->vendor, "Huawei");
  const auto all = search_inference(f.model, chat(50, 2.0), f.priced_space(), {}, {}, toy_factory(), f.prices);
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
    const auto r = search_inference(f.model, chat(300, ttft), f.priced_space(), {}, {}, toy_factory(), f.prices);
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

// Disaggregated pools need nodes (their NICs) and a fabric to move the KV between pools.
struct PoolFixture : Fixture {
  std::vector<Node> nodes;
  Fabric fabric;
  PoolFixture() {
    for (const auto& a : accels) {
      Node n;
      n.id = a.id + "-node";
      n.accelerator = a.id;
      n.devices = 8;
      n.nics = 8;
      n.nic_bandwidth_per_direction = BytesPerSecond(50e9);
      nodes.push_back(n);
    }
    fabric.id = "fab";
    fabric.port_bandwidth_per_direction = BytesPerSecond(50e9);
    fabric.endpoint_latency = Seconds(2e-6);
    fabric.switch_hop_latency = Seconds(0.5e-6);
  }
  SearchSpace pool_space(bool aggregated, bool disaggregated) const {
    SearchSpace s = space();
    for (const auto& n : nodes) s.nodes.push_back(&n);
    s.fabric = &fabric;
    s.aggregated = aggregated;
    s.disaggregated = disaggregated;
    return s;
  }
};

TEST(InferenceSearch, DisaggregatedPlansAddUpBothPools) {
  PoolFixture f;
  const auto w = chat(200, 2.0);
  const auto r = search_inference(f.model, w, f.pool_space(false, true), {}, {}, toy_factory(), f.prices);
  ASSERT_FALSE(r.plans.empty());
  EXPECT_GT(r.pool_pairs, 0);
  bool mixed_hardware = false;
  for (const Plan& p : r.plans) {
    ASSERT_TRUE(p.disaggregated());
    const PrefillPool& pre = *p.prefill;
    EXPECT_EQ(p.devices, pre.replicas * pre.shape.devices() + p.replicas * p.shape.devices()) << p.describe();
    EXPECT_LE(p.point.ttft_p99, w.sla.ttft_p99);
    EXPECT_LE(p.point.tpot, w.sla.tpot_p99);
    EXPECT_LT(pre.utilisation, 1.0);
    // Whole-deployment cost = prefill pool + decode pool; $/M tokens over the generated tokens.
    ASSERT_TRUE(p.cost.per_hour && pre.cost.per_hour);
    EXPECT_GT(p.cost.per_hour->value(), pre.cost.per_hour->value());
    EXPECT_NEAR(*p.cost.usd_per_million_tokens,
                p.cost.per_hour->value() / (p.generated_tokens_per_s * 3600) * 1e6, 1e-9);
    // Closed loop: requests/s = users / e2e (Little), each generating the mean output.
    EXPECT_NEAR(p.generated_tokens_per_s, 200.0 / p.point.e2e_mean.value() * w.output.mean,
                1e-3 * p.generated_tokens_per_s);
    if (pre.shape.accelerator != p.shape.accelerator) mixed_hardware = true;
  }
  EXPECT_TRUE(mixed_hardware) << "each decode shape keeps its best prefill partner, of any hardware";
  EXPECT_NE(r.plans.front().binding.find("prefill replicas"), std::string::npos);
}

TEST(InferenceSearch, SearchingBothServingModesKeepsTheBestOfEach) {
  PoolFixture f;
  const auto w = chat(300, 1.0);
  auto best = [&](bool agg, bool dis) {
    const auto r = search_inference(f.model, w, f.pool_space(agg, dis), {}, {}, toy_factory(), f.prices);
    EXPECT_FALSE(r.plans.empty());
    for (const Plan& p : r.plans) {
      if (!agg) { EXPECT_TRUE(p.disaggregated()); }
      if (!dis) { EXPECT_FALSE(p.disaggregated()); }
    }
    return r.plans.empty() ? 0.0 : *r.plans.front().objective;
  };
  const double both = best(true, true), agg = best(true, false), dis = best(false, true);
  EXPECT_DOUBLE_EQ(both, std::min(agg, dis));
}

TEST(InferenceSearch, NoFabricMeansNoDisaggregation) {
  PoolFixture f;
  SearchSpace s = f.pool_space(true, true);
  s.fabric = nullptr;
  const auto r = search_inference(f.model, chat(50, 2.0), s, {}, {}, toy_factory(), f.prices);
  EXPECT_EQ(r.pool_pairs, 0);
  for (const Plan& p : r.plans) EXPECT_FALSE(p.disaggregated());
}

}  // namespace
}  // namespace memwall::plan
