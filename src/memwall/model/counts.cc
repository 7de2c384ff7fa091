#include "memwall/model/counts.h"

namespace memwall {
namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

// Weights of one layer's attention projections, without biases.
double attention_weights(const ModelSpec& m) {
  const double h = d(m.hidden), heads = d(m.heads);
  if (m.attention == AttentionKind::mla) {
    // DeepSeek-V2 §2.1 eqs. 9-17: W_DQ, W_UQ/W_QR (or W_Q when q_lora_rank is 0), W_DKV + W_KR
    // (one kv_a projection of kv_lora_rank + rope dims), W_UK/W_UV (kv_b), W_O.
    const MlaSpec& a = m.mla;
    const double qk = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
    const double q =
        a.q_lora_rank > 0 ? h * a.q_lora_rank + d(a.q_lora_rank) * heads * qk : h * heads * qk;
    const double kv_a = h * d(a.kv_lora_rank + a.qk_rope_head_dim);
    const double kv_b = d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim);
    const double o = heads * d(a.v_head_dim) * h;
    return q + kv_a + kv_b + o;
  }
  const double q_width = heads * m.head_dim, kv_width = d(m.kv_heads) * m.head_dim;
  return h * q_width + 2 * h * kv_width + q_width * h;
}

double attention_biases(const ModelSpec& m) {
  if (m.attention == AttentionKind::mla) return 0;
  double b = 0;
  if (m.qkv_bias) b += d(m.heads + 2 * m.kv_heads) * m.head_dim;
  if (m.out_bias) b += d(m.hidden);
  return b;
}

// A gated MLP has gate, up and down matrices (Shazeer 2020, GLU variants); a plain one up and down.
double mlp_weights(const ModelSpec& m, int64_t ffn) {
  return (m.mlp == MlpKind::gated ? 3.0 : 2.0) * d(m.hidden) * d(ffn);
}
double mlp_biases(const ModelSpec& m, int64_t ffn) {
  if (!m.mlp_bias) return 0;
  return (m.mlp == MlpKind::gated ? 2.0 : 1.0) * d(ffn) + d(m.hidden);
}

double norm_size(const ModelSpec& m, double width) {
  return m.norm == NormKind::layernorm ? 2 * width : width;  // LayerNorm has a bias
}

// Norms of one layer: before attention and before the MLP, q/k norms, MLA latent norms.
double layer_norms(const ModelSpec& m) {
  double n = 2 * norm_size(m, d(m.hidden));
  if (m.qk_norm) n += 2 * norm_size(m, m.head_dim);
  if (m.attention == AttentionKind::mla)
    n += norm_size(m, m.mla.q_lora_rank) + norm_size(m, m.mla.kv_lora_rank);
  return n;
}

int moe_layer_count(const ModelSpec& m) {
  int n = 0;
  for (int l = 0; l < m.layers; ++l) n += m.is_moe_layer(l) ? 1 : 0;
  return n;
}

}  // namespace

ParameterCounts count_parameters(const ModelSpec& m) {
  ParameterCounts c;
  const double h = d(m.hidden);
  const double moe_layers = moe_layer_count(m);
  const double dense_layers = m.layers - moe_layers;

  c.embedding = d(m.vocab) * h;
  if (m.position == PositionKind::learned) c.embedding += d(m.max_context) * h;
  c.lm_head = m.tied_embeddings ? 0 : d(m.vocab) * h;
  c.attention = m.layers * (attention_weights(m) + attention_biases(m));
  c.dense_mlp = dense_layers * (mlp_weights(m, m.ffn) + mlp_biases(m, m.ffn));
  c.norms = m.layers * layer_norms(m) + norm_size(m, h);  // + the final norm

  double active_routed = 0;
  if (m.is_moe()) {
    const MoeSpec& e = m.moe;
    const double one_expert = mlp_weights(m, e.expert_ffn) + mlp_biases(m, e.expert_ffn);
    c.routed_experts = moe_layers * e.experts * one_expert;
    active_routed = moe_layers * e.top_k * one_expert;
    c.shared_experts = moe_layers * e.shared_experts *
                       (mlp_weights(m, e.shared_expert_ffn) + mlp_biases(m, e.shared_expert_ffn));
    c.router = moe_layers * e.experts * (h + (e.router_bias ? 1.0 : 0.0));
  }

  const double always =
      c.embedding + c.lm_head + c.attention + c.dense_mlp + c.shared_experts + c.router + c.norms;
  c.total = always + c.routed_experts;
  c.active = always + active_routed;
  return c;
}

double attention_flops_per_token(const ModelSpec& m, double context_tokens, MlaAttentionForm form) {
  double qk_dim = m.head_dim, v_dim = m.head_dim;
  if (m.attention == AttentionKind::mla) {
    if (form == MlaAttentionForm::absorbed) {
      qk_dim = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
      v_dim = m.mla.kv_lora_rank;
    } else {
      qk_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
      v_dim = m.mla.v_head_dim;
    }
  }
  return m.layers * 2.0 * context_tokens * m.heads * (qk_dim + v_dim);
}

double matmul_parameters_per_token(const ModelSpec& m) {
  const double moe_layers = moe_layer_count(m);
  const double dense_layers = m.layers - moe_layers;
  double p = m.layers * attention_weights(m) + dense_layers * mlp_weights(m, m.ffn);
  if (m.is_moe()) {
    const MoeSpec& e = m.moe;
    p += moe_layers *
         (e.top_k * mlp_weights(m, e.expert_ffn) +
          e.shared_experts * mlp_weights(m, e.shared_expert_ffn) + e.experts * d(m.hidden));
  }
  return p + d(m.vocab) * d(m.hidden);  // the LM head multiplies even when its weights are tied
}

double forward_flops_per_token(const ModelSpec& m, double context_tokens, MlaAttentionForm form) {
  return 2 * matmul_parameters_per_token(m) + attention_flops_per_token(m, context_tokens, form);
}

double kv_cache_elements_per_token(const ModelSpec& m) {
  if (m.attention == AttentionKind::mla)
    return m.layers * static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
  return m.layers * 2.0 * m.kv_heads * m.head_dim;
}

Bytes kv_cache_bytes_per_token(const ModelSpec& m, Precision kv) {
  return Bytes(kv_cache_elements_per_token(m) * bytes_per_element(kv));
}

}  // namespace memwall
