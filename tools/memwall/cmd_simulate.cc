// memwall simulate: a discrete-event simulation of an inference server under load (arrivals,
// batching policy, KV allocator, preemption), timed by the inference estimator. Parses options,
// calls serve::to_options and serve::simulate_serving, and prints.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "commands.h"
#include "memwall/core/error.h"
#include "memwall/serve/request.h"
#include "memwall/serve/serving.h"
#include "memwall/serve/trace.h"
#include "memwall/uncertainty/model.h"

namespace memwall::cli {
namespace {

struct SimulateArgs {
  std::string model, gpu, node, router = "rr", arrival = "poisson", trace, dataset = "sharegpt";
  std::string input, output, scheduler = "continuous", kv = "paged", preempt = "recompute", sla;
  std::string timeseries, weight_precision, kv_precision, fp8_recipe, cpu;
  double host_kv_cache = 0, prefix_hit_rate = 0, host_memory_gb = 0;
  int64_t prefix_pool = 100;
  bool prefix_hit_rate_given = false, host_memory_given = false;
  int tp = 1, pp = 1, replicas = 1, max_batch = 256, block = 16;
  int prefill_replicas = 1, decode_replicas = 1;
  double rate = 0, cv = 1, batch_timeout = 0.1, swap_space = 4, watermark = 0.01;
  double link_bandwidth_gbps = 0, link_latency_us = 10, swap_bandwidth_gbps = 0;
  std::optional<double> memory_utilization;
  int scheduler_steps = 1;
  std::string engine = "default";
  std::optional<std::string> engine_version;
  std::optional<std::string> calibration;
  bool engine_limits = false;
  int64_t concurrency = 0, requests = 1000, max_waiting = 0;
  std::optional<int64_t> token_budget, max_len, kv_capacity_tokens;
  uint64_t seed = 1;
  bool rate_given = false, concurrency_given = false;
};

constexpr const char* kDefinitions =
    "Definitions: TTFT = arrival to first output token; TPOT = mean time between output tokens "
    "after the first; e2e = TTFT + (output - 1) x TPOT; throughput = generated tokens/s over the "
    "run; goodput = requests/s meeting every SLA limit. KV shares (of KV capacity, averaged over "
    "busy time): used = token states; reserved = slots a sequence's later tokens will fill; "
    "internal = reserved slots never filled; external = allocator round-up and free slots a "
    "waiting request cannot use. Ranges (low-high) and \"intervals\" in --json: 80 % intervals "
    "of the step-time model at the run's mean batch (inference regime; docs/validate.md), "
    "queueing adds none.";

// The CLI's options as the library's request (0 and "" mean "not given").
serve::SimulateRequest to_request(const SimulateArgs& a) {
  serve::SimulateRequest r;
  r.model = a.model;
  r.gpu = a.gpu;
  if (!a.node.empty()) r.node = a.node;
  r.tp = a.tp;
  r.pp = a.pp;
  r.replicas = a.replicas;
  r.router = a.router;
  if (a.rate_given) r.rate = a.rate;
  r.arrival = a.arrival;
  r.cv = a.cv;
  if (a.concurrency_given) r.concurrency = a.concurrency;
  if (!a.trace.empty()) r.trace = a.trace;
  r.dataset = a.dataset;
  if (!a.input.empty()) r.input = a.input;
  if (!a.output.empty()) r.output = a.output;
  r.requests = a.requests;
  r.seed = a.seed;
  r.max_len = a.max_len;
  r.scheduler = a.scheduler;
  r.max_batch = a.max_batch;
  r.token_budget = a.token_budget;
  r.batch_timeout_s = a.batch_timeout;
  r.kv = a.kv;
  r.block = a.block;
  r.watermark = a.watermark;
  r.preempt = a.preempt;
  r.swap_space_gib = a.swap_space;
  if (a.swap_bandwidth_gbps != 0) r.swap_bandwidth_gbps = a.swap_bandwidth_gbps;
  r.host_kv_cache_gib = a.host_kv_cache;
  if (a.prefix_hit_rate_given) r.prefix_hit_rate = a.prefix_hit_rate;
  r.prefix_pool = a.prefix_pool;
  if (!a.cpu.empty()) r.cpu = a.cpu;
  if (a.host_memory_given) r.host_memory_gb = a.host_memory_gb;
  r.max_waiting = a.max_waiting;
  r.prefill_replicas = a.prefill_replicas;
  r.decode_replicas = a.decode_replicas;
  if (a.link_bandwidth_gbps != 0) r.link_bandwidth_gbps = a.link_bandwidth_gbps;
  r.link_latency_us = a.link_latency_us;
  r.kv_capacity_tokens = a.kv_capacity_tokens;
  r.memory_utilization = a.memory_utilization;
  r.engine = a.engine;
  r.engine_version = a.engine_version;
  r.calibration_file = a.calibration;
  r.engine_limits = a.engine_limits;
  r.scheduler_steps = a.scheduler_steps;
  if (!a.weight_precision.empty()) r.weight_precision = a.weight_precision;
  if (!a.kv_precision.empty()) r.kv_precision = a.kv_precision;
  if (!a.fp8_recipe.empty()) r.fp8_recipe = a.fp8_recipe;
  if (!a.sla.empty()) r.sla = a.sla;
  return r;
}

void print_text(const serve::ServingRun& run, const serve::ServingOptions& o) {
  const auto& r = run.result;
  fmt::print("memwall simulate: {} on {} (TP {} x PP {}), KV capacity {} tokens per replica\n",
             run.model, run.gpu, run.tp, run.pp, run.kv_capacity_tokens);
  fmt::print("workload: {} requests, mean input {:.1f} / output {:.1f} tokens\n", r.requests,
             r.mean_input_tokens, r.mean_output_tokens);
  fmt::print(
      "completed {}, rejected {} (too long {}, never fits {}, queue full {}), unfinished {}\n\n",
      r.completed, r.rejected_too_long + r.rejected_never_fits + r.rejected_queue_full,
      r.rejected_too_long, r.rejected_never_fits, r.rejected_queue_full, r.unfinished);
  fmt::print("{:<10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "latency", "mean", "p50", "p90", "p99",
             "max");
  auto row = [](const char* name, const serve::LatencyStats& s, double scale) {
    fmt::print("{:<10} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}\n", name, s.mean * scale,
               s.p50 * scale, s.p90 * scale, s.p99 * scale, s.max * scale);
  };
  row("TTFT s", r.ttft, 1);
  row("TPOT ms", r.tpot, 1e3);
  row("e2e s", r.e2e, 1);
  const Json& iv = run.intervals;
  using uncertainty::range_text;
  if (iv.contains("ttft_s"))
    fmt::print("80 % ranges of the p50: TTFT {} s, TPOT {} ms, e2e {} s\n",
               range_text(iv["ttft_s"]["p50"], 1, 3), range_text(iv["tpot_s"]["p50"], 1e3, 3),
               range_text(iv["e2e_s"]["p50"], 1, 3));
  fmt::print("\n");
  fmt::print("throughput {:.1f} generated tokens/s {}, {:.3f} requests/s over {:.1f} s\n",
             r.throughput_tokens_per_s,
             iv.contains("throughput_tokens_per_s")
                 ? range_text(iv["throughput_tokens_per_s"], 1, 1)
                 : std::string(),
             r.requests_per_s, r.duration_s);
  if (!o.sla.empty()) {
    fmt::print("SLA {}: attainment {:.1f} %, goodput {:.3f} requests/s\n",
               r.sla_met ? "met" : "NOT met", r.sla_attainment * 100, r.goodput_requests_per_s);
    for (size_t i = 0; i < r.sla.size(); ++i)
      fmt::print("  {}_{} {:.4f} s (limit {:.4f} s)\n", r.sla[i].metric, r.sla[i].statistic,
                 r.sla_observed_s[i], r.sla[i].limit_s);
  }
  fmt::print(
      "KV memory: used {:.1f} %, reserved {:.1f} %, internal frag {:.1f} %, external frag "
      "{:.1f} %, free {:.1f} %\n",
      r.kv.used * 100, r.kv.reserved * 100, r.kv.internal * 100, r.kv.external * 100,
      r.kv.free * 100);
  fmt::print(
      "batch (sequences per iteration): mean {:.1f}, p50 {}, p99 {}, max {}; {} iterations\n",
      r.batch_mean, r.batch_p50, r.batch_p99, r.batch_max, r.iterations);
  fmt::print("preemptions: {} recompute, {} swap\n", r.preemptions_recompute, r.preemptions_swap);
  const Json hk = serve::host_kv_json(run);
  const auto& k = r.host_kv;
  if (k.swap_out_tokens > 0 || r.preemptions_swap > 0)
    fmt::print("swap: {:.2f} GB out, {:.2f} GB in, {:.3f} s of stalls, {} fell back to recompute\n",
               hk["swap"]["out_bytes"].get<double>() / 1e9,
               hk["swap"]["in_bytes"].get<double>() / 1e9, k.swap_time_s, k.swap_fallbacks);
  if (k.prefix_lookups > 0)
    fmt::print(
        "prefix reuse: {} lookups, {:.1f} % of {} prefix tokens reused ({} from GPU blocks, {} "
        "loaded from host: {:.2f} GB, {:.3f} s of link time, {:.3f} s not hidden)\n",
        k.prefix_lookups, hk["prefix"]["hit_rate"].get<double>() * 100, k.prefix_requested_tokens,
        k.prefix_gpu_tokens, k.prefix_host_tokens, hk["prefix"]["loaded_bytes"].get<double>() / 1e9,
        k.load_time_s, k.load_exposed_s);
  if (k.host_cache_capacity_tokens > 0)
    fmt::print("host KV cache: {} tokens, peak {}, {} stored, {} evicted in {} evictions\n",
               k.host_cache_capacity_tokens, k.host_cache.peak_tokens, k.host_cache.stored_tokens,
               k.host_cache.evicted_tokens, k.host_cache.evictions);
  for (const auto& a : run.assumptions) fmt::print("assumption: {}\n", a);
  fmt::print("\n{}\n", kDefinitions);
}

}  // namespace

void register_simulate(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto a = std::make_shared<SimulateArgs>();
  auto* sub = app.add_subcommand(
      "simulate", std::string("Simulate an inference server under load: TTFT/TPOT/e2e percentiles, "
                              "throughput, goodput under an SLA, KV-memory split, preemptions.\n") +
                      kDefinitions);
  add_global_options(*sub, g);
  sub->add_option("--model", a->model, "Built-in model id or path to a Hugging Face config.json")
      ->required();
  sub->add_option("--gpu", a->gpu, "Accelerator id or alias")->required();
  sub->add_option("--node", a->node, "Node id (default: the catalog node of the GPU)");
  sub->add_option("--tp", a->tp, "Tensor-parallel size per replica (default 1)");
  sub->add_option("--pp", a->pp, "Pipeline-parallel size per replica (default 1)");
  sub->add_option("--replicas", a->replicas, "Replicas behind the router (default 1)");
  sub->add_option("--router", a->router, "rr (round-robin) | least (least outstanding requests)");
  auto* rate_opt = sub->add_option("--rate", a->rate, "Mean arrival rate, requests/s (open loop)");
  sub->add_option("--arrival", a->arrival, "poisson | gamma (with --cv)");
  sub->add_option("--cv", a->cv, "Coefficient of variation of gamma inter-arrival gaps");
  auto* concurrency_opt = sub->add_option("--concurrency", a->concurrency,
                                          "Closed loop: clients with one request each");
  sub->add_option("--trace", a->trace,
                  "Replay a CSV or JSON-lines trace (arrival_s, input_tokens, output_tokens, "
                  "[prefix_id, prefix_tokens])");
  sub->add_option("--dataset", a->dataset, "sharegpt | alpaca | fixed:IN,OUT (default sharegpt)");
  sub->add_option("--input", a->input,
                  "Input lengths: fixed:N | uniform:LO,HI | lognormal:MEAN,CV | empirical:V,... | "
                  "empirical:@FILE");
  sub->add_option("--output", a->output, "Output lengths (same forms as --input)");
  sub->add_option("--max-len", a->max_len, "Longest sequence in tokens (default: model context)");
  sub->add_option("--requests", a->requests, "Requests to simulate (default 1000)");
  sub->add_option("--scheduler", a->scheduler,
                  "static | dynamic | continuous | chunked | disaggregated (default continuous)");
  sub->add_option("--max-batch", a->max_batch, "Most sequences resident at once (default 256)");
  sub->add_option("--token-budget", a->token_budget,
                  "Tokens per iteration (default max(2048, max-len); 2048 with chunked)");
  sub->add_option("--batch-timeout", a->batch_timeout,
                  "Dynamic batching: longest wait of the oldest request, s (default 0.1)");
  sub->add_option("--kv", a->kv, "paged | contiguous (max length) | pow2 | oracle (default paged)");
  sub->add_option("--block", a->block, "Paged KV block size in tokens (default 16)");
  sub->add_option("--watermark", a->watermark, "Paged: share of blocks kept free (default 0.01)");
  sub->add_option("--preempt,--preemption", a->preempt,
                  "recompute (default) | swap: on KV exhaustion drop the victim's KV and prefill "
                  "it again, or copy it to host memory and back (vLLM V0 swap, synchronous)");
  sub->add_option("--swap-space", a->swap_space, "Host memory per device for swap, GiB (4)");
  sub->add_option("--swap-bandwidth", a->swap_bandwidth_gbps,
                  "Host link GB/s per device for KV copies (default: the host link from the host "
                  "catalog, PCIe or NVLink-C2C, at its achievable share)");
  sub->add_option("--host-kv-cache", a->host_kv_cache,
                  "Host-memory KV cache for prompt prefixes per replica, GiB, LRU (LMCache, SGLang "
                  "HiCache); hits are loaded over the host link instead of prefilled (default 0)");
  auto* hit_opt = sub->add_option(
      "--prefix-hit-rate", a->prefix_hit_rate,
      "Share of each prompt that is a prefix of one of --prefix-pool shared contexts, in [0, 1] "
      "(trace rows with prefix_id keep theirs)");
  sub->add_option("--prefix-pool", a->prefix_pool,
                  "Shared contexts the prefixes are drawn from, uniformly (default 100)");
  sub->add_option("--cpu", a->cpu, "Host CPU for swap / host KV cache: ID or NxID (as infer)");
  auto* host_mem_opt = sub->add_option("--host-memory", a->host_memory_gb,
                                       "Host DRAM in GiB (default: the host entry's installed)");
  sub->add_option("--max-waiting", a->max_waiting, "Admission limit on queued requests (0: none)");
  sub->add_option("--prefill-replicas", a->prefill_replicas, "Disaggregated: prefill pool size");
  sub->add_option("--decode-replicas", a->decode_replicas, "Disaggregated: decode pool size");
  sub->add_option("--link-bandwidth", a->link_bandwidth_gbps,
                  "Disaggregated: KV transfer GB/s per device (default: the node's NIC)");
  sub->add_option("--link-latency", a->link_latency_us, "Disaggregated: transfer latency, us");
  sub->add_option("--kv-capacity-tokens", a->kv_capacity_tokens,
                  "Override the memory plan's KV capacity per replica");
  sub->add_option("--engine", a->engine,
                  "Engine profile (data/engines): default, vllm, sglang, trtllm, ... (as infer)");
  sub->add_option("--engine-version", a->engine_version, "Version of the engine's profile");
  sub->add_option("--calibration", a->calibration,
                  "Calibration profile the iterations are timed with (memwall calibrate --out)")
      ->check(CLI::ExistingFile);
  sub->add_flag("--engine-limits", a->engine_limits,
                "Use the engine's max sequences, max batched tokens and chunked prefill instead "
                "of --max-batch, --token-budget and continuous/chunked, and its KV admission "
                "(TensorRT-LLM reserves prompt + output: no preemption)");
  sub->add_option("--scheduler-steps", a->scheduler_steps,
                  "Iterations per scheduler call, vLLM 0.6 --num-scheduler-steps (as infer; "
                  "1 to 1024, default 1)");
  sub->add_option("--memory-utilization", a->memory_utilization,
                  "Engine memory fraction: of the device total, or for TensorRT-LLM of the memory "
                  "free after weights and activations (default: the engine's, 0.9; SGLang "
                  "0.88/0.87/0.85/0.81/0.79 at TP 1/2/4/8/16)");
  sub->add_option("--weight-precision", a->weight_precision, "Weight precision (default bf16)");
  sub->add_option("--kv-precision", a->kv_precision, "KV-cache precision");
  sub->add_option("--fp8-recipe", a->fp8_recipe,
                  "Scaling of fp8 weights: tensorwise, blockwise, mxfp8 (default: the model's FP8 "
                  "checkpoint, else tensorwise)");
  sub->add_option("--sla", a->sla, "SLA, e.g. ttft_p99=1s,tpot_p99=50ms");
  sub->add_option("--seed", a->seed, "Random seed (default 1)");
  sub->add_option("--timeseries", a->timeseries, "Write the time series as CSV to this file");
  sub->callback([&run, &g, a, rate_opt, concurrency_opt, hit_opt, host_mem_opt] {
    a->rate_given = rate_opt->count() > 0;
    a->concurrency_given = concurrency_opt->count() > 0;
    a->prefix_hit_rate_given = hit_opt->count() > 0;
    a->host_memory_given = host_mem_opt->count() > 0;
    run = [&g, a] {
      const Catalog catalog = Catalog::with_user_files(g.catalog_files);
      const serve::SimulateRequest request = to_request(*a);
      const serve::ServingOptions o = serve::to_options(request);
      const serve::ServingRun result = serve::simulate(catalog, request);
      if (!a->timeseries.empty())
        write_output_file("--timeseries", a->timeseries, serve::timeseries_csv(result.result));
      if (g.json) {
        std::cout << serve::to_json(result).dump(2) << "\n";
      } else {
        print_text(result, o);
      }
      return 0;
    };
  });
}

}  // namespace memwall::cli
