// Serving-simulator speed: a ShareGPT-like workload of N requests on one replica, continuous
// batching with paged KV (the O(1)-per-iteration path), timed end to end (generation of requests,
// event loop, metrics). The step cost is a closed-form stand-in so the figure measures the
// simulator itself; `memwall simulate` with the real estimator is timed in bench/RESULTS.md too.
#include <benchmark/benchmark.h>

#include "memwall/serve/simulator.h"

namespace {

using namespace memwall;

// Shape of a 7-8B model on one H100: weight read per iteration + prefill compute + KV read.
Seconds stand_in_cost(const infer::StepBatch& b) {
  return Seconds(0.006 + 6e-5 * static_cast<double>(b.prefill_tokens) +
                 4e-8 * static_cast<double>(b.decode_context_tokens));
}

void BM_SimulateShareGpt(benchmark::State& state) {
  serve::SimulationConfig c;
  c.workload.lengths = serve::dataset_preset("sharegpt");
  c.workload.requests = state.range(0);
  c.workload.arrival.rate_per_s = 30;  // near this replica's capacity: batches of ~100-250
  c.replica.kv = serve::KvConfig{serve::KvPolicy::paged, 450'000, 16, 8192, 0.01};
  c.replica.scheduler.max_batch = 256;
  c.replica.scheduler.token_budget = 8192;
  int64_t iterations = 0;
  for (auto _ : state) {
    const auto r = serve::simulate(c, stand_in_cost);
    iterations = r.iterations;
    benchmark::DoNotOptimize(r.e2e.p99);
  }
  state.counters["iterations"] = static_cast<double>(iterations);
  state.counters["requests_per_s_simulated"] = benchmark::Counter(
      static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulateShareGpt)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
