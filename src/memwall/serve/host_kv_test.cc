// KV swap to host memory and prefix reuse from a host KV cache: the LRU cache on its own, swap
// against recompute on a roofline stand-in cost, and, on the real estimator, prefix hits cutting
// TTFT by the prefill they replace, the host capacity bounding the hits, and the counters adding
// up.
#include <gtest/gtest.h>

#include <algorithm>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/serve/host_cache.h"
#include "memwall/serve/serving.h"
#include "memwall/serve/simulator.h"

namespace memwall::serve {
namespace {

TEST(HostPrefixCache, LruEvictsTheLeastRecentlyUsedAndMatchesPrefixes) {
  HostPrefixCache c(1000);
  EXPECT_EQ(c.lookup(1, 400), 0);  // cold
  EXPECT_EQ(c.store(1, 400), 400);
  EXPECT_EQ(c.store(2, 400), 400);
  EXPECT_EQ(c.lookup(1, 300), 300);  // a shorter use of prefix 1 finds what it needs
  EXPECT_EQ(c.lookup(1, 600), 400);  // a longer one finds the 400 stored
  EXPECT_EQ(c.store(3, 400), 400);   // 1200 > 1000: evicts 2, the least recently used
  EXPECT_EQ(c.lookup(2, 400), 0);
  EXPECT_EQ(c.lookup(3, 400), 400);
  EXPECT_EQ(c.store(1, 600), 200);  // grows by what it lacked: 1000 used, nothing evicted
  EXPECT_EQ(c.used_tokens(), 1000);
  EXPECT_EQ(c.store(4, 5000), 1000);  // longer than the cache: stored up to the capacity
  EXPECT_EQ(c.used_tokens(), 1000);
  const auto& k = c.counters();
  EXPECT_EQ(k.lookups, 5);
  EXPECT_EQ(k.hits, 3);
  EXPECT_EQ(k.hit_tokens, 300 + 400 + 400);
  EXPECT_EQ(k.stored_tokens - k.evicted_tokens, c.used_tokens());
  EXPECT_LE(k.peak_tokens, c.capacity_tokens());
}

// A roofline stand-in with the shape of a 7B model with full multi-head attention (Llama-2-7B:
// 512 KiB of KV per token) on a 24 GB PCIe Gen4 card: an iteration reads the weights (14 ms) or
// computes its tokens (121 us each: 2 x 7e9 FLOP at 70 % of 165 TFLOP/s), whichever is longer.
Seconds roofline_cost(const infer::StepBatch& b) {
  const double tokens = double(b.prefill_tokens + b.decode_sequences);
  return Seconds(std::max(0.014, 1.21e-4 * tokens) + 1e-9 * b.prefill_attended_pairs);
}

SimulationConfig swap_config(const std::string& dataset, int64_t capacity, Preemption p) {
  SimulationConfig c;
  c.workload.lengths = dataset_preset(dataset);
  c.workload.requests = 200;
  c.workload.arrival = {ArrivalKind::closed_loop, 0, 1, 64};
  c.replica.kv = KvConfig{KvPolicy::paged, capacity, 16, 1 << 20, 0.01};
  c.replica.scheduler.policy = SchedulerPolicy::chunked;
  c.replica.scheduler.token_budget = 2048;
  c.replica.scheduler.preemption = p;
  c.replica.scheduler.swap_capacity_tokens = 1 << 30;
  c.replica.kv_bytes_per_token = Bytes(524288);  // 2 x 32 layers x 4096 x 2 bytes
  // PCIe Gen4 x16 at 80 %, 10 us per copy, one copy per layer (offload/bandwidth.h).
  c.replica.host_link = offload::HostLinkModel{"PCIe", BytesPerSecond(25.2e9), Seconds(10e-6)};
  c.replica.layers = 32;
  return c;
}

TEST(HostKv, SwapBeatsRecomputeForLongContextsAndLosesForShortOnes) {
  // Long prompts: recomputing 8000+ tokens costs ~1 s of compute; swapping them out and back
  // 2 x 4.2 GB / 25 GB/s ~ 0.33 s.
  auto rc = simulate(swap_config("fixed:8000,400", 41000, Preemption::recompute), roofline_cost);
  auto sw = simulate(swap_config("fixed:8000,400", 41000, Preemption::swap), roofline_cost);
  ASSERT_GT(rc.preemptions_recompute, 10);
  ASSERT_GT(sw.preemptions_swap, 10);
  EXPECT_EQ(sw.preemptions_recompute, 0);
  EXPECT_LT(sw.duration_s, rc.duration_s * 0.97);
  EXPECT_LT(sw.e2e.mean, rc.e2e.mean);
  EXPECT_EQ(sw.host_kv.swap_out_tokens, sw.host_kv.swap_in_tokens);  // all came back
  // Short contexts (two requests of 16 + 48 tokens in 6 blocks: the later one is preempted once
  // its growth overflows): re-prefilling 16 + ~30 tokens rides in a weight-read-bound iteration
  // that also yields its next token, at no cost; a swap stalls the iteration for its copies each
  // way (~ 46 x 512 KiB / 25 GB/s + 32 copies of 10 us).
  auto pair = [](Preemption p) {
    SimulationConfig c = swap_config("fixed:16,48", 96, p);
    c.workload.arrival.kind = ArrivalKind::trace;
    c.workload.trace = {{0.0, 16, 48, -1, 0}, {0.0, 16, 48, -1, 0}};
    c.replica.kv.watermark = 0;
    return c;
  };
  rc = simulate(pair(Preemption::recompute), roofline_cost);
  sw = simulate(pair(Preemption::swap), roofline_cost);
  ASSERT_EQ(rc.preemptions_recompute, 1);
  ASSERT_EQ(sw.preemptions_swap, 1);
  EXPECT_NEAR(sw.duration_s - rc.duration_s, sw.host_kv.swap_time_s, 0.015);
  EXPECT_GT(sw.duration_s, rc.duration_s);
  EXPECT_GT(sw.host_kv.swap_time_s, 0.002);
}

ServingOptions prefix_options(double share, double host_gib, int64_t pool) {
  ServingOptions o;
  o.deployment.model = "llama-3.1-8b";
  o.deployment.gpu = "h100";
  o.workload.lengths = dataset_preset("fixed:4000,2");
  o.workload.arrival.rate_per_s = 0.5;  // one request at a time: TTFT is the prefill
  o.workload.requests = 400;
  o.workload.prefix_share = share;
  o.workload.prefix_pool = pool;
  o.host_kv_cache_gib = host_gib;
  return o;
}

TEST(HostKv, PrefixHitsCutTtftByThePrefillTheyReplace) {
  const Catalog catalog = Catalog::builtin();
  const auto base = simulate_serving(catalog, prefix_options(0, 0, 10));
  const auto hit = simulate_serving(catalog, prefix_options(0.75, 64, 10));
  const HostKvStats& k = hit.result.host_kv;
  // 10 contexts, 400 requests: all but the first use of each context hit.
  EXPECT_GT(double(k.prefix_host_tokens + k.prefix_gpu_tokens),
            0.95 * double(k.prefix_requested_tokens));
  // 3000 of 4000 prompt tokens loaded instead of prefilled: TTFT falls to the prefill of the last
  // 1000 (which attend to all 4000) plus the load the overlap does not hide, ~ 0.25-0.4 of it.
  const double ratio = hit.result.ttft.mean / base.result.ttft.mean;
  EXPECT_GT(ratio, 0.2);
  EXPECT_LT(ratio, 0.45);
  EXPECT_GT(k.load_time_s, 0);
  EXPECT_LE(k.load_exposed_s, k.load_time_s);
  // Without a host cache no prefix outlives its request at this rate: nothing is reused.
  const auto none = simulate_serving(catalog, prefix_options(0.75, 0, 10));
  EXPECT_EQ(none.result.host_kv.prefix_host_tokens, 0);
  EXPECT_NEAR(none.result.ttft.mean / base.result.ttft.mean, 1.0, 0.02);
}

TEST(HostKv, HostCapacityBoundsTheHitsAndTheCountersAddUp) {
  const Catalog catalog = Catalog::builtin();
  // 100 contexts of 3000 tokens (375 MiB each at 128 KiB per token); the cache holds ~ 1/4.
  const auto run = simulate_serving(catalog, prefix_options(0.75, 9.5, 100));
  const HostKvStats& k = run.result.host_kv;
  const HostCacheCounters& c = k.host_cache;
  EXPECT_EQ(k.prefix_requested_tokens,
            k.prefix_gpu_tokens + k.prefix_host_tokens + k.prefix_computed_tokens);
  EXPECT_LE(c.peak_tokens, k.host_cache_capacity_tokens);
  EXPECT_GE(c.stored_tokens - c.evicted_tokens, 0);
  EXPECT_LE(c.stored_tokens - c.evicted_tokens, k.host_cache_capacity_tokens);
  EXPECT_GT(c.evictions, 0);
  // LRU under uniform reuse of 100 contexts holding ~ 25 of them: a hit rate near 1/4, well below
  // the 0.75 share an unbounded cache would reuse.
  const double rate = double(k.prefix_host_tokens) / double(k.prefix_requested_tokens);
  EXPECT_GT(rate, 0.1);
  EXPECT_LT(rate, 0.4);
  EXPECT_EQ(k.prefix_lookups, run.result.completed);
  // Bytes in the JSON are tokens x KV bytes per token.
  const Json j = host_kv_json(run);
  EXPECT_DOUBLE_EQ(j["prefix"]["loaded_bytes"].get<double>(),
                   double(k.prefix_host_tokens) * run.kv_bytes_per_token_per_device.value());
  EXPECT_TRUE(j["host"].is_object());
}

TEST(HostKv, BadValuesNameTheFieldAndTooLittleHostMemoryIsInfeasible) {
  const Catalog catalog = Catalog::builtin();
  auto o = prefix_options(0.5, 1, 10);
  o.workload.prefix_share = 1.5;
  EXPECT_THROW(simulate_serving(catalog, o), InputError);
  o = prefix_options(0.5, -1, 10);
  EXPECT_THROW(simulate_serving(catalog, o), InputError);
  o = prefix_options(0.5, 64, 10);
  o.host.host_memory_gb = 32;  // 64 GiB of cache in 32 GiB of DRAM
  try {
    simulate_serving(catalog, o);
    FAIL() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace memwall::serve
