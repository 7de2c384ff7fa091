// Planner speed (issue 7): the inference search over the whole catalog for one model and SLA, and
// the training search for a 175B model up to 4096 GPUs, each in <= 2 s; reported with the
// configurations evaluated per second.
#include <benchmark/benchmark.h>

#include "memwall/catalog/catalog.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/train_search.h"

namespace {

using namespace memwall;

// The README scenario: qwen2.5-72b, 300 concurrent chat users, TTFT p99 <= 1 s, TPOT <= 50 ms,
// every accelerator and node of the catalog, bf16/fp8/int4 weights x bf16/fp8 KV.
void BM_PlanInferWholeCatalog(benchmark::State& state) {
  const Catalog& catalog = Catalog::builtin();
  const std::optional<Fabric> fabric = catalog.fabric("ib-ndr");
  const cost::PriceBook prices = cost::PriceBook::builtin();
  plan::SearchSpace space;
  space.fabric = &*fabric;
  for (const auto& a : catalog.accelerators()) space.accelerators.push_back(&a);
  for (const auto& n : catalog.nodes()) space.nodes.push_back(&n);
  plan::InferenceWorkload w;
  w.load.concurrency = 300;
  plan::summarize_lengths(plan::parse_lengths("sharegpt", "sharegpt"), w.input, w.output);
  w.sla = plan::parse_sla("ttft_p99=1,tpot_p99=0.05");
  const ModelSpec model = catalog.model("qwen2.5-72b");
  int64_t configurations = 0, shapes = 0, pairs = 0;
  for (auto _ : state) {
    const auto r = plan::search_inference(model, w, space, {}, {}, plan::estimator_factory(fabric), prices);
    configurations += r.configurations;
    shapes += r.shapes;
    pairs += r.pool_pairs;
    benchmark::DoNotOptimize(r.plans.data());
  }
  state.counters["shapes"] = benchmark::Counter(static_cast<double>(shapes), benchmark::Counter::kAvgIterations);
  state.counters["configurations"] =
      benchmark::Counter(static_cast<double>(configurations), benchmark::Counter::kAvgIterations);
  state.counters["configurations_per_s"] =
      benchmark::Counter(static_cast<double>(configurations), benchmark::Counter::kIsRate);
  state.counters["pool_pairs"] = benchmark::Counter(static_cast<double>(pairs), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PlanInferWholeCatalog)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// GPT-3 175B, 300B tokens within 30 days, every accelerator with a node in the catalog, clusters of
// up to 4096 GPUs: the whole training search.
void BM_PlanTrain175BUpTo4096(benchmark::State& state) {
  const Catalog& catalog = Catalog::builtin();
  const cost::PriceBook prices = cost::PriceBook::builtin();
  plan::TrainSpace space;
  for (const auto& a : catalog.accelerators()) space.accelerators.push_back(&a);
  for (const auto& n : catalog.nodes()) space.nodes.push_back(&n);
  space.fabric = &catalog.fabric("ib-ndr");
  space.cheaper_fabric = &catalog.fabric("roce-200");
  plan::TrainGoal goal;
  goal.tokens = 300e9;
  goal.days = 30;
  goal.seq = 2048;
  goal.max_gpus = 4096;
  const ModelSpec model = catalog.model("gpt3-175b");
  int64_t configurations = 0;
  for (auto _ : state) {
    const auto r = plan::search_training(model, goal, space, {}, prices);
    configurations += r.configurations;
    benchmark::DoNotOptimize(r.plans.data());
  }
  state.counters["configurations"] =
      benchmark::Counter(static_cast<double>(configurations), benchmark::Counter::kAvgIterations);
  state.counters["configurations_per_s"] =
      benchmark::Counter(static_cast<double>(configurations), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanTrain175BUpTo4096)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
