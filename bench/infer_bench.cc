// Speed of the inference estimator: one full `infer` estimate (static batch, prefill + sampled
// decode steps + memory plan) and one step_time evaluation, on a deployment built once.
#include <benchmark/benchmark.h>

#include "memwall/catalog/catalog.h"
#include "memwall/infer/continuous.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/request.h"

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

// `infer --batch max`: the continuous-batching steady state (KV capacity, limits, one step).
void BM_ContinuousMaxThroughput(benchmark::State& state) {
  const auto d = llama70b_tp4_h100();
  for (auto _ : state) {
    auto c = memwall::infer::continuous_max_throughput(d, 2048, 512);
    benchmark::DoNotOptimize(c.throughput_tokens_per_s);
  }
}
BENCHMARK(BM_ContinuousMaxThroughput);

// The whole `infer --batch max` answer as the CLI asks it (deployment, max batch, continuous
// steady state, the static estimate at its concurrency).
void BM_InferBatchMaxAnswer(benchmark::State& state) {
  static const memwall::Catalog catalog = memwall::Catalog::builtin();
  memwall::infer::Request r;
  r.deployment.model = "llama-3.1-70b";
  r.deployment.gpu = "h100";
  r.deployment.tp = 4;
  r.batch = memwall::infer::parse_batch_spec("max", "--batch");
  r.input_tokens = 2048;
  r.output_tokens = 512;
  for (auto _ : state) {
    auto a = memwall::infer::answer(catalog, r);
    benchmark::DoNotOptimize(a.estimates.front().throughput_tokens_per_s);
  }
}
BENCHMARK(BM_InferBatchMaxAnswer);

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
