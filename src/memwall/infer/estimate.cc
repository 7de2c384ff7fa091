#include "memwall/infer/estimate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/model/counts.h"
#include "memwall/perf/graph.h"

namespace memwall::infer {
namespace {

constexpr int kDecodeSamples = 8;  // midpoint rule over the decode steps (step time ~ linear)
constexpr int64_t kMaxTokens = int64_t(1) << 40;

std::string bound_of(const StepCost& c) {
  const double v[4] = {c.compute_bound.value(), c.memory_bound.value(), c.communication.value(),
                       c.overhead.value()};
  static const char* names[4] = {"compute", "memory", "communication", "overhead"};
  return names[std::max_element(v, v + 4) - v];
}

// Model FLOPs of `tokens` tokens that each attend to `mean_context` tokens on average.
Flops model_flops(const ModelSpec& m, double tokens, double mean_context) {
  return Flops(tokens * (2.0 * matmul_parameters_per_token(m) +
                         attention_flops_per_token(m, mean_context)));
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

StepBatch prefill_batch(int64_t batch, int64_t input_tokens) {
  StepBatch b;
  b.prefill_tokens = batch * input_tokens;
  b.prefill_sequences = static_cast<int>(batch);
  b.prefill_attended_pairs = double(batch) * perf::causal_pairs(double(input_tokens), 0);
  return b;
}

StepBatch decode_batch(int64_t batch, int64_t context_tokens) {
  StepBatch b;
  b.decode_sequences = static_cast<int>(batch);
  b.decode_context_tokens = batch * context_tokens;
  return b;
}

void check_context(const ModelSpec& model, int64_t input_tokens, int64_t output_tokens) {
  const int64_t positions = input_tokens + output_tokens - 1;
  if (model.max_context > 0 && positions > model.max_context)
    throw InfeasibleError(
        fmt::format("input + output - 1 = {} positions exceed the {} context of {}", positions,
                    model.max_context, model.id));
}

Estimate estimate(const Deployment& d, const Workload& w) {
  if (w.batch < 1 || w.batch > (1 << 24))
    throw InputError("--batch", std::to_string(w.batch), "an integer in [1, 16777216] or max");
  if (w.input_tokens < 1 || w.input_tokens > kMaxTokens)
    throw InputError("--input", std::to_string(w.input_tokens), "a positive token count");
  if (w.output_tokens < 1 || w.output_tokens > kMaxTokens)
    throw InputError("--output", std::to_string(w.output_tokens), "a positive token count");
  const int64_t context = w.input_tokens + w.output_tokens;
  check_context(d.model, w.input_tokens, w.output_tokens);
  Estimate e;
  e.workload = w;
  e.assumptions = d.assumptions;
  e.max_batch = max_batch(d, context, w.input_tokens);
  e.memory = plan_memory(d, w.batch, context, w.input_tokens);

  const ModelSpec& m = d.model;
  const double devices = d.devices_per_replica();
  const double peak_flops = d.ceilings.matmul_peak.value();
  const double peak_bw = d.ceilings.memory_peak.value();

  // Prefill: the batch in min(batch, pp) micro-batches through pp stages (GPipe schedule:
  // (m + pp - 1) stage slots).
  const int64_t micro = std::min<int64_t>(w.batch, d.pp);
  const int64_t per_micro = ceil_div(w.batch, micro);
  e.prefill.step = step_cost(d, prefill_batch(per_micro, w.input_tokens));
  e.prefill.time = e.prefill.step.total * (double(micro + d.pp - 1) / d.pp);
  e.ttft = e.prefill.time;
  // Prompt token i attends to the i tokens up to it: causal attention, (S + 1) / 2 on average,
  // the work a causal kernel does (FlashAttention skips the masked blocks; Dao et al. 2022).
  // Counting the full S (Narayanan et al. 2021 eq. 3, train's convention) would credit work no
  // kernel runs and put a long prompt's MFU above 1 (32k tokens: 107.8 % on an A100 in fp32).
  e.prefill.model_flops = model_flops(m, double(w.batch * w.input_tokens),
                                      (double(w.input_tokens) + 1) / 2);
  e.prefill.mfu = e.prefill.model_flops.value() / (e.prefill.time.value() * devices * peak_flops);
  e.prefill.mbu =
      e.prefill.step.bytes_moved.value() * double(micro) / e.prefill.time.value() / peak_bw;
  e.prefill.bound = bound_of(e.prefill.step);

  // Decode: steps 1 .. output-1 at context input + j; pp micro-batches in flight, each getting a
  // token every pass through the pipeline.
  const int64_t steps = w.output_tokens - 1;
  const int64_t dmicro = std::min<int64_t>(w.batch, d.pp);
  const int64_t dper = ceil_div(w.batch, dmicro);
  if (steps > 0) {
    const int k = static_cast<int>(std::min<int64_t>(steps, kDecodeSamples));
    double sum = 0;
    for (int i = 0; i < k; ++i) {
      const double j = 1.0 + (i + 0.5) * double(steps) / k - 0.5;
      const auto ctx = static_cast<int64_t>(std::llround(double(w.input_tokens) + j));
      sum += step_time(d, decode_batch(dper, ctx)).value();
    }
    e.tpot = Seconds(sum / k);
    const double mean_ctx = double(w.input_tokens) + (double(steps) + 1) / 2;
    e.decode.step = step_cost(d, decode_batch(dper, static_cast<int64_t>(std::llround(mean_ctx))));
    e.decode.time = e.tpot * double(steps);
    e.decode.model_flops = model_flops(m, double(w.batch * steps), mean_ctx);
    e.decode.mfu = e.decode.model_flops.value() / (e.decode.time.value() * devices * peak_flops);
    e.decode.mbu = e.decode.step.bytes_moved.value() * double(dmicro) / e.tpot.value() / peak_bw;
    e.decode.bound = bound_of(e.decode.step);
  }
  e.e2e = e.ttft + e.tpot * double(steps);
  const double tokens = double(w.batch * w.output_tokens);
  e.throughput_tokens_per_s = tokens / e.e2e.value() * d.dp;
  e.throughput_tokens_per_s_per_device = e.throughput_tokens_per_s / d.devices();
  e.requests_per_s = double(w.batch) / e.e2e.value() * d.dp;
  e.mfu = (e.prefill.model_flops + e.decode.model_flops).value() /
          (e.e2e.value() * devices * peak_flops);
  e.mbu = steps > 0 ? e.decode.mbu : e.prefill.mbu;
  e.bound = (steps > 0 && e.decode.time > e.prefill.time) ? e.decode.bound : e.prefill.bound;
  e.overlap = fmt::format(
      "within a kernel, compute and memory traffic overlap imperfectly (L^{:g} blend of the two "
      "times); kernels run back to back; tensor-parallel all-reduces are {}; pipeline stages "
      "overlap across micro-batches only",
      d.efficiency->overlap_exponent,
      d.efficiency->tp_comm_overlap > 0
          ? fmt::format("{:.0f}% hidden behind compute", d.efficiency->tp_comm_overlap * 100)
          : std::string("not overlapped (they sit between dependent GEMMs)"));
  return e;
}

std::vector<Estimate> sweep(const Deployment& d, const std::vector<int64_t>& batches,
                            int64_t input_tokens, int64_t output_tokens) {
  std::vector<Estimate> out;
  for (int64_t b : batches) {
    try {
      out.push_back(estimate(d, Workload{b, input_tokens, output_tokens}));
    } catch (const InfeasibleError&) {
      // does not fit: the caller reports max_batch
    }
  }
  return out;
}

Json deployment_json(const Deployment& d) {
  return Json{{"model", d.model.id},
              {"gpu", d.gpu.id},
              {"node", d.node.id},
              {"node_assumed", d.node_assumed},
              {"fabric", d.fabric ? Json(d.fabric->id) : Json()},
              {"tp", d.tp},
              {"pp", d.pp},
              {"ep", d.ep},
              {"dp", d.dp},
              {"devices", d.devices()},
              {"weight_precision", to_string(d.weight)},
              {"activation_precision", to_string(d.activation)},
              {"kv_precision", to_string(d.kv)},
              {"matmul_precision", to_string(d.matmul)},
              {"engine", d.engine},
              {"engine_version", d.engine_profile ? d.engine_profile->version : std::string()},
              {"engine_platform", d.engine_profile ? d.engine_profile->platform : std::string()},
              {"engine_profile", d.engine_profile ? perf::to_json(*d.engine_profile) : Json()},
              {"memory_utilization", d.memory_utilization},
              {"ceilings",
               {{"matmul_peak_flops_per_s", d.ceilings.matmul_peak.value()},
                {"gemm_peak_fraction", d.ceilings.gemm_peak_fraction},
                {"memory_peak_bytes_per_s", d.ceilings.memory_peak.value()},
                {"memory_sustained_bytes_per_s", d.ceilings.memory_sustained.value()},
                {"compute_units", d.ceilings.compute_units},
                {"kernel_overhead_s", d.ceilings.kernel_overhead.value()},
                {"step_overhead_s", d.ceilings.step_overhead.value()},
                {"efficiency", d.ceilings.calibrated ? "calibrated" : "uncalibrated"},
                {"efficiency_source", d.ceilings.efficiency_source}}}};
}

namespace {

Json step_json(const StepCost& c, bool with_operators) {
  Json j{{"time_s", c.total.value()},
         {"compute_bound_s", c.compute_bound.value()},
         {"memory_bound_s", c.memory_bound.value()},
         {"communication_s", c.communication.value()},
         {"overhead_s", c.overhead.value()},
         {"bytes_moved_per_device", c.bytes_moved.value()},
         {"flops_per_device", c.flops.value()}};
  if (with_operators) {
    Json ops = Json::array();
    for (const auto& t : c.ops) {
      const double time = t.time.time.value() * t.op.repeat;
      ops.push_back({{"name", t.op.name},
                     {"kind", perf::to_string(t.op.cost.kind)},
                     {"shape", t.op.shape()},
                     {"repeat", t.op.repeat},
                     {"flops", t.op.cost.flops.value() * t.op.repeat},
                     {"weight_bytes", t.op.weight_bytes.value() * t.op.repeat},
                     {"activation_bytes", t.op.activation_bytes.value() * t.op.repeat},
                     {"kv_bytes", t.op.kv_bytes.value() * t.op.repeat},
                     {"bytes_written", t.op.cost.bytes_written.value() * t.op.repeat},
                     {"intensity_flops_per_byte", t.op.intensity()},
                     {"bound", perf::bound_of(t.op, t.time)},
                     {"time_s", time},
                     {"share", c.total.value() > 0 ? time / c.total.value() : 0.0}});
    }
    j["operators"] = ops;
  }
  return j;
}

Json phase_json(const PhaseEstimate& p, bool with_operators) {
  return Json{{"time_s", p.time.value()}, {"model_flops", p.model_flops.value()},
              {"mfu", p.mfu},           {"mbu", p.mbu},
              {"bound", p.bound},       {"step", step_json(p.step, with_operators)}};
}

}  // namespace

Json to_json(const Estimate& e, const Deployment& d, bool with_operators) {
  const MemoryPlan& mp = e.memory;
  return Json{
      {"ttft_s", e.ttft.value()},
      {"tpot_s", e.tpot.value()},
      {"e2e_s", e.e2e.value()},
      {"throughput_tokens_per_s", e.throughput_tokens_per_s},
      {"throughput_tokens_per_s_per_device", e.throughput_tokens_per_s_per_device},
      {"requests_per_s", e.requests_per_s},
      {"memory_per_gpu_bytes", mp.used().value()},
      {"max_batch", e.max_batch},
      {"bound", e.bound},
      {"mfu", e.mfu},
      {"mbu", e.mbu},
      {"efficiency", d.ceilings.calibrated ? "calibrated" : "uncalibrated"},
      {"batch", e.workload.batch},
      {"batching", e.batching},
      {"continuous", e.continuous ? to_json(*e.continuous) : Json()},
      {"input_tokens", e.workload.input_tokens},
      {"output_tokens", e.workload.output_tokens},
      {"prefill", phase_json(e.prefill, with_operators)},
      {"decode", phase_json(e.decode, with_operators)},
      {"memory",
       {{"capacity_bytes", mp.capacity.value()},
        {"weights_bytes", mp.weights.value()},
        {"kv_cache_bytes", mp.kv_used.value()},
        {"activations_bytes", mp.activations.value()},
        {"runtime_reserve_bytes", mp.runtime_reserve.value()},
        {"kv_budget_bytes", mp.kv_budget.value()},
        {"kv_bytes_per_token_per_device", mp.kv_bytes_per_token.value()},
        {"kv_capacity_tokens_per_replica", mp.kv_capacity_tokens}}},
      {"deployment", deployment_json(d)},
      {"overlap", e.overlap},
      {"assumptions", e.assumptions},
      {"definitions",
       {{"ttft", "arrival to first output token (the batch's prefill pass)"},
        {"tpot", "mean time between output tokens after the first"},
        {"e2e", "ttft + (output - 1) x tpot"},
        {"throughput", "generated tokens per second of the whole deployment (all replicas)"},
        {"mfu", "model FLOP/s per device / dense peak of the matmul precision; model FLOPs = 2 x "
                "active parameters per token + attention over the tokens each one attends to "
                "(causal: (S + 1) / 2 in the prompt; forward only)"},
        {"mbu", "bytes moved per second per device / datasheet memory bandwidth (decode phase)"}}}};
}

}  // namespace memwall::infer
