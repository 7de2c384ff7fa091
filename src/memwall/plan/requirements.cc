#include "memwall/plan/requirements.h"

#include "memwall/model/counts.h"

namespace memwall::plan {

Requirements derive_requirements(const ModelSpec& m, const InferenceWorkload& w, Precision weights,
                                 Precision kv) {
  w.validate();
  Requirements r;
  const ParameterCounts counts = count_parameters(m);
  r.total_params = counts.total;
  r.active_params = counts.active;
  const double tpot = w.sla.tpot_p99.value();
  const double e2e_at_target = w.sla.ttft_p99.value() + (w.output.mean - 1.0) * tpot;
  if (w.load.concurrency) {
    r.concurrency = *w.load.concurrency;
    r.request_rate_per_s = r.concurrency / e2e_at_target;
  } else {
    r.request_rate_per_s = *w.load.rate_per_s;
    r.concurrency = r.request_rate_per_s * e2e_at_target;  // Little's law: L = lambda x W
  }
  r.generated_tokens_per_s = r.concurrency / tpot;
  r.mean_context_tokens = w.mean_context();
  r.kv_bytes_per_token = kv_cache_bytes_per_token(m, kv);
  r.weights = Bytes(counts.total * bytes_per_element(weights));
  r.kv_cache = r.kv_bytes_per_token * (r.concurrency * r.mean_context_tokens);
  r.capacity = r.weights + r.kv_cache;
  r.bytes_per_decode_step = r.weights + r.kv_cache;
  r.bandwidth = r.bytes_per_decode_step / Seconds(tpot);
  r.decode_compute =
      FlopsPerSecond(r.generated_tokens_per_s * forward_flops_per_token(m, r.mean_context_tokens));
  // A causal prefill of S tokens attends to (S+1)/2 keys per token on average (counts.h).
  const double prompt_tokens_per_s = r.request_rate_per_s * w.input.mean;
  r.prefill_compute = FlopsPerSecond(prompt_tokens_per_s *
                                     forward_flops_per_token(m, (w.input.mean + 1.0) / 2.0));
  r.prefill_flops_p99_prompt =
      Flops(w.input.p99 * forward_flops_per_token(m, (w.input.p99 + 1.0) / 2.0));
  r.ttft_compute = r.prefill_flops_p99_prompt / w.sla.ttft_p99;
  return r;
}

}  // namespace memwall::plan
