// One candidate replica shape (accelerator, node, tensor/pipeline/expert parallel sizes, weight
// and KV precisions) and what the inference estimator says about it: whether it fits, how many
// sequences of a given context fit, and the time of one engine iteration. The planner searches
// over shapes and asks these questions; it never computes step times itself.
#pragma once

#include <functional>
#include <string>

#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/node.h"
#include "memwall/infer/step.h"
#include "memwall/model/transformer.h"

namespace memwall::plan {

struct ReplicaShape {
  const Accelerator* accelerator = nullptr;
  const Node* node = nullptr;  // nullptr: a single device with no scale-up link (tp = pp = 1)
  int tp = 1, pp = 1, ep = 1;
  Precision weights = Precision::bf16;
  Precision kv = Precision::bf16;
  // The serving engine that runs it (data/engines profile id, from the support matrix); empty:
  // the generic default profile.
  std::string engine;
  int devices() const { return tp * pp; }
  std::string describe() const;  // "4x nvidia-h100-sxm (hgx-h100) TP4 PP1, w bf16 / kv fp8"
};

// Where an iteration's time goes, from the estimator's per-operator breakdown.
struct StepShares {
  Seconds memory;         // memory-bound operators
  Seconds compute;        // compute-bound operators
  Seconds communication;  // exposed collectives
  Seconds overhead;       // kernel launches and per-iteration engine overhead
  Bytes bytes_moved;      // HBM traffic per device
};

struct ReplicaModel {
  std::string infeasible;  // non-empty: cannot run at all, with the reason in numbers
  int64_t kv_capacity_tokens = 0;  // KV slots of one replica (memory plan); 0 when not reported
  // Largest number of sequences whose KV (each of `context_tokens`) fits beside the weights.
  std::function<int(double context_tokens)> max_batch;
  // The serving engine's cap on sequences resident per replica (vLLM max_num_seqs, SGLang
  // max_running_requests, TensorRT-LLM max_batch_size); 0: none.
  int max_num_seqs = 0;
  // Wall time of one iteration of the replica (prefill chunks and/or decode tokens).
  std::function<Seconds(const infer::StepBatch&)> step;
  // Optional: share of a decode iteration spent in exposed communication (0..1), for the
  // interconnect score; empty when the estimator does not report it.
  std::function<double(const infer::StepBatch&)> communication_share;
  // Optional: the breakdown of an iteration, for the binding-wall sentence.
  std::function<StepShares(const infer::StepBatch&)> breakdown;
  // Optional: activity 0..1 of the devices in an iteration (max of MFU and MBU) for the power
  // model; empty: a busy device is taken as fully active (power at TDP).
  std::function<double(const infer::StepBatch&)> activity;
};

using ReplicaModelFactory = std::function<ReplicaModel(const ModelSpec&, const ReplicaShape&)>;

}  // namespace memwall::plan
