// The cost of one engine iteration (a forward pass over a mixed batch of prefill chunks and decode
// tokens) on a deployment: the contract between the inference estimator and the serving simulator.
#pragma once

#include <cstdint>

#include "memwall/core/units.h"

namespace memwall::infer {

struct Deployment;  // defined in infer/deployment.h: model, hardware, parallelism, precisions

// One iteration's work, aggregated so the simulator can describe it in O(1).
struct StepBatch {
  int64_t prefill_tokens = 0;            // prompt tokens processed this iteration (all chunks)
  int prefill_sequences = 0;             // sequences those tokens belong to
  double prefill_attended_pairs = 0;     // sum over prefill tokens of the context each attends to
  int decode_sequences = 0;              // sequences generating one token each
  int64_t decode_context_tokens = 0;     // sum of their KV-cache lengths
};

// Wall time of one iteration on one replica of the deployment.
Seconds step_time(const Deployment& d, const StepBatch& batch);

}  // namespace memwall::infer
