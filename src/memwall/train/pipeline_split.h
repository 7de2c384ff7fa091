// How a model's transformer layers are placed on the pipeline: which stage (and which virtual
// chunk of it) holds how many layers, dense and MoE, as Megatron-LM places them. Even splits when
// the layers divide; otherwise the first and last stages (which also carry the embedding and the
// LM head) hold fewer, or the sizes given with --decoder-first/last-pipeline-num-layers, or the
// embedding and loss counted as layers (--account-for-embedding/loss-in-pipeline-split).
#pragma once

#include <string>
#include <vector>

#include "memwall/train/config.h"

namespace memwall::train {

struct StageLayers {
  int layers = 0;  // transformer layers on this stage (all its virtual chunks)
  int dense = 0;   // of which dense-MLP layers
  int moe = 0;     // of which MoE layers
};

struct PipelineSplit {
  std::vector<int> chunk_layers;  // per virtual chunk in model order; chunk k sits on stage k % pp
  std::vector<StageLayers> stages;  // per pipeline stage
  bool even = true;                 // every chunk holds the same number of layers
  std::string rule;                 // how the split was chosen, in words
};

// `layers` transformer layers of which the last `moe_layers` are MoE (DeepSeek-style models keep
// their first layers dense). InfeasibleError with numbers when no split exists (more chunks than
// layers, given sizes that do not add up or do not divide among the remaining stages and chunks).
PipelineSplit split_layers(int layers, int moe_layers, const TrainConfig& c);

}  // namespace memwall::train
