// A serving question as a front end asks it (the CLI's `memwall simulate`, the Python module):
// the deployment by name, the load (open-loop rate, closed-loop clients or a trace file), length
// distributions and the engine's settings, all as plain values. `to_options` checks them and
// builds the simulator's ServingOptions (serve/serving.h), which simulate_serving runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "memwall/serve/serving.h"

namespace memwall::serve {

struct SimulateRequest {
  std::string model, gpu;
  std::optional<std::string> node;
  int tp = 1, pp = 1, replicas = 1;
  std::string router = "rr";  // rr | least
  // Load: exactly one of rate, concurrency, trace.
  std::optional<double> rate;           // requests/s, open loop
  std::string arrival = "poisson";      // poisson | gamma (with cv)
  double cv = 1;
  std::optional<int64_t> concurrency;   // closed-loop clients
  std::optional<std::string> trace;     // CSV or JSON-lines file
  std::string dataset = "sharegpt";     // sharegpt | alpaca | fixed:IN,OUT
  std::optional<std::string> input, output;  // length distributions over the dataset's
  int64_t requests = 1000;
  uint64_t seed = 1;
  std::optional<int64_t> max_len;
  std::string scheduler = "continuous";  // static dynamic continuous chunked disaggregated
  int max_batch = 256;
  std::optional<int64_t> token_budget;
  double batch_timeout_s = 0.1;
  std::string kv = "paged";  // paged contiguous pow2 oracle
  int block = 16;
  double watermark = 0.01;
  std::string preempt = "recompute";  // recompute | swap
  double swap_space_gib = 4;
  std::optional<double> swap_bandwidth_gbps;
  double host_kv_cache_gib = 0;          // host KV cache for prefixes per replica; 0: none
  std::optional<double> prefix_hit_rate;  // share of each prompt that is a reusable prefix
  int64_t prefix_pool = 100;              // shared contexts the prefixes are drawn from
  std::optional<std::string> cpu;         // host CPU ("ID" or "NxID"), as infer --cpu
  std::optional<double> host_memory_gb;   // host DRAM, GiB, as infer --host-memory
  int64_t max_waiting = 0;
  int prefill_replicas = 1, decode_replicas = 1;
  std::optional<double> link_bandwidth_gbps;
  double link_latency_us = 10;
  std::optional<int64_t> kv_capacity_tokens;
  std::optional<double> memory_utilization;  // unset: the engine's default (infer/deployment.h)
  std::string engine = "default";          // engine profile (data/engines), as `infer --engine`
  std::optional<std::string> engine_version;
  std::optional<std::string> calibration_file;  // a calibration profile (memwall calibrate)
  int scheduler_steps = 1;  // iterations per scheduler call (vLLM 0.6 --num-scheduler-steps)
  // true: the engine's limits (max sequences, max batched tokens, chunked prefill or whole
  // prompts) replace max_batch, token_budget and a continuous/chunked scheduler
  bool engine_limits = false;
  std::optional<std::string> weight_precision, kv_precision, fp8_recipe;
  std::optional<std::string> sla;  // e.g. ttft_p99=1s,tpot_p99=50ms
  const CancelFlag* cancel = nullptr;  // the HTTP server's; never set by the CLI (core/cancel.h)
};

// Checks every value (InputError names the field) and builds the simulator's options.
ServingOptions to_options(const SimulateRequest& r);

// The run every face (CLI, HTTP API, Python) answers a SimulateRequest with: InfeasibleError
// (exit 3) when no request completed, with the rejection counts and the KV capacity, rather than
// latencies of runs that never happened.
ServingRun simulate(const Catalog& catalog, const SimulateRequest& r);

}  // namespace memwall::serve
