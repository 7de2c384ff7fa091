#include "memwall/serve/serving.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/step.h"
#include "memwall/offload/bandwidth.h"
#include "memwall/serve/intervals.h"

namespace memwall::serve {

ServingRun simulate_serving(const Catalog& catalog, const ServingOptions& o) {
  const infer::Deployment d = infer::make_deployment(catalog, o.deployment);
  ServingRun run;
  run.model = d.model.id;
  run.gpu = d.gpu.id;
  run.tp = d.tp;
  run.pp = d.pp;
  run.assumptions = d.assumptions;

  // The KV pool the engine sizes at start-up, after profiling its largest step.
  const infer::MemoryPlan plan = infer::plan_engine_memory(d);
  run.kv_bytes_per_token_per_device = plan.kv_bytes_per_token;
  run.kv_capacity_tokens = plan.kv_capacity_tokens;
  if (o.kv_capacity_tokens) {
    if (*o.kv_capacity_tokens < 1 || *o.kv_capacity_tokens > int64_t{1} << 40)
      throw InputError("--kv-capacity-tokens", std::to_string(*o.kv_capacity_tokens),
                       "tokens in [1, 2^40]");
    run.kv_capacity_tokens = *o.kv_capacity_tokens;
    run.assumptions.push_back(
        fmt::format("KV capacity set to {} tokens per replica (the memory plan gives {})",
                    run.kv_capacity_tokens, plan.kv_capacity_tokens));
  }

  SimulationConfig c;
  c.workload = o.workload;
  c.replicas = o.replicas;
  c.router = o.router;
  c.sla = o.sla;
  c.cancel = o.cancel;
  const int64_t context = o.max_len                 ? *o.max_len
                          : d.model.max_context > 0 ? d.model.max_context
                                                    : int64_t{2048};
  if (!o.max_len && d.model.max_context <= 0)
    run.assumptions.push_back("model context unknown: 2048 tokens assumed (--max-len to change)");
  c.replica.kv = KvConfig{o.kv, run.kv_capacity_tokens, o.block_tokens, context, o.watermark};
  c.replica.scheduler = o.scheduler;
  if (o.engine_limits) {
    auto& s = c.replica.scheduler;
    s.max_batch = d.max_num_seqs();
    s.token_budget = d.max_num_batched_tokens();
    if (s.policy == SchedulerPolicy::continuous || s.policy == SchedulerPolicy::chunked)
      s.policy = d.engine_profile->limits.chunked_prefill ? SchedulerPolicy::chunked
                                                          : SchedulerPolicy::continuous;
    const bool reserve = d.engine_profile->limits.reserve_output_kv && is_paged(o.kv);
    c.replica.kv.reserve_final = reserve;
    run.assumptions.push_back(fmt::format(
        "engine limits of {}: {} sequences, {} tokens per iteration, {}{}", d.engine_profile->display,
        s.max_batch, s.token_budget,
        s.policy == SchedulerPolicy::chunked ? "chunked prefill" : "whole prompts",
        reserve ? ", KV for prompt + output reserved at admission (no preemption)" : ""));
  }
  c.replica.kv_bytes_per_token = plan.kv_bytes_per_token;
  run.devices_per_replica = d.devices_per_replica();
  c.replica.layers = std::max(1, d.model.layers / std::max(1, d.pp));
  const bool swap = o.scheduler.preemption == Preemption::swap;
  if (!std::isfinite(o.host_kv_cache_gib) || o.host_kv_cache_gib < 0 || o.host_kv_cache_gib > 1e6)
    throw InputError("--host-kv-cache", fmt::format("{}", o.host_kv_cache_gib), "GiB in [0, 1e6]");
  if (swap &&
      (!(o.swap_space_gib > 0) || !std::isfinite(o.swap_space_gib) || o.swap_space_gib > 1e6))
    throw InputError("--swap-space", fmt::format("{}", o.swap_space_gib), "GiB in (0, 1e6]");
  if (swap || o.host_kv_cache_gib > 0) {
    // The host beside the GPUs (offload/host_setup.h): its link times the copies, its DRAM holds
    // the swap space of every device and the replica's host KV cache.
    const offload::HostEfficiency& e = offload::default_host_efficiency();
    run.host = offload::resolve_host(catalog, d.gpu, o.host);
    offload::HostLinkModel link = offload::host_link_model(*run.host, e);
    if (o.swap_bandwidth) {
      link.name = "--swap-bandwidth";
      link.achievable = *o.swap_bandwidth;
    }
    run.host_link = link;
    c.replica.host_link = link;
    c.replica.swap_bandwidth = link.achievable;
    run.assumptions.push_back(fmt::format(
        "KV copies to and from host memory over {} at {:.1f} GB/s per direction per device{}, "
        "{:.0f} us per copy, one copy per layer; swap stalls the iteration (vLLM V0), host-cache "
        "loads overlap it layer by layer (SGLang HiCache, LMCache), stores to the host are "
        "asynchronous and not charged",
        link.name, link.achievable.value() / 1e9,
        o.swap_bandwidth ? "" : fmt::format(" ({:.0f} % of nominal)", e.link_fraction * 100),
        link.per_copy.value() * 1e6));
    for (const auto& n : run.host->notes) run.assumptions.push_back(n);
    const double need_gib =
        (swap ? o.swap_space_gib * d.devices_per_replica() : 0.0) + o.host_kv_cache_gib;
    const double usable_gib = run.host->memory.value() * e.host_memory_usable_fraction / kGiB;
    if (need_gib > usable_gib)
      throw InfeasibleError(fmt::format(
          "host memory: swap space {:g} GiB x {} devices + host KV cache {:g} GiB = {:.1f} GiB "
          "per replica, but {} holds {:.1f} GiB usable ({:.0f} % of {:.0f} GiB); lower "
          "--swap-space / --host-kv-cache or give --host-memory / --cpu",
          swap ? o.swap_space_gib : 0.0, d.devices_per_replica(), o.host_kv_cache_gib, need_gib,
          run.host->host.id, usable_gib, e.host_memory_usable_fraction * 100,
          run.host->memory.value() / kGiB));
  }
  // Swap space is per device (vLLM --swap-space) and each device swaps its own KV shard; the
  // host KV cache is per replica and holds every device's shard of a token.
  if (swap)
    c.replica.scheduler.swap_capacity_tokens =
        static_cast<int64_t>(std::floor(o.swap_space_gib * kGiB / plan.kv_bytes_per_token.value()));
  if (o.host_kv_cache_gib > 0) {
    const double token_bytes = plan.kv_bytes_per_token.value() * d.devices_per_replica();
    c.replica.scheduler.host_cache_tokens =
        static_cast<int64_t>(std::floor(o.host_kv_cache_gib * kGiB / token_bytes));
    if (c.replica.scheduler.host_cache_tokens < 1)
      throw InfeasibleError(fmt::format(
          "--host-kv-cache {:g} GiB holds no token: one token's KV is {:.0f} bytes per replica",
          o.host_kv_cache_gib, token_bytes));
  }
  if (o.disaggregated) {
    c.disaggregation.enabled = true;
    c.disaggregation.prefill_replicas = o.prefill_replicas;
    c.disaggregation.decode_replicas = o.decode_replicas;
    c.disaggregation.link_latency = o.link_latency;
    if (o.link_bandwidth) {
      c.disaggregation.link_bandwidth = *o.link_bandwidth;
    } else {
      // Each device sends its own KV shard over its own NIC (RDMA), as in DistServe/Mooncake.
      c.disaggregation.link_bandwidth = d.node.nic_bandwidth_per_direction;
      run.assumptions.push_back(
          fmt::format("KV moves between the pools over one NIC per device at {:.1f} GB/s ({})",
                      c.disaggregation.link_bandwidth.value() / 1e9, d.node.id));
    }
    if (!(c.disaggregation.link_bandwidth.value() > 0))
      throw InputError("--link-bandwidth", "unknown", "a KV transfer bandwidth in GB/s > 0");
  }
  // Each iteration timed as infer::step_time times it, its GEMM and element-wise kernels memoised.
  auto timer = std::make_shared<infer::StepTimer>(d);
  const StepCost cost = [timer](const infer::StepBatch& b) { return (*timer)(b); };
  run.result = simulate(c, cost);
  run.intervals = intervals_json(d, run.result);
  return run;
}

Json host_kv_json(const ServingRun& run) {
  const HostKvStats& k = run.result.host_kv;
  // Bytes over all devices of all replicas: each device moves its own shard of a token's KV.
  const double token_bytes =
      run.kv_bytes_per_token_per_device.value() * double(run.devices_per_replica);
  auto bytes = [&](int64_t tokens) { return double(tokens) * token_bytes; };
  Json host = nullptr;
  if (run.host) {
    host = Json{{"cpu", run.host->host.id},
                {"sockets", run.host->host.sockets},
                {"memory_bytes", run.host->memory.value()},
                {"link", run.host_link ? run.host_link->name : run.host->link},
                {"link_achievable_bytes_per_s_per_device",
                 run.host_link ? run.host_link->achievable.value() : 0.0},
                {"per_copy_s", run.host_link ? run.host_link->per_copy.value() : 0.0}};
  }
  const HostCacheCounters& c = k.host_cache;
  return Json{{"host", host},
              {"swap",
               {{"preemptions", run.result.preemptions_swap},
                {"fallbacks_to_recompute", k.swap_fallbacks},
                {"out_tokens", k.swap_out_tokens},
                {"in_tokens", k.swap_in_tokens},
                {"out_bytes", bytes(k.swap_out_tokens)},
                {"in_bytes", bytes(k.swap_in_tokens)},
                {"time_s", k.swap_time_s}}},
              {"prefix",
               {{"lookups", k.prefix_lookups},
                {"requested_tokens", k.prefix_requested_tokens},
                {"gpu_hit_tokens", k.prefix_gpu_tokens},
                {"host_hit_tokens", k.prefix_host_tokens},
                {"computed_tokens", k.prefix_computed_tokens},
                {"hit_rate", k.prefix_requested_tokens > 0
                                 ? double(k.prefix_gpu_tokens + k.prefix_host_tokens) /
                                       double(k.prefix_requested_tokens)
                                 : 0.0},
                {"loaded_bytes", bytes(k.prefix_host_tokens)},
                {"load_time_s", k.load_time_s},
                {"load_exposed_s", k.load_exposed_s}}},
              {"host_cache",
               {{"capacity_tokens", k.host_cache_capacity_tokens},
                {"capacity_bytes", bytes(k.host_cache_capacity_tokens)},
                {"lookups", c.lookups},
                {"hits", c.hits},
                {"hit_tokens", c.hit_tokens},
                {"stored_tokens", c.stored_tokens},
                {"stored_bytes", bytes(c.stored_tokens)},
                {"evicted_tokens", c.evicted_tokens},
                {"evictions", c.evictions},
                {"peak_tokens", c.peak_tokens}}}};
}

Json to_json(const ServingRun& run) {
  Json j = to_json(run.result);
  j["deployment"] =
      Json{{"model", run.model},
           {"gpu", run.gpu},
           {"tp", run.tp},
           {"pp", run.pp},
           {"kv_capacity_tokens_per_replica", run.kv_capacity_tokens},
           {"kv_bytes_per_token_per_device", run.kv_bytes_per_token_per_device.value()}};
  j["assumptions"] = run.assumptions;
  j["intervals"] = run.intervals;
  j["host_kv"] = host_kv_json(run);
  return j;
}

}  // namespace memwall::serve
