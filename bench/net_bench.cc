// Speed of the network model: the training planner times every candidate's collectives through
// comm::estimate, so one estimate must take microseconds even on 4096 GPUs.
#include <benchmark/benchmark.h>

#include "memwall/catalog/catalog.h"
#include "memwall/comm/collective.h"

namespace {

using namespace memwall;

const Catalog& catalog() {
  static const Catalog c = Catalog::builtin();
  return c;
}

// 512 HGX H100 nodes on NDR: a 4096-GPU all-reduce (every algorithm considered).
void BM_AllReduce4096(benchmark::State& state) {
  const comm::Cluster c{&catalog().node("hgx-h100"), &catalog().fabric("ib-ndr"), 512};
  double bytes = 1 << 30;
  for (auto _ : state) {
    auto e = comm::estimate(c, comm::Collective::all_reduce, Bytes(bytes), comm::Group{4096, 1, 0});
    benchmark::DoNotOptimize(e);
    bytes += 1;
  }
}
BENCHMARK(BM_AllReduce4096);

// A data-parallel group (one rank per node, stride 8) of 512 ranks on the same cluster.
void BM_DataParallelAllReduce512(benchmark::State& state) {
  const comm::Cluster c{&catalog().node("hgx-h100"), &catalog().fabric("ib-ndr"), 512};
  for (auto _ : state) {
    auto e = comm::estimate(c, comm::Collective::all_reduce, Bytes(2e9), comm::Group{512, 8, 0});
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_DataParallelAllReduce512);

// PCIe node without P2P: the per-link flow counting path.
void BM_Pcie4090AllReduce(benchmark::State& state) {
  const comm::Cluster c{&catalog().node("pcie-4090"), nullptr, 1};
  for (auto _ : state) {
    auto e = comm::estimate(c, comm::Collective::all_reduce, Bytes(1 << 30), comm::Group{8, 1, 0});
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_Pcie4090AllReduce);

// The full explanation (topology graph, path, upgrade what-ifs) for 4096 GPUs: not in the hot path.
void BM_Explain4096(benchmark::State& state) {
  const comm::Cluster c{&catalog().node("hgx-h100"), &catalog().fabric("ib-ndr"), 512};
  for (auto _ : state) {
    auto x = comm::explain(c, comm::Collective::all_reduce, Bytes(1 << 30), comm::Group{4096, 1, 0});
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_Explain4096)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
