// Predictions for the "inference" cases of the validation set: each case becomes a Deployment
// and a static-batch workload, and the estimator's answer is converted to the case's metric.
//   - throughput tables (TensorRT-LLM gptSessionBenchmark): B x OSL generated tokens over
//     prefill + decode of the batch, per GPU when the header says so;
//   - time to first token at batch 1 (output length 1): the prefill pass;
//   - single-stream decode / prompt-processing speeds (llama.cpp): 1 / TPOT and ISL / TTFT;
//   - a unit of "prompt + output" tokens/s on a static batch: B x (ISL + OSL) / end-to-end time.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/infer/continuous.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/intervals.h"
#include "memwall/serve/serving.h"
#include "memwall/validate/case.h"
#include "memwall/validate/names.h"

namespace memwall::validate {
namespace {

// The engine profile (data/engines) of the case's framework text, with its version when stated
// ("vLLM 0.10.2" -> vllm@0.10.2, resolved to the nearest profile at or below it).
std::string engine_of(const std::string& framework) {
  const std::string f = to_lower(framework);
  auto version = [&](const char* name) { return release_in(f, f.find(name)); };
  auto with = [](const char* id, const std::string& v) {
    return v.empty() ? std::string(id) : std::string(id) + "@" + v;
  };
  if (has(f, "tensorrt")) {
    // 1.x serves through its PyTorch backend (trtllm-serve's default): the trtllm 1.0 profile; 0.x
    // cases are TensorRT engines (0.5/0.6 tables, else the 0.7 profile).
    const std::string v = version("tensorrt");
    if (!v.empty() && v.front() >= '1' && v.front() <= '9') return with("trtllm", v);
    return (has(f, "v0.5") || has(f, "v0.6") || has(f, " 0.5") || has(f, " 0.6")) ? "tensorrt-llm-0.6"
                                                                             : "tensorrt-llm";
  }
  if (has(f, "llama.cpp") || has(f, "llama-bench")) return "llama.cpp";
  if (has(f, "sglang")) return with("sglang", version("sglang"));
  if (has(f, "vllm")) return with("vllm", version("vllm"));
  if (has(f, "lmdeploy")) return with("lmdeploy", version("lmdeploy"));
  if (has(f, "mindie")) return "mindie";
  if (has(f, "text-generation-inference") || has(f, "tgi")) return "tgi";
  return "default";
}

}  // namespace

CaseResult predict_inference_case(const Json& c, const Catalog& catalog,
                                  std::shared_ptr<const perf::Efficiency> efficiency) {
  CaseResult r = start_result(c);
  try {
    const Json& hw = c.at("hardware");
    const Json& cfg = c.at("config");
    const Json& model = c.at("model");
    std::string note;
    infer::DeploymentOptions o;
    o.gpu = hardware_id(str_field(hw, "gpu"), catalog, note);
    o.model = model_id(str_field(model, "name"), catalog, note);
    const std::string kv_stated = str_field(cfg, "kv_precision");
    // The precision's own assumption about the KV cache is noted only when the case is silent.
    std::string precision_note;
    const CasePrecision prec = case_precision(str_field(cfg, "precision"), precision_note);
    o.weight_precision = prec.weight;
    o.kv_precision = prec.kv;
    if (!kv_stated.empty())
      o.kv_precision = parse_precision_or_throw(kv_stated, "config.kv_precision");
    else
      note += precision_note;
    o.weight_group_size = prec.group;
    // The checkpoint's FP8 scaling where the case states it (config.json weight_block_size).
    if (const std::string fr = to_lower(str_field(cfg, "fp8_recipe")); !fr.empty())
      o.fp8_recipe = parse_fp8_recipe(fr.substr(0, fr.find(' ')), "config.fp8_recipe");
    o.engine = engine_of(str_field(cfg, "framework"));
    if (const auto e = str_field(cfg, "engine"); !e.empty()) o.engine = e;
    o.tp = static_cast<int>(int_field(cfg, "tp").value_or(int_field(hw, "count").value_or(1)));
    // The case ran at its batch, so capacity is not judged here: the engine's allocator reserve
    // is set to none (gptSessionBenchmark and llama.cpp size the KV cache for the batch exactly).
    o.memory_utilization = 1.0;
    // Unless the case states the engine's memory fraction (vLLM gpu_memory_utilization, TensorRT-LLM
    // free_gpu_memory_fraction): it bounds the KV cache, hence continuous batching's concurrency.
    if (cfg.contains("memory_utilization") && cfg.at("memory_utilization").is_number()) {
      const double u = cfg.at("memory_utilization").get<double>();
      if (!(u > 0 && u <= 1))
        throw InputError(fmt::format("config.memory_utilization: {} is not in (0, 1]", u));
      o.memory_utilization = u;
    } else if (has(to_lower(str_field(cfg, "batching")), "continuous")) {
      // A serving engine sized its KV cache itself: its default fraction (vLLM
      // gpu_memory_utilization and TensorRT-LLM free_gpu_memory_fraction 0.9; SGLang's
      // mem_fraction_static 0.88-0.79 by TP size), not the whole device.
      o.memory_utilization.reset();
    }
    if (const auto steps = int_field(cfg, "num_scheduler_steps")) {
      if (*steps < 1 || *steps > 1024)
        throw InputError("config.num_scheduler_steps", std::to_string(*steps), "1 to 1024");
      o.scheduler_steps = static_cast<int>(*steps);
    }
    o.efficiency = std::move(efficiency);
    const infer::Deployment d = infer::make_deployment(catalog, o);
    r.engine_profile = d.engine_profile->key();
    r.accelerator = d.gpu.id;
    r.precisions = fmt::format("{}/{}", to_string(d.weight), to_string(d.kv));
    if (!o.memory_utilization)
      note += fmt::format("Engine memory fraction not stated: the engine's default {} assumed. ",
                          d.memory_utilization);

    const std::string metric = to_lower(r.metric), unit = to_lower(r.unit);
    const int64_t batch = int_field(cfg, "batch_size").value_or(1);
    auto input = int_field(cfg, "input_len");
    auto output = int_field(cfg, "output_len");
    if (has(metric, "time to first token")) {
      const auto e = infer::estimate(d, {batch, input.value_or(0), 1});
      r.regime = infer::regime(d, e, infer::Phase::prefill);
      r.predicted = e.ttft.value() * (unit == "ms" ? 1e3 : 1.0);
    } else if (has(metric, "prompt processing") || has(metric, "prefill")) {
      if (!input) {
        r.skipped_reason =
            "the case does not state the prompt length, which prompt-processing speed depends on";
        return r;
      }
      const auto e = infer::estimate(d, {1, *input, 1});
      r.regime = infer::regime(d, e, infer::Phase::prefill);
      r.predicted = double(*input) / e.ttft.value();
    } else if (has(metric, "decode") || has(metric, "text generation")) {
      if (!output) output = int_field(cfg, "gen_tokens");
      if (!output) {
        output = 128;
        note += "Generated length not stated: 128 tokens assumed. ";
      }
      if (!input) input = 1;  // text generation from an empty prompt (BOS)
      infer::Workload w{batch, *input, *output};
      if (const auto window = int_field(cfg, "context_window");
          window && *window > 1 && *input + *output > *window) {
        // llama.cpp's main example past n_ctx discards half of the context and shifts the KV
        // cache (examples/main/main.cpp, "context shift"), so the resident context cycles
        // between window/2 and window: decode is timed at its mean, 3/4 of the window.
        w = {batch, 3 * *window / 4, 2};
        note += "Context window " + std::to_string(*window) +
                " tokens with context shift: decode at the mean resident context " +
                std::to_string(w.input_tokens) + ". ";
      }
      const auto e = infer::estimate(d, w);
      r.regime = infer::regime(d, e, infer::Phase::decode);
      r.predicted = double(batch) / e.tpot.value();
    } else if (has(metric, "throughput") && has(to_lower(str_field(cfg, "batching")), "continuous")) {
      // An endless queue (offline benchmark, infinite request rate): the continuous-batching
      // steady state under the engine's limits, those the case states replacing the defaults.
      if (!input || !output) throw InputError("config: input_len and output_len are required");
      infer::ContinuousLimits l = infer::engine_limits(d);
      if (auto v = int_field(cfg, "max_num_seqs")) l.max_num_seqs = static_cast<int>(*v);
      if (auto v = int_field(cfg, "max_num_batched_tokens")) l.max_num_batched_tokens = *v;
      if (cfg.contains("chunked_prefill") && cfg.at("chunked_prefill").is_boolean())
        l.chunked_prefill = cfg.at("chunked_prefill").get<bool>();
      const auto prompts = int_field(cfg, "num_prompts");
      if (prompts)  // fewer prompts than slots: all run at once
        l.max_num_seqs = static_cast<int>(std::min<int64_t>(l.max_num_seqs, *prompts));
      const auto ce = infer::continuous_max_throughput(d, *input, *output, l);
      // The regime (bound, hardware, precision, ...) of a static batch of the steady state's mean
      // size; sequences hold less than their full context on average, so halve it until it fits.
      for (auto b = std::max<int64_t>(1, std::llround(ce.concurrency)); b >= 1 && r.regime.dims.empty(); b /= 2) {
        try {
          r.regime = infer::regime(d, infer::estimate(d, {b, *input, *output}), infer::Phase::whole);
        } catch (const InfeasibleError&) {  // too large a batch at full context: try half
        }
      }
      const bool total = has(unit, "total") || has(unit, "prompt + output");
      const bool burst = prompts && *prompts > 0 &&
                         has(to_lower(str_field(cfg, "batching")), "all requests at once");
      const bool limits_stated = cfg.contains("max_num_seqs") || cfg.contains("max_num_batched_tokens") ||
                                 cfg.contains("chunked_prefill");
      // The engine's steady state (an endless queue) ...
      double requests_per_s = ce.requests_per_s, input_per_request = double(*input),
             output_per_request = double(*output);
      if (burst && !limits_stated) {
        // ... or, for a benchmark that sends its N requests at once and waits for the last, that
        // run itself: the serving simulator with the engine's limits, every request at t = 0, to
        // the last completion (the waves a short run makes and its drain, which the steady state
        // leaves out). Lengths: fixed, or drawn uniformly from 1 to 2 x mean - 1 where the case's
        // benchmark draws them so (config.length_distribution "uniform": SGLang's random dataset
        // with range ratio 0).
        serve::ServingOptions so;
        so.deployment = o;
        so.engine_limits = true;
        so.workload.requests = *prompts;
        so.workload.arrival.kind = serve::ArrivalKind::closed_loop;
        so.workload.arrival.concurrency = static_cast<int>(std::min<int64_t>(*prompts, 1 << 30));
        const std::string dist = to_lower(str_field(cfg, "length_distribution"));
        if (!dist.empty() && dist != "fixed" && dist != "uniform")
          throw InputError("config.length_distribution", dist, "fixed or uniform");
        const bool uniform = dist == "uniform";
        auto lengths = [uniform](int64_t mean) {
          const int m = static_cast<int>(mean);
          return uniform && m > 1 ? serve::LengthDistribution::uniform(1, 2 * m - 1)
                                  : serve::LengthDistribution::fixed(m);
        };
        so.workload.lengths.name = uniform ? "uniform" : "fixed";
        so.workload.lengths.input = lengths(*input);
        so.workload.lengths.output = lengths(*output);
        so.max_len = uniform ? 2 * (*input + *output) : *input + *output;
        const serve::ServingRun run = serve::simulate_serving(catalog, so);
        if (run.result.completed < *prompts || run.result.duration_s <= 0)
          throw InfeasibleError(fmt::format("the simulated run completed {} of {} requests",
                                            run.result.completed, *prompts));
        requests_per_s = run.result.requests_per_s;
        input_per_request = run.result.mean_input_tokens;
        output_per_request = double(run.result.generated_tokens) / double(run.result.completed);
        note += fmt::format("The {} requests sent at once are simulated to the last completion "
                            "({}lengths, engine limits): {:.3g} requests/s against the steady "
                            "state's {:.3g}. ",
                            *prompts, uniform ? "uniform " : "fixed ", requests_per_s,
                            ce.requests_per_s);
      }
      // An online benchmark that sends its N requests at once: the server's front end takes them
      // in before the engine sees them (infer::burst_frontend_scale).
      double rate_scale = 1.0;
      const Seconds frontend = d.engine_profile ? d.engine_profile->frontend_per_request : Seconds(0);
      if (burst && frontend.value() > 0) {
        rate_scale = infer::burst_frontend_scale(d, requests_per_s);
        note += fmt::format("The server's front end takes in the {} requests sent at once at {:.1f} ms "
                            "each before the engine sees them ({}). ",
                            *prompts, frontend.value() * 1e3, d.engine_profile->display);
      }
      // A request rate (GuideLLM's "maximum throughput" in queries per second) or a token rate.
      const bool request_rate = has(unit, "requests/s") || has(unit, "req/s");
      double v = rate_scale * requests_per_s *
                 (request_rate ? 1.0
                  : total      ? input_per_request + output_per_request
                               : output_per_request);
      if (has(unit, "per gpu")) v /= d.devices();
      r.predicted = v;
    } else if (has(metric, "latency") && !has(metric, "first")) {
      // vLLM benchmark_latency: one static batch, prompt then every output token.
      if (!input || !output) throw InputError("config: input_len and output_len are required");
      const auto e = infer::estimate(d, {batch, *input, *output});
      r.regime = infer::regime(d, e, infer::Phase::whole);
      r.predicted = e.e2e.value() * (unit == "ms" ? 1e3 : 1.0);
    } else if (has(metric, "throughput")) {
      if (!input || !output) throw InputError("config: input_len and output_len are required");
      const auto e = infer::estimate(d, {batch, *input, *output});
      r.regime = infer::regime(d, e, infer::Phase::whole);
      const bool per_gpu = has(unit, "per gpu") || has(unit, "/gpu") || has(unit, "per-gpu");
      if (has(unit, "prompt + output")) {
        // Qwen's speed benchmark: (prompt + generated tokens) of the batch over its end-to-end time.
        const double v = double(batch) * double(*input + *output) / e.e2e.value();
        r.predicted = per_gpu ? v / d.devices() : v;
        r.assumptions = note;
        return r;
      }
      if (!per_gpu && d.devices() > 1)
        note += "Unit does not say per GPU or total: per GPU assumed (the H100 table's header). ";
      r.predicted = (per_gpu || d.devices() > 1) ? e.throughput_tokens_per_s_per_device
                                                 : e.throughput_tokens_per_s;
    } else {
      r.skipped_reason = "metric '" + r.metric + "' is not an inference metric memwall predicts";
      return r;
    }
    r.assumptions = note;
  } catch (...) {
    r.skipped_reason = skipped_because(std::current_exception());
  }
  return r;
}

}  // namespace memwall::validate
