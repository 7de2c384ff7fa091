// What a workload needs from hardware, derived from the model and the load alone, before any
// accelerator is named (the source articles' "derive capacity and bandwidth from parameters,
// concurrency and latency, then choose hardware"): memory capacity for weights plus the KV cache
// of every sequence in flight, the memory bandwidth to stream one decode step's bytes within the
// TPOT target, and the compute for prefill and decode.
#pragma once

#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/model/transformer.h"
#include "memwall/plan/workload.h"

namespace memwall::plan {

struct Requirements {
  double total_params = 0, active_params = 0;
  double concurrency = 0;           // sequences in flight (Little's law for a rate load)
  double request_rate_per_s = 0;    // arrivals (concurrency / e2e for a closed loop)
  double generated_tokens_per_s = 0;  // concurrency / TPOT target
  double mean_context_tokens = 0;   // KV length averaged over a request's life: input + output/2
  Bytes kv_bytes_per_token;
  Bytes weights;                    // all parameters at the weight precision
  Bytes kv_cache;                   // concurrency x mean context x kv bytes per token (paged)
  Bytes capacity;                   // weights + kv_cache (activations and engine reserve excluded)
  Bytes bytes_per_decode_step;      // weights read once + the KV cache of every sequence
  BytesPerSecond bandwidth;         // bytes_per_decode_step / TPOT target
  FlopsPerSecond decode_compute;    // generated tokens/s x forward FLOPs per token at mean context
  FlopsPerSecond prefill_compute;   // prompt tokens/s x forward FLOPs per token
  Flops prefill_flops_p99_prompt;   // one p99 prompt
  FlopsPerSecond ttft_compute;      // that prompt within the TTFT target
};

// Counts from model/counts.h. Closed-form assumptions (stated in docs/plan.md):
//  - every parameter is read once per decode step (for MoE at batch >= experts/top_k nearly all
//    experts are touched, Fedus et al. 2022 routing; an upper bound at small batch);
//  - KV reads per step = sum over sequences of their context x kv bytes per token;
//  - a rate load holds rate x (TTFT target + (output mean - 1) x TPOT target) sequences in flight
//    (Little's law, with latencies at their targets).
Requirements derive_requirements(const ModelSpec& m, const InferenceWorkload& w, Precision weights,
                                 Precision kv);

}  // namespace memwall::plan
