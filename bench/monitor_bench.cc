// The monitor's per-pass and per-file costs: the Prometheus text of one pass over an 8-GPU node
// (paid on every scrape), a JSON-lines line written per GPU per pass, a recording read back (a
// day at 1 s on 8 GPUs is 691,200 lines), and the advisor over it.
#include <benchmark/benchmark.h>

#include <sstream>

#include "memwall/monitor/advisor.h"
#include "memwall/monitor/prometheus.h"
#include "memwall/monitor/recording.h"

namespace {

using memwall::monitor::GpuSample;

std::vector<GpuSample> node_pass(double time_s) {
  std::vector<GpuSample> pass;
  for (int i = 0; i < 8; ++i) {
    GpuSample s;
    s.time_s = time_s;
    s.index = i;
    s.name = "NVIDIA H100 80GB HBM3";
    s.uuid = "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f" + std::to_string(i);
    for (const auto& f : memwall::monitor::numeric_fields()) s.*f.member = 0.25 + 0.01 * i;
    s.throttle_reasons = 0x4;
    pass.push_back(s);
  }
  return pass;
}

std::string recording_text(int passes) {
  std::stringstream out;
  for (int p = 0; p < passes; ++p) memwall::monitor::write_jsonl(out, node_pass(1764450000 + p));
  return out.str();
}

void BM_PrometheusText8Gpus(benchmark::State& state) {
  const auto pass = node_pass(1764450000);
  for (auto _ : state) benchmark::DoNotOptimize(memwall::monitor::prometheus_text(pass));
}
BENCHMARK(BM_PrometheusText8Gpus);

void BM_ReadRecording(benchmark::State& state) {
  const std::string text = recording_text(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::istringstream in(text);
    benchmark::DoNotOptimize(memwall::monitor::read_jsonl(in, "bench.jsonl"));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * 8);  // lines
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReadRecording)->Arg(3600)->Unit(benchmark::kMillisecond);

void BM_Advise(benchmark::State& state) {
  std::vector<GpuSample> samples;
  for (int p = 0; p < state.range(0); ++p) {
    const auto pass = node_pass(1764450000 + p);
    samples.insert(samples.end(), pass.begin(), pass.end());
  }
  for (auto _ : state) benchmark::DoNotOptimize(memwall::monitor::advise(samples, std::nullopt));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(samples.size()));
}
BENCHMARK(BM_Advise)->Arg(3600)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
