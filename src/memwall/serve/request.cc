#include "memwall/serve/request.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/precision.h"
#include "memwall/serve/trace.h"

namespace memwall::serve {

ServingOptions to_options(const SimulateRequest& a) {
  ServingOptions o;
  o.deployment.model = a.model;
  o.deployment.gpu = a.gpu;
  o.deployment.node = a.node;
  o.deployment.tp = a.tp;
  o.deployment.pp = a.pp;
  if (a.memory_utilization)
    o.deployment.memory_utilization = require_fraction(*a.memory_utilization, "memory-utilization");
  o.deployment.engine = a.engine;
  o.deployment.engine_version = a.engine_version;
  o.deployment.calibration_file = a.calibration_file;
  o.deployment.scheduler_steps = a.scheduler_steps;
  o.engine_limits = a.engine_limits;
  if (a.weight_precision)
    o.deployment.weight_precision = parse_precision_or_throw(*a.weight_precision, "weight-precision");
  if (a.kv_precision)
    o.deployment.kv_precision = parse_precision_or_throw(*a.kv_precision, "kv-precision");
  if (a.fp8_recipe) o.deployment.fp8_recipe = parse_fp8_recipe(*a.fp8_recipe, "fp8-recipe");
  o.replicas = a.replicas;
  o.router = parse_router_policy(a.router);

  WorkloadSpec& w = o.workload;
  const int sources = (a.rate ? 1 : 0) + (a.concurrency ? 1 : 0) + (a.trace ? 1 : 0);
  if (sources != 1)
    throw InputError("rate/concurrency/trace", "(" + std::to_string(sources) + " given)",
                     "exactly one of them");
  if (a.trace) {
    w.arrival.kind = ArrivalKind::trace;
    w.trace = load_trace(*a.trace);
  } else if (a.concurrency) {
    if (*a.concurrency < 1 || *a.concurrency > 10'000'000)
      throw InputError("concurrency", std::to_string(*a.concurrency), "clients in [1, 10000000]");
    w.arrival = {ArrivalKind::closed_loop, 0, 1, static_cast<int>(*a.concurrency)};
  } else {
    w.arrival.rate_per_s = require_positive(*a.rate, "rate");
    // Event times are doubles: over a run of 1e9 s (32 years) their resolution is 2^-52 x 1e9 s
    // = 2.2e-7 s, already a fifth of a microsecond-scale step; a rate spreading the requests
    // wider than that is no serving load (1e-300 printed every latency as 0.000).
    constexpr double kMaxRunSpanS = 1e9;
    if (w.arrival.rate_per_s * kMaxRunSpanS < double(a.requests))
      throw InputError("rate", fmt::format("{:g}", w.arrival.rate_per_s),
                       fmt::format("at least requests / 1e9 s = {:g} requests/s for {} requests "
                                   "(a longer run loses the microsecond resolution of its event "
                                   "times)",
                                   double(a.requests) / kMaxRunSpanS, a.requests));
    if (a.arrival == "gamma") {
      w.arrival.kind = ArrivalKind::gamma;
      w.arrival.cv = require_positive(a.cv, "cv");
    } else if (a.arrival != "poisson") {
      throw InputError::unknown_name("arrival", a.arrival, {"poisson", "gamma"});
    }
  }
  w.lengths = dataset_preset(a.dataset);
  if (a.input) w.lengths.input = LengthDistribution::parse(*a.input, "input");
  if (a.output) w.lengths.output = LengthDistribution::parse(*a.output, "output");
  w.requests = a.requests;
  w.seed = a.seed;
  if (a.max_len) {
    if (*a.max_len < 2 || *a.max_len > 100'000'000)
      throw InputError("max-len", std::to_string(*a.max_len), "tokens in [2, 100000000]");
    o.max_len = *a.max_len;
    w.lengths.max_total_tokens = static_cast<int>(*a.max_len);
    if (w.lengths.max_input_tokens >= *a.max_len) w.lengths.max_input_tokens = 0;
  }

  SchedulerConfig& s = o.scheduler;
  if (a.scheduler == "disaggregated") {
    o.disaggregated = true;
    o.prefill_replicas = a.prefill_replicas;
    o.decode_replicas = a.decode_replicas;
  } else {
    s.policy = parse_scheduler_policy(a.scheduler);
  }
  s.max_batch = a.max_batch;
  // vLLM: max_num_batched_tokens = max(max_model_len, 2048) without chunking, 2048 with it.
  s.token_budget = a.token_budget ? *a.token_budget
                   : s.policy == SchedulerPolicy::chunked
                       ? 2048
                       : std::max<int64_t>(2048, o.max_len.value_or(2048));
  s.batch_timeout_s = a.batch_timeout_s;
  if (a.preempt == "swap") {
    s.preemption = Preemption::swap;
  } else if (a.preempt != "recompute") {
    throw InputError::unknown_name("preempt", a.preempt, {"recompute", "swap"});
  }
  if (a.max_waiting < 0) throw InputError("max-waiting", std::to_string(a.max_waiting), ">= 0");
  s.max_waiting = a.max_waiting;
  o.kv = parse_kv_policy(a.kv);
  o.block_tokens = a.block;
  o.watermark = a.watermark;
  o.swap_space_gib = a.swap_space_gib;
  o.host_kv_cache_gib = require_non_negative(a.host_kv_cache_gib, "host-kv-cache");
  if (a.prefix_hit_rate) {
    if (!(*a.prefix_hit_rate >= 0 && *a.prefix_hit_rate <= 1))
      throw InputError("prefix-hit-rate", std::to_string(*a.prefix_hit_rate),
                       "a share of each prompt in [0, 1]");
    w.prefix_share = *a.prefix_hit_rate;
  }
  if (a.prefix_pool < 1 || a.prefix_pool > 1'000'000'000)
    throw InputError("prefix-pool", std::to_string(a.prefix_pool), "contexts in [1, 1e9]");
  w.prefix_pool = a.prefix_pool;
  o.host.cpu = a.cpu;
  o.host.host_memory_gb = a.host_memory_gb;
  if (a.swap_bandwidth_gbps)
    o.swap_bandwidth = gb_per_s(require_positive(*a.swap_bandwidth_gbps, "swap-bandwidth"));
  if (a.link_bandwidth_gbps)
    o.link_bandwidth = gb_per_s(require_positive(*a.link_bandwidth_gbps, "link-bandwidth"));
  o.link_latency = us(require_non_negative(a.link_latency_us, "link-latency"));
  o.kv_capacity_tokens = a.kv_capacity_tokens;
  if (a.sla) o.sla = parse_sla(*a.sla);
  o.cancel = a.cancel;
  return o;
}

ServingRun simulate(const Catalog& catalog, const SimulateRequest& r) {
  ServingRun run = simulate_serving(catalog, to_options(r));
  const SimulationResult& s = run.result;
  if (s.completed == 0 && s.requests > 0)
    throw InfeasibleError(fmt::format(
        "none of the {} requests completed: {} longer than the longest sequence, {} whose KV never "
        "fits the {} tokens of KV capacity per replica, {} refused by the queue limit, {} unfinished",
        s.requests, s.rejected_too_long, s.rejected_never_fits, run.kv_capacity_tokens,
        s.rejected_queue_full, s.unfinished));
  return run;
}

}  // namespace memwall::serve
