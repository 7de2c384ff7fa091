// A training framework as an input, as the engine is for inference: which kernels it runs (fused
// or eager element-wise ops, which FlashAttention generation), what it overlaps, how it shards by
// default (distributed optimizer, FSDP) and whether it turns on sequence parallelism with TP. The
// entries live in data/frameworks/training.json with their sources; `answer()` applies the chosen
// one (Megatron-LM unless told) to every setting the user did not give.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memwall/train/parameters.h"

namespace memwall::perf {
struct Efficiency;
}

namespace memwall::train {

struct Framework {
  std::string id, name;
  bool fused_elementwise = true;
  bool fused_optimizer = true;  // Adam in one fused kernel, or op by op (eager PyTorch)
  // bf16: gradients accumulated into fp32 buffers by a pass after each micro-batch (DeepSpeed)
  bool bf16_grad_accumulation_pass = false;
  int flash_attention_version = 3;
  bool distributed_optimizer = true;  // ZeRO-1 when DP x CP > 1
  bool fsdp = false;                  // ZeRO-3 (full shard) when DP x CP > 1
  bool sequence_parallel_with_tp = true;
  bool overlap_grad_reduce = true, overlap_param_gather = true, overlap_tp_comm = false;
  int zero3_collectives_per_layer = 1;
  std::string efficiency;  // where its efficiency comes from, in words
  std::vector<std::string> sources;
};

// Every built-in training framework (data/frameworks/training.json).
const std::vector<Framework>& training_frameworks();
// The framework `id`; InputError naming `field` with the known ids otherwise.
const Framework& training_framework(std::string_view id, const std::string& field = "--framework");

// The estimator's parameters for a job on `framework`: `base` with what a calibration file
// (`efficiency`, may be null) fitted for that framework (perf::FrameworkCalibration: the compute
// share, the overlap efficiency, the host time per step) in place of the built-in values.
TrainParameters framework_parameters(TrainParameters base, const perf::Efficiency* efficiency,
                                     std::string_view framework);

}  // namespace memwall::train
