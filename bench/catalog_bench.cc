// Catalog speed: parsing every embedded data file into a catalog (what the first
// Catalog::builtin() call costs a process), copying it (what --catalog users pay), and looking an
// accelerator up by alias (what planners do inside their search loops).
#include <benchmark/benchmark.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/embedded.h"

namespace {

void BM_ParseBuiltin(benchmark::State& state) {
  for (auto _ : state) {
    memwall::Catalog c;
    for (const auto& f : memwall::data::embedded_files()) {
      const std::string origin(f.path);
      const memwall::Json doc = memwall::parse_document(f.content, origin);
      memwall::Json entries = memwall::Json::object();
      for (const char* kind : {"accelerators", "nodes", "fabrics", "models"})
        if (doc.contains(kind)) entries[kind] = doc[kind];
      c.load(entries, origin);
    }
    benchmark::DoNotOptimize(c.accelerators().size());
  }
}
BENCHMARK(BM_ParseBuiltin)->Unit(benchmark::kMillisecond);

void BM_CopyBuiltin(benchmark::State& state) {
  const memwall::Catalog& builtin = memwall::Catalog::builtin();
  for (auto _ : state) {
    memwall::Catalog c = builtin;
    benchmark::DoNotOptimize(c.models().size());
  }
}
BENCHMARK(BM_CopyBuiltin)->Unit(benchmark::kMicrosecond);

void BM_LookupAlias(benchmark::State& state) {
  const memwall::Catalog& c = memwall::Catalog::builtin();
  for (auto _ : state) benchmark::DoNotOptimize(&c.accelerator("tpu-v5p"));  // near the end
}
BENCHMARK(BM_LookupAlias);

}  // namespace

BENCHMARK_MAIN();
