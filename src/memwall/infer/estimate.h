// The inference estimate of a deployment serving a static batch: every request arrives together,
// is prefilled in one pass (pipeline micro-batches when pp > 1), then decodes one token per
// iteration until `output_tokens` are generated. Latencies, throughput, utilisation, the bound
// and the per-operator breakdown.
//
// Definitions (PRODUCT.md): TTFT = arrival to first output token; TPOT = mean time between output
// tokens after the first; end-to-end = TTFT + (output - 1) x TPOT; throughput = generated tokens
// per second of the whole deployment (dp replicas); MFU = model FLOP/s per device / dense peak of
// the matmul precision, model FLOPs = 2 x active parameters per token + attention (Narayanan et
// al. 2021 eq. 3, forward only); MBU = bytes moved per second per device / datasheet bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/infer/continuous.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/step.h"

namespace memwall::infer {

struct Workload {
  int64_t batch = 1;          // sequences per replica
  int64_t input_tokens = 0;   // prompt length (ISL)
  int64_t output_tokens = 1;  // generated tokens per sequence, the first included (OSL)
};

struct PhaseEstimate {
  Seconds time;          // whole phase (prefill pass, or all decode steps)
  Flops model_flops;     // whole replica, whole phase
  double mfu = 0;        // model FLOP/s per device / dense peak
  double mbu = 0;        // bytes moved per second per device / datasheet bandwidth
  std::string bound;     // compute | memory | communication | overhead
  StepCost step;         // prefill pass, or the decode step at the mean context
};

struct Estimate {
  Workload workload;
  Seconds ttft, tpot, e2e;
  double throughput_tokens_per_s = 0;             // generated tokens/s, all replicas
  double throughput_tokens_per_s_per_device = 0;  // the same / devices
  double requests_per_s = 0;
  double mfu = 0;  // over the whole request (prefill + decode)
  double mbu = 0;  // of the decode phase (prefill's when output is 1 token)
  std::string bound;  // of the phase that takes longer
  PhaseEstimate prefill, decode;
  MemoryPlan memory;
  int64_t max_batch = 0;  // largest batch that fits at input + output tokens of context
  std::string overlap;    // what runs concurrently with what (stated, not hidden)
  // "static" (one batch prefilled then decoded) or "continuous" (--batch max: the engine's
  // continuous-batching steady state; latencies and throughput then come from `continuous`, the
  // phases and memory from a static batch of the same concurrency).
  std::string batching = "static";
  std::optional<ContinuousEstimate> continuous;
  std::vector<std::string> assumptions;
};

// InfeasibleError, with the numbers, when a sequence of `input_tokens` + `output_tokens` needs
// more positions than the model's context (the last generated token is never fed back, so it
// sees input + output - 1). Every path that runs a sequence checks it: infer, offload, plan.
void check_context(const ModelSpec& model, int64_t input_tokens, int64_t output_tokens);

// InputError for a non-positive batch/lengths; InfeasibleError when the batch does not fit.
Estimate estimate(const Deployment& d, const Workload& w);
// Batch sweep: one estimate per batch size (batches that do not fit are skipped).
std::vector<Estimate> sweep(const Deployment& d, const std::vector<int64_t>& batches,
                            int64_t input_tokens, int64_t output_tokens);

// The StepBatch of a static batch's prefill pass and of its decode step at context `context`.
StepBatch prefill_batch(int64_t batch, int64_t input_tokens);
StepBatch decode_batch(int64_t batch, int64_t context_tokens);

Json to_json(const Estimate& e, const Deployment& d, bool with_operators);
Json deployment_json(const Deployment& d);

}  // namespace memwall::infer
