// Maximum throughput as a continuous-batching engine produces it: an endless queue of requests of
// `input` prompt and `output` generated tokens, scheduled iteration by iteration under the engine's
// limits (max sequences, max batched tokens, chunked prefill mixing prompt chunks into decode
// iterations) and the KV cache's capacity. Closed-form steady state of the same scheduler the
// serving simulator runs (serve/scheduler.h, policies chunked and continuous), so `infer --batch
// max` and `simulate` at an infinite rate answer the same question.
#pragma once

#include <cstdint>
#include <string>

#include "memwall/core/document.h"
#include "memwall/core/units.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/step.h"

namespace memwall::infer {

struct ContinuousLimits {
  int max_num_seqs = 256;                 // sequences resident at once
  int64_t max_num_batched_tokens = 8192;  // tokens per iteration
  bool chunked_prefill = true;            // prompts split to fill the budget beside the decodes
  int64_t kv_capacity_tokens = 0;         // per replica
  int block_tokens = 16;                  // paged KV block: half a block per sequence is wasted
  bool reserve_output = false;  // KV for prompt + output held from admission (GUARANTEED_NO_EVICT)
};

// The engine's limits on this deployment (Deployment::max_num_seqs ...) and its KV capacity.
ContinuousLimits engine_limits(const Deployment& d);

struct ContinuousEstimate {
  ContinuousLimits limits;
  std::string binding;          // max_num_seqs | max_num_batched_tokens | kv_cache
  double concurrency = 0;       // mean sequences resident per replica
  double decode_sequences = 0;  // of those, decoding in an iteration
  double prefill_tokens = 0;    // prompt tokens per iteration (chunked: in the decode iterations)
  double requests_per_iteration = 0;
  Seconds iteration;                   // mean iteration time
  Seconds tpot;                        // time between a sequence's tokens after the first
  Seconds ttft;                        // its prefill at saturation, queueing excluded
  double throughput_tokens_per_s = 0;  // generated tokens/s, all replicas
  double requests_per_s = 0;           // all replicas
};

// InputError for non-positive lengths; InfeasibleError when not one sequence fits.
ContinuousEstimate continuous_max_throughput(const Deployment& d, int64_t input_tokens,
                                             int64_t output_tokens, const ContinuousLimits& limits);
ContinuousEstimate continuous_max_throughput(const Deployment& d, int64_t input_tokens,
                                             int64_t output_tokens);

Json to_json(const ContinuousEstimate& c);

// A benchmark that sends its N requests to the engine's HTTP server at once: the server's front
// end (EngineProfile::frontend_per_request c: HTTP, chat template, tokenisation) takes them in
// before the engine sees them, so the run lasts N c + N / r at the engine's rate r, and the
// served rate is r / (1 + c r) (measured on GPUStack's burst runs, data/engines/vllm.json). This
// factor, 1 where the profile has no front-end cost.
double burst_frontend_scale(const Deployment& d, double engine_requests_per_s);

}  // namespace memwall::infer
