// Speed of the inference estimator: one full `infer` estimate (static batch, prefill + sampled
// decode steps + memory plan) and one step_time evaluation, on a deployment built once.
#include <benchmark/benchmark.h>

#include "memwall/catalog/catalog.h"
#include "memwall/infer/estimate.h"

namespace {

memwall::infer::Deployment llama70b_tp4_h100() {
  static const memwall::Catalog catalog = memwall::Catalog::builtin();
  memwall::infer::DeploymentOptions o;
  o.model = "llama-3.1-70b";
  o.gpu = "h100";
  o.tp = 4;
  return memwall::infer::make_deployment(catalog, o);
}

void BM_InferEstimate(benchmark::State& state) {
  const auto d = llama70b_tp4_h100();
  for (auto _ : state) {
    auto e = memwall::infer::estimate(d, {64, 2048, 512});
    benchmark::DoNotOptimize(e.tpot);
  }
}
BENCHMARK(BM_InferEstimate);

void BM_StepTimeDecode(benchmark::State& state) {
  const auto d = llama70b_tp4_h100();
  const auto batch = memwall::infer::decode_batch(64, 3000);
  for (auto _ : state) benchmark::DoNotOptimize(memwall::infer::step_time(d, batch));
}
BENCHMARK(BM_StepTimeDecode);

void BM_MakeDeployment(benchmark::State& state) {
  for (auto _ : state) {
    auto d = llama70b_tp4_h100();
    benchmark::DoNotOptimize(d.tp);
  }
}
BENCHMARK(BM_MakeDeployment);

}  // namespace

BENCHMARK_MAIN();
