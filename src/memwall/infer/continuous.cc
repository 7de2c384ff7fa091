#include "memwall/infer/continuous.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "memwall/core/error.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/perf/graph.h"

namespace memwall::infer {

ContinuousLimits engine_limits(const Deployment& d) {
  ContinuousLimits l;
  l.max_num_seqs = d.max_num_seqs();
  l.max_num_batched_tokens = d.max_num_batched_tokens();
  l.chunked_prefill = d.engine_profile ? d.engine_profile->limits.chunked_prefill : true;
  l.kv_capacity_tokens = plan_engine_memory(d).kv_capacity_tokens;
  l.reserve_output = d.engine_profile && d.engine_profile->limits.reserve_output_kv;
  return l;
}

ContinuousEstimate continuous_max_throughput(const Deployment& d, int64_t input_tokens,
                                             int64_t output_tokens, const ContinuousLimits& l) {
  if (input_tokens < 1) throw InputError("input", std::to_string(input_tokens), "a positive count");
  if (output_tokens < 1)
    throw InputError("output", std::to_string(output_tokens), "a positive count");
  if (l.max_num_seqs < 1 || l.max_num_batched_tokens < 1)
    throw InputError("engine limits: max_num_seqs and max_num_batched_tokens must be positive");
  ContinuousEstimate c;
  c.limits = l;
  const double in = double(input_tokens), out = double(output_tokens);
  const double steps = out - 1;  // decode iterations of one sequence after its first token
  const double budget = double(l.max_num_batched_tokens);
  // KV a resident sequence holds on average: its prompt plus half its output (decoding sequences
  // are spread evenly over their output), plus half a block of paging waste; an engine that
  // reserves the final length at admission (TensorRT-LLM GUARANTEED_NO_EVICT) holds all of it.
  const double kv_per_seq = (l.reserve_output ? in + out : in + out / 2) + l.block_tokens / 2.0;
  const double seqs_kv = double(l.kv_capacity_tokens) / kv_per_seq;
  if (seqs_kv < 1)
    throw InfeasibleError(
        fmt::format("not one sequence of {} tokens fits the {} KV tokens of a replica",
                    input_tokens + output_tokens, l.kv_capacity_tokens));
  const double seqs = std::min(double(l.max_num_seqs), seqs_kv);
  c.binding = double(l.max_num_seqs) <= seqs_kv ? "max_num_seqs" : "kv_cache";
  const double ctx = in + out / 2;  // mean context of a decoding sequence

  if (l.chunked_prefill) {
    // Sarathi-Serve / vLLM V1: every iteration decodes all running sequences and fills the rest of
    // the token budget with prompt chunks. Steady state at r admissions per iteration (Little's
    // law): D = r (output - 1) decoding; a prompt spends k_p = max(1, input / (budget - D))
    // iterations prefilling, so resident = r (output - 1 + k_p) <= max sequences; prompt tokens
    // r x input per iteration fit beside the decodes: r (output - 1 + input) <= budget.
    double r = 0, kp = 1, room = budget;
    for (int i = 0; i < 4; ++i) {  // fixed point in k_p (converges in 2-3 rounds)
      const double by_seqs = seqs / (steps + kp);
      const double by_budget = budget / (steps + in);
      r = std::max(std::min(by_seqs, by_budget), 1e-9);
      room = std::max(1.0, budget - r * steps);
      kp = std::max(1.0, in / room);
    }
    if (budget / (steps + in) < seqs / (steps + kp)) c.binding = "max_num_batched_tokens";
    // Fixed lengths keep admissions in cohorts: an iteration either carries a full budget of
    // prompt chunks (a share phi of the iterations) or none, which matters because a step's time
    // is convex in its tokens (flat while weight-bound, then linear). A cohort is at most every
    // resident sequence's prompt: one client has one prompt to prefill, however large the budget.
    const double prefill_per_iter = r * in;
    const double cohort = std::min(room, std::max(1.0, std::floor(seqs)) * in);
    const double phi = std::min(1.0, prefill_per_iter / cohort);
    const double chunk = phi < 1.0 ? cohort : prefill_per_iter;
    c.requests_per_iteration = r;
    c.decode_sequences = r * steps;
    c.prefill_tokens = prefill_per_iter;
    c.concurrency = std::min(seqs, r * (steps + kp));
    StepBatch decode_only;
    decode_only.decode_sequences = static_cast<int>(std::llround(c.decode_sequences));
    decode_only.decode_context_tokens = std::llround(c.decode_sequences * ctx);
    // Beside a cohort's prompts decode only the sequences not in it (one client: none).
    const double beside = phi < 1.0 ? std::min(c.decode_sequences, std::max(0.0, seqs - chunk / in))
                                    : c.decode_sequences;
    StepBatch mixed;
    mixed.prefill_tokens = std::max<int64_t>(1, std::llround(chunk));
    mixed.prefill_sequences = static_cast<int>(std::max(1.0, std::ceil(chunk / in)));
    mixed.prefill_attended_pairs = chunk / in * perf::causal_pairs(in, 0);
    mixed.decode_sequences = static_cast<int>(std::llround(beside));
    mixed.decode_context_tokens = std::llround(beside * ctx);
    const Seconds t_mixed = step_time(d, mixed);
    const Seconds t_decode = decode_only.decode_sequences > 0 ? step_time(d, decode_only) : t_mixed;
    c.iteration = t_mixed * phi + t_decode * (1 - phi);
    c.tpot = c.iteration;
    c.ttft = t_mixed * std::ceil(kp);
    c.throughput_tokens_per_s = r * out / c.iteration.value() * d.dp;
    c.requests_per_s = r / c.iteration.value() * d.dp;
    return c;
  }
  // Whole prompts (vLLM V0 default, TensorRT-LLM without context chunking): an iteration either
  // prefills newly admitted prompts, as many whole ones as the budget holds (at least one), or
  // decodes every running sequence. With D decoding, x decode and y prefill iterations per second:
  // r = D x / (output - 1) requests/s, y = r / n, and x t_d + y t_p = 1.
  const double D = seqs;
  // Prompts per prefill iteration: what the budget holds (at least one). Fixed lengths keep the
  // sequences in cohorts that start, and so finish, together, so the slots free up in groups.
  const double n = std::min(std::max(1.0, std::floor(budget / in)), std::max(1.0, D));
  StepBatch pb;
  pb.prefill_tokens = std::llround(n * in);
  pb.prefill_sequences = static_cast<int>(n);
  pb.prefill_attended_pairs = n * perf::causal_pairs(in, 0);
  const Seconds tp = step_time(d, pb);
  c.concurrency = D;
  c.prefill_tokens = n * in;
  if (steps <= 0) {  // prefill only: one token per request
    c.iteration = tp;
    c.requests_per_iteration = n;
    c.ttft = tp;
    c.throughput_tokens_per_s = n / tp.value() * d.dp;
    c.requests_per_s = c.throughput_tokens_per_s;
    return c;
  }
  StepBatch db;
  db.decode_sequences = static_cast<int>(std::llround(D));
  db.decode_context_tokens = std::llround(D * ctx);
  const Seconds td = step_time(d, db);
  const double x = 1.0 / (td.value() + D * tp.value() / (steps * n));
  const double rate = D * x / steps;  // requests/s per replica
  c.decode_sequences = D;
  c.requests_per_iteration = rate / (x + rate / n);
  c.iteration = Seconds(1.0 / (x + rate / n));
  // A sequence waits through the prefill iterations that fall between its decode steps.
  c.tpot = Seconds(1.0 / x);
  c.ttft = tp;
  c.throughput_tokens_per_s = rate * out * d.dp;
  c.requests_per_s = rate * d.dp;
  return c;
}

ContinuousEstimate continuous_max_throughput(const Deployment& d, int64_t input_tokens,
                                             int64_t output_tokens) {
  return continuous_max_throughput(d, input_tokens, output_tokens, engine_limits(d));
}

Json to_json(const ContinuousEstimate& c) {
  return Json{{"binding_limit", c.binding},
              {"max_num_seqs", c.limits.max_num_seqs},
              {"max_num_batched_tokens", c.limits.max_num_batched_tokens},
              {"chunked_prefill", c.limits.chunked_prefill},
              {"kv_capacity_tokens_per_replica", c.limits.kv_capacity_tokens},
              {"concurrency", c.concurrency},
              {"decode_sequences", c.decode_sequences},
              {"prefill_tokens_per_iteration", c.prefill_tokens},
              {"requests_per_iteration", c.requests_per_iteration},
              {"iteration_s", c.iteration.value()},
              {"tpot_s", c.tpot.value()},
              {"ttft_s", c.ttft.value()},
              {"throughput_tokens_per_s", c.throughput_tokens_per_s},
              {"requests_per_s", c.requests_per_s}};
}

double burst_frontend_scale(const Deployment& d, double engine_requests_per_s) {
  const double c = d.engine_profile ? d.engine_profile->frontend_per_request.value() : 0.0;
  if (!(c > 0) || !(engine_requests_per_s > 0)) return 1.0;
  return 1.0 / (1.0 + c * engine_requests_per_s);
}

}  // namespace memwall::infer
