// What a serving run measured. Definitions (PRODUCT.md): TTFT = arrival to first output token;
// TPOT = mean time between output tokens after the first (requests with one output token have
// none); end-to-end = TTFT + (output - 1) x TPOT = arrival to last token; throughput = generated
// tokens per second over the run (first arrival to last completion). Goodput = requests per second
// that meet every per-request SLA limit. KV memory split (shares of the KV capacity, averaged over
// busy time): used = slots holding token states; reserved = slots a sequence has reserved that its
// own later tokens will fill; internal fragmentation = reserved slots it will never fill;
// external fragmentation = slots lost to the allocator (buddy round-up, block remainder) plus free
// slots while a waiting request could not be admitted for lack of memory; free = the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/serve/scheduler.h"

namespace memwall::serve {

struct LatencyStats {
  int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;  // seconds
};

// One SLA limit, e.g. "ttft_p99=1s": metric ttft|tpot|e2e, statistic p50|p90|p99|mean, limit.
struct SlaTerm {
  std::string metric, statistic;
  double limit_s = 0;
};
// "ttft_p99=1s,tpot_p99=50ms" (units s or ms). InputError otherwise.
std::vector<SlaTerm> parse_sla(const std::string& text);

struct KvShares {  // fractions of KV capacity, time-averaged
  double used = 0, reserved = 0, internal = 0, external = 0, free = 0;
};

struct TimeSample {
  double t_s = 0;
  int replica = 0;
  int64_t running = 0, waiting = 0, batch = 0;
  KvTokens kv;
  int64_t capacity_tokens = 0;
  int64_t finished = 0;
};

struct SimulationResult {
  int64_t requests = 0, completed = 0, unfinished = 0;
  int64_t rejected_too_long = 0, rejected_never_fits = 0, rejected_queue_full = 0;
  LatencyStats ttft, tpot, e2e;
  double duration_s = 0;
  double throughput_tokens_per_s = 0, requests_per_s = 0, input_tokens_per_s = 0;
  double mean_input_tokens = 0, mean_output_tokens = 0;  // of the requests offered
  int64_t generated_tokens = 0, requested_output_tokens = 0;
  // SLA
  std::vector<SlaTerm> sla;
  std::vector<double> sla_observed_s;  // the statistic per term
  bool sla_met = true;
  double sla_attainment = 0;  // share of completed requests within every limit
  double goodput_requests_per_s = 0, goodput_tokens_per_s = 0;
  KvShares kv;
  int64_t kv_capacity_tokens = 0;
  double batch_mean = 0;
  int64_t batch_p50 = 0, batch_p90 = 0, batch_p99 = 0, batch_max = 0, iterations = 0;
  std::vector<std::pair<int64_t, int64_t>> batch_histogram;  // (upper bound, iterations), pow2 bins
  int64_t preemptions_recompute = 0, preemptions_swap = 0;
  int64_t kv_allocated = 0, kv_freed = 0;  // paged blocks / contiguous reservations
  int64_t kv_transfers = 0;
  HostKvStats host_kv;  // swap and host prefix-cache traffic, all replicas
  std::vector<TimeSample> timeseries;
};

// Collects per-iteration facts during the run.
class MetricsRecorder {
 public:
  explicit MetricsRecorder(int replicas);
  void iteration(int replica, double now_s, double duration_s, const IterationPlan& plan,
                 const KvTokens& kv, int64_t capacity_tokens, int64_t running, int64_t waiting);
  void finished_one() { ++finished_; }
  // Builds the result from the request table and what was recorded.
  SimulationResult summarize(const RequestTable& table, const std::vector<SlaTerm>& sla) const;

 private:
  std::vector<double> kv_integral_;  // used, reserved, internal, external, free (token-seconds)
  double capacity_seconds_ = 0;
  std::vector<int64_t> batch_counts_;
  int64_t iterations_ = 0;
  double batch_sum_ = 0;
  std::vector<TimeSample> samples_;
  std::vector<double> next_sample_s_;
  double sample_interval_s_ = 0.5;
  int64_t finished_ = 0;
};

Json to_json(const SimulationResult& r);
std::string timeseries_csv(const SimulationResult& r);

}  // namespace memwall::serve
