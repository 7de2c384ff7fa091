// Parameter and FLOP counts for training, in the conventions of the Megatron papers: model FLOPs
// are forward + backward matmul FLOPs without recomputation (Narayanan et al. 2021 eq. 3, as
// generalised by Megatron-LM's num_floating_point_operations for GQA, gated MLPs and MoE: 6 x
// active matmul parameters per token plus the attention term 12 x L x s x q per token, full s x s
// attention counted, no causal halving); hardware FLOPs add the recomputed forward work.
#pragma once

#include <cstdint>

#include "memwall/train/config.h"
#include "memwall/train/setup.h"

namespace memwall::train {

struct ParameterCounts {
  double total = 0;       // every parameter (all experts, embeddings, LM head if untied)
  double active = 0;      // used per token (top-k experts only)
  double embedding = 0;   // token (+ position) embedding
  double per_dense_layer = 0;
  double per_moe_layer = 0;  // all experts
};

ParameterCounts count_parameters(const LayerShape& s);

// Forward FLOPs per token of one layer at sequence length `seq` (attention over the full s).
double layer_forward_flops_per_token(const LayerShape& s, bool moe_layer, int64_t seq);
// Forward FLOPs per token of the attention core alone (QK^T and AV): 4 x s x q.
double attention_core_forward_flops_per_token(const LayerShape& s, int64_t seq);

// Model FLOPs per token: 3 x (all layers' forward + LM head 2hV). GPT: 72 h^2 L (1 + s/6h +
// V/12Lh) per token (Narayanan et al. 2021 eq. 3 divided by B s).
double model_flops_per_token(const LayerShape& s, int64_t seq);
// Extra forward FLOPs per token recomputed during backward: full = every layer's forward (the LM
// head is not recomputed; Narayanan eq. 3's 96 B s L h^2 (1 + s/6h + V/16Lh)); selective = the
// attention core (Korthikanti et al. 2022 §5).
double recompute_flops_per_token(const LayerShape& s, int64_t seq, Recompute r);

}  // namespace memwall::train
