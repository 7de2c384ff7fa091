// Baseline: cost of the unit-typed arithmetic every estimator is built from.
#include <benchmark/benchmark.h>

#include "memwall/core/precision.h"
#include "memwall/core/units.h"

static void BM_RooflineTime(benchmark::State& state) {
  using namespace memwall;
  double bytes = 1e9;
  for (auto _ : state) {
    const Seconds t = Bytes(bytes) / gb_per_s(3350) + Flops(2e12) / tflop_per_s(989.4);
    benchmark::DoNotOptimize(t);
    bytes += 1.0;
  }
}
BENCHMARK(BM_RooflineTime);

BENCHMARK_MAIN();
