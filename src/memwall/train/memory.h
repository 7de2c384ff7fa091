// Memory per GPU during training, for the most loaded pipeline stage: weights, gradients and
// optimizer state by precision recipe and ZeRO stage (Rajbhandari et al. 2020, "ZeRO", §5 and
// Fig. 1: 2Psi + 2Psi + K Psi / Nd with K = 12 for mixed-precision Adam), activations per layer
// derived op by op in the manner of Korthikanti et al. 2022 §4 (Table 2), the micro-batches in
// flight of the pipeline schedule, communication buffers and the runtime reserve.
#pragma once

#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/train/config.h"
#include "memwall/train/pipeline_split.h"
#include "memwall/train/setup.h"

namespace memwall::train {

// Bytes per parameter of each model state for a precision recipe (before ZeRO sharding).
struct StateBytes {
  double weights = 2;    // 16-bit working weights (fp8: + the cached fp8 copy)
  double gradients = 2;  // 16-bit gradients (4 with fp32 accumulation)
  double optimizer = 12; // fp32 master weights + Adam m and v
};
StateBytes state_bytes(const TrainConfig& c);

// Stored activation bytes of one layer for one micro-batch, without recomputation, as the sum of
// the tensors each op keeps for backward (16-bit activations, 1-byte dropout masks).
// With flash_attention=false, dropout=true, a GPT layer (f = 4h, MHA) gives Korthikanti Table 2:
// sbh (10 + 24/t + 5as/(ht)), or with sequence parallelism sbh (34/t + 5as/(ht)).
double layer_activation_bytes(const LayerShape& s, const TrainConfig& c, bool moe_layer);
// What a layer keeps under the configured recomputation: none = all of the above; selective =
// without the attention-core tensors (softmax, its dropout mask and output); full = the layer
// input only (2sbh, /t with sequence parallelism).
double layer_stored_activation_bytes(const LayerShape& s, const TrainConfig& c, bool moe_layer);

struct MemoryBreakdown {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer_state;
  Bytes activations;
  Bytes comm_buffers;
  Bytes runtime_reserve;
  Bytes capacity;            // the accelerator's memory
  int stage = 0;             // the most loaded pipeline stage (0 = first)
  std::vector<Bytes> per_stage;  // total of every pipeline stage's GPU, first to last
  double local_parameters = 0;  // parameters on that GPU before ZeRO sharding
  Bytes total() const {
    return weights + gradients + optimizer_state + activations + comm_buffers + runtime_reserve;
  }
  bool fits() const { return total() <= capacity; }
};

// Memory of the most loaded GPU: every pipeline stage's layers (split as split_layers places
// them), its in-flight micro-batches and the embedding (first) or head (last); the worst stage.
MemoryBreakdown memory_per_gpu(const TrainSetup& setup, const TrainConfig& c);
MemoryBreakdown memory_per_gpu(const TrainSetup& setup, const TrainConfig& c,
                               const PipelineSplit& split);

}  // namespace memwall::train
