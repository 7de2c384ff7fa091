// The HTTP API of `memwall ui` under load, on loopback only: 2,000 POST /api/infer requests (the
// page's default question, every operator included) from 20 concurrent clients, each on its own
// keep-alive connection. Reports the latency percentiles and the errors (non-200 answers and
// failed connections) as counters; the target is 0 errors and a p99 under 50 ms.
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/ui/server.h"

namespace {

using namespace memwall;

void run_load(benchmark::State& state, const std::string& endpoint, const std::string& body) {
  const int clients = static_cast<int>(state.range(0));
  const int total = static_cast<int>(state.range(1));
  ui::Server server(Catalog::builtin());
  std::promise<int> ready;
  std::thread serving(
      [&] { server.run("127.0.0.1", 0, [&](int port) { ready.set_value(port); }); });
  const int port = ready.get_future().get();
  std::vector<double> latencies_ms;
  int errors = 0;
  for (auto _ : state) {
    std::atomic<int> next{0}, failed{0};
    std::vector<std::vector<double>> per_client(static_cast<size_t>(clients));
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        httplib::Client client("127.0.0.1", port);
        client.set_keep_alive(true);
        client.set_tcp_nodelay(true);  // as browsers do
        client.set_read_timeout(10);
        while (next.fetch_add(1) < total) {
          const auto start = std::chrono::steady_clock::now();
          const auto res = client.Post("/api/" + endpoint, body, "application/json");
          const auto end = std::chrono::steady_clock::now();
          if (!res || res->status != 200) ++failed;
          per_client[static_cast<size_t>(c)].push_back(
              std::chrono::duration<double, std::milli>(end - start).count());
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& v : per_client) latencies_ms.insert(latencies_ms.end(), v.begin(), v.end());
    errors += failed.load();
  }
  server.stop();
  serving.join();
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto quantile = [&](double q) {
    return latencies_ms.empty() ? 0.0
                                : latencies_ms[static_cast<size_t>(
                                      q * static_cast<double>(latencies_ms.size() - 1))];
  };
  state.counters["requests"] = static_cast<double>(latencies_ms.size());
  state.counters["errors"] = errors;
  state.counters["p50_ms"] = quantile(0.50);
  state.counters["p99_ms"] = quantile(0.99);
  state.counters["max_ms"] = quantile(1.0);
}

void BM_InferAt20Clients(benchmark::State& state) {
  run_load(state, "infer", R"({"model":"llama-3.1-8b","gpu":"h100","batch":16})");
}
BENCHMARK(BM_InferAt20Clients)
    ->Args({20, 2000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same load on the catalog endpoint (no estimate: the server's own overhead).
void BM_CatalogAt20Clients(benchmark::State& state) {
  run_load(state, "catalog", "{}");
}
BENCHMARK(BM_CatalogAt20Clients)
    ->Args({20, 2000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
