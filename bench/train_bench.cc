// Training estimator speed: memory + step time of GPT-3 175B on 1024 A100s over a sweep of
// configurations (TP x PP x DP, micro-batch, recomputation, ZeRO stage, sequence parallelism), as
// the training planner evaluates them. Requirement: >= 100,000 configurations/s on one core.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/train/estimate.h"

namespace {

using namespace memwall;

std::vector<train::TrainConfig> sweep(const train::TrainSetup& s) {
  std::vector<train::TrainConfig> out;
  for (int tp : {1, 2, 4, 8})
    for (int pp : {1, 2, 4, 8, 16, 32})
      for (int64_t mb : {1, 2, 4})
        for (auto r : {train::Recompute::none, train::Recompute::selective, train::Recompute::full})
          for (int zero : {0, 1})
            for (bool sp : {false, true}) {
              train::TrainConfig c;
              c.gpus = 1024;
              c.tp = tp;
              c.pp = pp;
              c.micro_batch = mb;
              c.global_batch = 1536;
              c.seq = 2048;
              c.recompute = r;
              c.zero = zero;
              c.sequence_parallel = sp && tp > 1;
              try {
                train::check_configuration(s, c);
                out.push_back(c);
              } catch (const std::exception&) {
              }
            }
  return out;
}

void BM_Gpt3On1024Gpus(benchmark::State& state) {
  const Catalog cat = Catalog::builtin();
  const train::TrainSetup setup =
      train::make_setup(cat.model("gpt3-175b"), cat.accelerator("a100"), cat.node("hgx-a100"),
                        cat.fabric("ib-hdr"));
  const auto configs = sweep(setup);
  train::EstimateOptions opt;
  opt.require_fit = false;  // report memory rather than throw, as a search loop does
  size_t i = 0;
  double sink = 0;
  for (auto _ : state) {
    const train::TrainEstimate e = train::estimate_training(setup, configs[i], opt);
    sink += e.step_time.value() + e.memory.total().value();
    if (++i == configs.size()) i = 0;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(int64_t(state.iterations()));
  state.counters["configurations"] = double(configs.size());
}
BENCHMARK(BM_Gpt3On1024Gpus);

// The same sweep with the collective memo emptied before every configuration: each evaluation
// asks the network model all of its collectives afresh (the worst case of a search).
void BM_Gpt3On1024GpusUncached(benchmark::State& state) {
  const Catalog cat = Catalog::builtin();
  train::TrainSetup setup =
      train::make_setup(cat.model("gpt3-175b"), cat.accelerator("a100"), cat.node("hgx-a100"),
                        cat.fabric("ib-hdr"));
  const auto configs = sweep(setup);
  train::EstimateOptions opt;
  opt.require_fit = false;
  size_t i = 0;
  double sink = 0;
  for (auto _ : state) {
    setup.collectives = std::make_shared<train::CollectiveCache>();
    const train::TrainEstimate e = train::estimate_training(setup, configs[i], opt);
    sink += e.step_time.value() + e.memory.total().value();
    if (++i == configs.size()) i = 0;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_Gpt3On1024GpusUncached);

}  // namespace

BENCHMARK_MAIN();
