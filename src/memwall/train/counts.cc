#include "memwall/train/counts.h"

namespace memwall::train {

ParameterCounts count_parameters(const LayerShape& s) {
  ParameterCounts c;
  c.per_dense_layer = s.attention_params + s.dense_mlp_params + s.norm_params;
  c.per_moe_layer = s.attention_params + s.experts * s.expert_params + s.shared_mlp_params +
                    s.router_params + s.norm_params;
  const double active_moe_layer = s.attention_params + s.top_k * s.expert_params +
                                  s.shared_mlp_params + s.router_params + s.norm_params;
  const int dense_layers = s.layers - s.moe_layers;
  c.embedding = s.embedding_params;
  const double head = s.tied ? 0.0 : s.lm_head_params;
  const double final_norm = s.norm_params / 2;
  c.total = dense_layers * c.per_dense_layer + s.moe_layers * c.per_moe_layer + c.embedding + head +
            final_norm;
  c.active = dense_layers * c.per_dense_layer + s.moe_layers * active_moe_layer + c.embedding +
             head + final_norm;
  return c;
}

double attention_core_forward_flops_per_token(const LayerShape& s, int64_t seq) {
  // QK^T: 2 s q per token; AV: 2 s q per token (Narayanan et al. 2021 §5.1 "4 B s^2 h" per layer).
  return 4.0 * double(seq) * s.q_width;
}

double layer_forward_flops_per_token(const LayerShape& s, bool moe_layer, int64_t seq) {
  double mlp = 0;
  if (moe_layer) {
    mlp = 2.0 * (s.top_k * s.mlp_matrices * s.hidden * s.expert_ffn +
                 s.mlp_matrices * s.hidden * s.shared_ffn + s.hidden * s.experts);
  } else {
    mlp = 2.0 * s.mlp_matrices * s.hidden * s.ffn;
  }
  return 2.0 * s.attention_matmul_params + attention_core_forward_flops_per_token(s, seq) + mlp;
}

double model_flops_per_token(const LayerShape& s, int64_t seq) {
  const int dense_layers = s.layers - s.moe_layers;
  const double forward = dense_layers * layer_forward_flops_per_token(s, false, seq) +
                         s.moe_layers * layer_forward_flops_per_token(s, true, seq) +
                         2.0 * s.hidden * s.vocab;
  return 3.0 * forward;
}

double recompute_flops_per_token(const LayerShape& s, int64_t seq, Recompute r) {
  switch (r) {
    case Recompute::none: return 0.0;
    case Recompute::selective: return s.layers * attention_core_forward_flops_per_token(s, seq);
    case Recompute::full: {
      const int dense_layers = s.layers - s.moe_layers;
      return dense_layers * layer_forward_flops_per_token(s, false, seq) +
             s.moe_layers * layer_forward_flops_per_token(s, true, seq);
    }
  }
  return 0.0;
}

}  // namespace memwall::train
