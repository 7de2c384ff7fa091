// The cost of one engine iteration (a forward pass over a mixed batch of prefill chunks and decode
// tokens) on a deployment: the contract between the inference estimator and the serving simulator.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/perf/operator.h"

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

// step_time with the kernels' times memoised by their cost, for callers that time millions of
// iterations (the serving simulator): an iteration's GEMMs and element-wise kernels depend only on
// its token counts, which repeat, while attention follows the contexts and is timed each time.
// The same value as step_time, operator by operator and summed in the same order (time_op is a
// function of the kernel's cost and the deployment's ceilings). It keeps kMaxEntries kernels
// (about 3 MB; a kernel displaced is timed again). `d` must outlive it; not for concurrent use.
class StepTimer {
 public:
  explicit StepTimer(const Deployment& d);
  ~StepTimer();
  StepTimer(StepTimer&&) noexcept;
  Seconds operator()(const StepBatch& batch);
  static constexpr size_t kMaxEntries = 1 << 15;

 private:
  struct Memo;
  const Deployment* d_;
  std::unique_ptr<Memo> memo_;
};

// Wall time of one iteration on one replica of the deployment: the batch passes through every
// pipeline stage in turn (a pipelined engine keeps pp such batches in flight), plus the engine's
// per-iteration overhead. Zero for an empty batch. O(layers kinds), no allocation beyond a small
// operator list.
Seconds step_time(const Deployment& d, const StepBatch& batch);

// One operator of the step with its time per execution.
struct TimedOp {
  perf::Operator op;
  perf::OpTime time;
};

// The same step with its per-operator breakdown (for --explain and the bound).
struct StepCost {
  std::vector<TimedOp> ops;
  Seconds total;           // = step_time
  Seconds compute_bound;   // time in operators whose compute time exceeds their memory time
  Seconds memory_bound;    // time in memory-bound operators (kernel overheads excluded)
  Seconds communication;   // collectives (after the stated overlap)
  Seconds overhead;        // kernel launch overheads + per-iteration engine overhead
  Bytes bytes_moved;       // HBM traffic per device: the sum over layers / pp (one stage's share)
  Flops flops;             // per device, the same way
};
StepCost step_cost(const Deployment& d, const StepBatch& batch);

}  // namespace memwall::infer
