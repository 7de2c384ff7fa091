#include "memwall/train/setup.h"

#include <string>

#include "memwall/core/error.h"

namespace memwall::train {

LayerShape layer_shape(const ModelSpec& m) {
  LayerShape s;
  s.layers = m.layers;
  s.hidden = double(m.hidden);
  s.heads = m.heads;
  s.kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;
  s.head_dim = m.head_dim > 0 ? m.head_dim : double(m.hidden) / m.heads;
  s.ffn = double(m.ffn);
  s.mlp_matrices = m.mlp == MlpKind::gated ? 3.0 : 2.0;
  s.vocab = double(m.vocab);
  const double h = s.hidden;
  const bool layernorm = m.norm == NormKind::layernorm;

  // Attention projections. GQA/MHA/MQA: Q h x ad, K and V h x gd, O ad x h (Ainslie et al. 2023).
  if (m.attention == AttentionKind::mla) {
    // MLA (DeepSeek-V2 §2.1): low-rank Q (optional) and joint KV compression, per-head up-projections.
    const double a = m.heads;
    const double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    const double q_proj = m.mla.q_lora_rank > 0
                              ? h * m.mla.q_lora_rank + m.mla.q_lora_rank * a * qk + m.mla.q_lora_rank
                              : h * a * qk;
    const double kv_proj = h * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) +
                           m.mla.kv_lora_rank * a * (m.mla.qk_nope_head_dim + m.mla.v_head_dim) +
                           m.mla.kv_lora_rank;
    s.q_width = a * qk;
    s.kv_width = a * qk;  // K and V are materialised per head after the up-projection
    s.head_dim = qk;
    s.kv_heads = a;
    s.v_width = a * m.mla.v_head_dim;
    s.attention_params = q_proj + kv_proj + a * m.mla.v_head_dim * h;
    s.mla_q_rank = m.mla.q_lora_rank;
    s.mla_kv_rank = m.mla.kv_lora_rank;
    s.mla_latent = m.mla.q_lora_rank + m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
    s.mla_q_up = m.mla.q_lora_rank > 0 ? a * qk : 0.0;
    s.mla_kv_up = a * (m.mla.qk_nope_head_dim + m.mla.v_head_dim);
    s.attention_matmul_params = s.attention_params - m.mla.kv_lora_rank -
                                (m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : 0);
  } else {
    s.q_width = s.heads * s.head_dim;
    s.kv_width = s.kv_heads * s.head_dim;
    s.v_width = s.q_width;
    s.attention_params = h * (s.q_width + 2 * s.kv_width) + s.q_width * h;
    s.attention_matmul_params = s.attention_params;
    if (m.qkv_bias) s.attention_params += s.q_width + 2 * s.kv_width;
    if (m.out_bias) s.attention_params += h;
    if (m.qk_norm) s.attention_params += 2 * s.head_dim;
  }
  auto mlp_params = [&](double f) {
    double p = s.mlp_matrices * h * f;
    if (m.mlp_bias) p += (s.mlp_matrices - 1) * f + h;
    return p;
  };
  s.dense_mlp_params = mlp_params(s.ffn);
  s.norm_params = (layernorm ? 4.0 : 2.0) * h;
  if (m.is_moe()) {
    s.experts = m.moe.experts;
    s.top_k = m.moe.top_k;
    s.expert_ffn = double(m.moe.expert_ffn);
    s.shared_ffn = double(m.moe.shared_experts) * double(m.moe.shared_expert_ffn);
    s.expert_params = mlp_params(s.expert_ffn);
    s.shared_mlp_params = s.shared_ffn > 0 ? mlp_params(s.shared_ffn) : 0.0;
    s.router_params = h * s.experts + (m.moe.router_bias ? s.experts : 0.0);
    for (int l = 0; l < m.layers; ++l)
      if (m.is_moe_layer(l)) ++s.moe_layers;
  }
  s.embedding_params = s.vocab * h;
  if (m.position == PositionKind::learned) s.embedding_params += double(m.max_context) * h;
  s.tied = m.tied_embeddings;
  s.lm_head_params = s.vocab * h;  // a separate matrix, or the tied copy on the last stage
  return s;
}

const perf::Ceilings& TrainSetup::ceilings(Precision p) const {
  const std::optional<perf::Ceilings>* c = &bf16;
  if (p == Precision::fp16) c = &fp16;
  if (p == Precision::fp8_e4m3 || p == Precision::fp8_e5m2) c = &fp8;
  if (!*c)
    throw InfeasibleError(gpu.id + " has no known dense " + std::string(to_string(p)) +
                          " matmul peak (unsupported or unknown), so it cannot train in " +
                          std::string(to_string(p)));
  return **c;
}

TrainSetup make_setup(ModelSpec model, Accelerator gpu, Node node, std::optional<Fabric> fabric,
                      TrainParameters params, std::shared_ptr<const perf::Efficiency> efficiency) {
  const std::string who = "model '" + model.id + "'";
  if (model.layers <= 0) throw InputError(who + ": layers must be positive");
  if (model.hidden <= 0) throw InputError(who + ": hidden size must be positive");
  if (model.heads <= 0) throw InputError(who + ": attention heads must be positive");
  if (model.vocab <= 0) throw InputError(who + ": vocabulary size must be positive");
  if (model.ffn <= 0 && !(model.is_moe() && model.moe.first_dense_layers == 0))
    throw InputError(who + ": MLP intermediate size must be positive");
  if (model.is_moe() && (model.moe.top_k <= 0 || model.moe.expert_ffn <= 0))
    throw InputError(who + ": MoE needs top_k and expert_ffn");
  if (!gpu.memory) throw InputError("gpu '" + gpu.id + "': memory capacity unknown");
  if (!gpu.memory_bandwidth) throw InputError("gpu '" + gpu.id + "': memory bandwidth unknown");
  if (node.devices <= 0) throw InputError("node '" + node.id + "': devices must be positive");
  TrainSetup s;
  s.model = std::move(model);
  s.gpu = std::move(gpu);
  s.node = std::move(node);
  s.fabric = std::move(fabric);
  s.params = params;
  s.efficiency = efficiency ? std::move(efficiency)
                            : std::shared_ptr<const perf::Efficiency>(
                                  std::shared_ptr<const perf::Efficiency>(),
                                  &perf::default_efficiency());
  s.shape = layer_shape(s.model);
  s.node = perf::with_communication_prior(std::move(s.node), s.gpu, *s.efficiency);
  auto resolve = [&](Precision p) -> std::optional<perf::Ceilings> {
    if (!s.gpu.supports(p) || !s.gpu.peak(p)) return std::nullopt;
    return perf::resolve_device_ceilings(s.gpu, p, *s.efficiency);  // no serving engine
  };
  s.bf16 = resolve(Precision::bf16);
  s.fp16 = resolve(Precision::fp16);
  s.fp8 = resolve(Precision::fp8_e4m3);
  return s;
}

}  // namespace memwall::train
