#include "memwall/serve/simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "memwall/core/error.h"
#include "memwall/serve/rate_search.h"

namespace memwall::serve {
namespace {

// A stand-in for the inference estimator with the shape of a 13B model on one A100: a fixed
// weight-read time per iteration, a per-prompt-token compute time, and a per-context-token KV read.
Seconds toy_cost(const infer::StepBatch& b) {
  return Seconds(0.015 + 1.3e-4 * static_cast<double>(b.prefill_tokens) +
                 5e-7 * static_cast<double>(b.decode_context_tokens) + 1e-5 * b.decode_sequences);
}
Seconds constant_cost(const infer::StepBatch&) {
  return Seconds(0.01);
}

SimulationConfig base(const std::string& dataset, int64_t n, double rate) {
  SimulationConfig c;
  c.workload.lengths = dataset_preset(dataset);
  c.workload.requests = n;
  c.workload.arrival.rate_per_s = rate;
  c.workload.seed = 7;
  c.replica.kv = KvConfig{KvPolicy::paged, 15728, 16, 2048, 0.01};
  c.replica.kv_bytes_per_token = Bytes(819200);  // OPT-13B: 2 x 40 layers x 5120 x 2 bytes
  c.replica.swap_bandwidth = BytesPerSecond(25e9);
  c.replica.scheduler.token_budget = 2048;
  return c;
}

void expect_conserved(const SimulationResult& r, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(r.unfinished, 0);
  EXPECT_EQ(r.completed + r.rejected_too_long + r.rejected_never_fits + r.rejected_queue_full,
            r.requests);
  EXPECT_EQ(r.generated_tokens, r.requested_output_tokens);
  EXPECT_EQ(r.kv_allocated, r.kv_freed);
  const double sum = r.kv.used + r.kv.reserved + r.kv.internal + r.kv.external + r.kv.free;
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(Simulator, HandComputedLatenciesOfOneRequest) {
  SimulationConfig c = base("fixed:100,10", 1, 1);
  const auto r = simulate(c, constant_cost);
  ASSERT_EQ(r.completed, 1);
  EXPECT_NEAR(r.ttft.p50, 0.01, 1e-12);  // one prefill iteration
  EXPECT_NEAR(r.tpot.p50, 0.01, 1e-12);  // one decode iteration per further token
  EXPECT_NEAR(r.e2e.p50, 0.10, 1e-12);   // TTFT + 9 x TPOT
  EXPECT_EQ(r.iterations, 10);
  EXPECT_NEAR(r.throughput_tokens_per_s, 10 / 0.10, 1e-9);
}

TEST(Simulator, ContiguousMaxReservationSplitIsHandComputable) {
  // Two clients, prompt 100, output 101 (final KV 200), 2048-slot reservations filling 4096 slots.
  // Per batch: one prefill iteration (100 tokens each) and 100 decode steps (100 + k), equal
  // durations: mean tokens per sequence = (100 + sum_k (100 + k)) / 101 = 150.
  SimulationConfig c = base("fixed:100,101", 20, 1);
  c.workload.arrival = {ArrivalKind::closed_loop, 0, 1, 2};
  c.replica.kv = KvConfig{KvPolicy::contiguous_max, 4096, 16, 2048, 0.01};
  const auto r = simulate(c, constant_cost);
  expect_conserved(r, "contiguous");
  EXPECT_NEAR(r.kv.used, 2 * 150.0 / 4096, 1e-9);
  EXPECT_NEAR(r.kv.reserved, 2 * 50.0 / 4096, 1e-9);
  EXPECT_NEAR(r.kv.internal, 2 * (2048 - 200.0) / 4096, 1e-9);
  EXPECT_NEAR(r.kv.external + r.kv.free, 0, 1e-9);
}

TEST(Simulator, ConservationHoldsForEveryPolicy) {
  struct Case {
    std::string name;
    SchedulerPolicy sched;
    KvPolicy kv;
    Preemption pre;
    int64_t capacity;
  };
  const Case cases[] = {
      {"continuous-paged-recompute", SchedulerPolicy::continuous, KvPolicy::paged,
       Preemption::recompute, 6000},
      {"continuous-paged-swap", SchedulerPolicy::continuous, KvPolicy::paged, Preemption::swap,
       6000},
      {"chunked-paged", SchedulerPolicy::chunked, KvPolicy::paged, Preemption::recompute, 6000},
      {"static-contiguous", SchedulerPolicy::static_batching, KvPolicy::contiguous_max,
       Preemption::recompute, 15728},
      {"dynamic-pow2", SchedulerPolicy::dynamic_batching, KvPolicy::contiguous_pow2,
       Preemption::recompute, 15728},
      {"static-paged", SchedulerPolicy::static_batching, KvPolicy::paged, Preemption::recompute,
       6000},
      {"continuous-oracle", SchedulerPolicy::continuous, KvPolicy::contiguous_oracle,
       Preemption::recompute, 15728},
  };
  for (const Case& k : cases) {
    SimulationConfig c = base("sharegpt", 400, 8);
    c.replica.scheduler.policy = k.sched;
    c.replica.scheduler.preemption = k.pre;
    c.replica.scheduler.swap_capacity_tokens = 4000;
    c.replica.scheduler.max_batch = 64;
    c.replica.kv.policy = k.kv;
    c.replica.kv.capacity_tokens = k.capacity;
    const auto r = simulate(c, toy_cost);
    expect_conserved(r, k.name);
    EXPECT_EQ(r.completed + r.rejected_never_fits, 400) << k.name;
    if (k.name == "continuous-paged-recompute") {
      EXPECT_GT(r.preemptions_recompute, 0);
    }
    if (k.name == "continuous-paged-swap") {
      EXPECT_GT(r.preemptions_swap, 0);
    }
  }
}

TEST(Simulator, ConservationWithPrefixesReplicasAndDisaggregation) {
  SimulationConfig c = base("sharegpt", 300, 20);
  c.workload.arrival.kind = ArrivalKind::trace;
  for (int i = 0; i < 300; ++i)
    c.workload.trace.push_back(
        Request{0.01 * i, 200 + (i % 7) * 30, 20 + (i % 11) * 13, i % 3, 150});
  c.replicas = 3;
  c.router = RouterPolicy::least_outstanding;
  auto r = simulate(c, toy_cost);
  expect_conserved(r, "prefix + 3 replicas");
  EXPECT_EQ(r.completed, 300);

  c.replicas = 1;
  c.disaggregation.enabled = true;
  c.disaggregation.prefill_replicas = 1;
  c.disaggregation.decode_replicas = 2;
  c.disaggregation.link_bandwidth = BytesPerSecond(25e9);
  r = simulate(c, toy_cost);
  expect_conserved(r, "disaggregated");
  EXPECT_EQ(r.completed, 300);
  EXPECT_GT(r.kv_transfers, 200);
}

// Every scheduler finishes a small run of every kind of arrival: each request completes (or is
// refused at admission), nothing is left running. Request-level batching once never ended at 7
// requests of rate 1 (issue 29).
TEST(Simulator, EverySchedulerFinishesEveryKindOfArrival) {
  const SchedulerPolicy policies[] = {SchedulerPolicy::static_batching,
                                      SchedulerPolicy::dynamic_batching,
                                      SchedulerPolicy::continuous, SchedulerPolicy::chunked};
  const ArrivalSpec arrivals[] = {
      {ArrivalKind::poisson, 1, 1, 1, 0},       {ArrivalKind::poisson, 50, 1, 1, 0},
      {ArrivalKind::gamma, 3, 4, 1, 0},         {ArrivalKind::closed_loop, 0, 1, 3, 0},
      {ArrivalKind::closed_loop, 0, 1, 5, 0.5}, {ArrivalKind::trace, 0, 1, 1, 0}};
  // Spaced so each request is alone; 0.7 + 0.1 - 0.7 < 0.1 in binary64.
  std::vector<Request> trace;
  for (int i = 0; i < 12; ++i) trace.push_back(Request{0.7 + 3 * i, 100, 100, -1, 0});
  for (bool disaggregated : {false, true}) {
    for (SchedulerPolicy p : policies) {
      if (disaggregated && p != SchedulerPolicy::continuous) continue;
      for (const ArrivalSpec& a : arrivals) {
        SimulationConfig c = base("fixed:100,100", 12, a.rate_per_s);
        c.workload.arrival = a;
        if (a.kind == ArrivalKind::trace) c.workload.trace = trace;
        c.replica.scheduler.policy = p;
        c.replica.scheduler.max_batch = 4;
        c.disaggregation.enabled = disaggregated;
        c.disaggregation.link_bandwidth = BytesPerSecond(25e9);
        const auto r = simulate(c, toy_cost);
        const std::string what =
            fmt::format("{} {} arrival {}", disaggregated ? "disaggregated" : to_string(p),
                        static_cast<int>(a.kind), a.rate_per_s);
        expect_conserved(r, what);
        EXPECT_EQ(r.completed, 12) << what;
      }
    }
  }
}

TEST(Simulator, ClosedLoopKeepsConcurrencyAndRejectsWhatCannotFit) {
  SimulationConfig c = base("fixed:3000,10", 5, 1);
  auto r = simulate(c, toy_cost);
  EXPECT_EQ(r.rejected_too_long, 5);  // 3010 tokens > the 2048-token context
  c = base("fixed:100,50", 200, 1);
  c.workload.arrival = {ArrivalKind::closed_loop, 0, 1, 16};
  r = simulate(c, toy_cost);
  expect_conserved(r, "closed loop");
  EXPECT_EQ(r.batch_max, 16);
  c.replica.scheduler.max_waiting = 1;
  c.workload.arrival = {ArrivalKind::poisson, 1000, 1, 1};
  c.replica.scheduler.max_batch = 2;
  r = simulate(c, toy_cost);
  expect_conserved(r, "admission limit");
  EXPECT_GT(r.rejected_queue_full, 0);
}

TEST(Simulator, IdenticalSeedsGiveIdenticalResults) {
  SimulationConfig c = base("sharegpt", 300, 6);
  c.replica.kv.capacity_tokens = 5000;
  const auto a = to_json(simulate(c, toy_cost)), b = to_json(simulate(c, toy_cost));
  EXPECT_EQ(a.dump(), b.dump());
  c.workload.seed = 8;
  EXPECT_NE(to_json(simulate(c, toy_cost)).dump(), a.dump());
}

// Kwon et al. 2023 Fig. 2: with contiguous max-length reservation only 20.4-38.2 % of the KV
// memory holds token states; with paged blocks 96.3 %. OPT-13B on an A100-40GB (15.7K slots),
// ShareGPT lengths, a saturating load.
TEST(Simulator, PagedAttentionMemoryFindingInSize) {
  auto share = [](KvPolicy p) {
    SimulationConfig c = base("sharegpt", 3000, 1000);
    c.replica.kv.policy = p;
    return simulate(c, toy_cost).kv;
  };
  const KvShares max = share(KvPolicy::contiguous_max), paged = share(KvPolicy::paged);
  EXPECT_GE(max.used, 0.15);
  EXPECT_LE(max.used, 0.40);
  EXPECT_GE(paged.used, 0.90);
  const KvShares oracle = share(KvPolicy::contiguous_oracle),
                 pow2 = share(KvPolicy::contiguous_pow2);
  EXPECT_LT(max.used, pow2.used);
  EXPECT_LT(pow2.used, oracle.used);
  EXPECT_LT(oracle.used, paged.used);
}

// Continuous batching with paged KV sustains at least twice the request rate of static batching
// with contiguous max-length reservation at the same p99 end-to-end latency (same hardware,
// same ShareGPT lengths).
TEST(Simulator, ContinuousPagedSustainsTwiceTheRateOfStaticContiguous) {
  SimulationConfig c = base("sharegpt", 1500, 1);
  const double limit_s = 60;
  auto ok = [&](const SimulationResult& r) { return r.unfinished == 0 && r.e2e.p99 <= limit_s; };
  RateSearch search{0.05, 50, 12};
  c.replica.scheduler.policy = SchedulerPolicy::static_batching;
  c.replica.kv.policy = KvPolicy::contiguous_max;
  const double static_rate = max_sustainable_rate(c, toy_cost, ok, search);
  c.replica.scheduler.policy = SchedulerPolicy::continuous;
  c.replica.kv.policy = KvPolicy::paged;
  const double continuous_rate = max_sustainable_rate(c, toy_cost, ok, search);
  EXPECT_GT(static_rate, 0.05);
  EXPECT_GE(continuous_rate, 2 * static_rate) << static_rate << " vs " << continuous_rate;
}

TEST(Simulator, SlaGoodputAndParsing) {
  const auto sla = parse_sla("ttft_p99=1s,tpot_p50=50ms");
  ASSERT_EQ(sla.size(), 2u);
  EXPECT_NEAR(sla[1].limit_s, 0.05, 1e-12);
  for (const char* bad : {"ttft=1s", "ttft_p99=1", "ttft_p98=1s", "itl_p99=1s", "ttft_p99=-1s",
                          "ttft_p99=nans", "ttft_p99=1s,"})
    EXPECT_THROW(parse_sla(bad), InputError) << bad;
  SimulationConfig c = base("fixed:100,10", 1, 1);
  c.sla = parse_sla("ttft_p99=5ms");
  auto r = simulate(c, constant_cost);
  EXPECT_FALSE(r.sla_met);
  EXPECT_EQ(r.sla_attainment, 0);
  c.sla = parse_sla("ttft_p99=20ms,tpot_p99=20ms");
  r = simulate(c, constant_cost);
  EXPECT_TRUE(r.sla_met);
  EXPECT_NEAR(r.goodput_requests_per_s, 1 / 0.1, 1e-9);
}

// A run whose answer is no longer wanted stops within a few thousand events with Cancelled.
TEST(Simulator, ASetCancelFlagStopsTheRunPromptly) {
  using Clock = std::chrono::steady_clock;
  SimulationConfig c = base("sharegpt", 100000, 50);
  auto start = Clock::now();
  ASSERT_EQ(simulate(c, toy_cost).requests, 100000);
  const auto full = Clock::now() - start;

  CancelFlag cancel{true};
  c.cancel = &cancel;
  start = Clock::now();
  EXPECT_THROW(simulate(c, toy_cost), Cancelled);  // set before the run: the first check stops it
  EXPECT_LT(Clock::now() - start, full / 10);

  cancel = false;
  Clock::time_point set_at;
  std::thread client_leaves([&] {
    std::this_thread::sleep_for(full / 10);
    set_at = Clock::now();
    cancel = true;
  });
  EXPECT_THROW(simulate(c, toy_cost), Cancelled);
  const auto stopped = Clock::now();
  client_leaves.join();
  EXPECT_LT(stopped - set_at, full / 4)
      << "full run " << std::chrono::duration<double>(full).count() << " s, stopped "
      << std::chrono::duration<double>(stopped - set_at).count() << " s after the flag";
}

}  // namespace
}  // namespace memwall::serve
