// A decoder-only transformer described by its shapes: enough to count parameters, FLOPs, KV-cache
// bytes and to build the operator graph. Covers dense and MoE models and MHA/GQA/MQA/MLA attention.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/precision.h"

namespace memwall {

enum class AttentionKind { mha, gqa, mqa, mla };
enum class MlpKind { gated, plain };  // gated: SwiGLU/GeGLU (3 matrices); plain: up + down (2)
enum class NormKind { rmsnorm, layernorm };
enum class PositionKind { rope, learned, alibi };

// Multi-head latent attention (DeepSeek-V2 §2.1, arXiv 2405.04434).
struct MlaSpec {
  int q_lora_rank = 0;  // 0: queries projected directly from the hidden state
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
};

// Mixture of experts. Layers [0, first_dense_layers) are dense; after that every
// `layer_frequency`-th layer is MoE.
struct MoeSpec {
  int experts = 0;  // routed experts; 0 means a dense model
  int top_k = 0;
  int shared_experts = 0;
  int64_t expert_ffn = 0;         // intermediate size of one routed expert
  int64_t shared_expert_ffn = 0;  // intermediate size of one shared expert
  int first_dense_layers = 0;
  int layer_frequency = 1;
  bool router_bias = false;
};

struct ModelSpec {
  std::string id;  // lower-case publisher name and size, e.g. "llama-3.1-70b"
  std::string name;
  std::string family;  // llama, qwen2, mixtral, deepseek_v3, gpt2, opt ...
  int layers = 0;
  int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;  // per-head dimension of q/k/v (hidden / heads unless the config says)
  int64_t ffn = 0;   // intermediate size of the dense MLP
  int64_t vocab = 0;
  int64_t max_context = 0;
  AttentionKind attention = AttentionKind::gqa;
  MlpKind mlp = MlpKind::gated;
  NormKind norm = NormKind::rmsnorm;
  PositionKind position = PositionKind::rope;
  bool tied_embeddings = false;
  bool qkv_bias = false;
  bool out_bias = false;
  bool mlp_bias = false;
  bool qk_norm = false;  // Qwen3 / Gemma per-head q and k norms
  MoeSpec moe;
  MlaSpec mla;
  // Scaling of the publisher's FP8 checkpoint where it ships one (DeepSeek-V3/R1: 128 x 128
  // blocks, config.json quantization_config.weight_block_size); the default of --fp8-recipe.
  std::optional<Fp8Recipe> fp8_checkpoint;
  // The Hugging Face repositories whose config.json has exactly these shapes ("org/name"), so a
  // model named as users write it (meta-llama/Llama-3.1-8B-Instruct) resolves; quantised
  // checkpoints are not listed (their precision is a separate input).
  std::vector<std::string> hf_repos;

  // What the publisher states, with the source, for the parameter-count check.
  std::optional<double> published_total_params;
  std::optional<double> published_active_params;
  std::string source;
  std::vector<std::string> warnings;  // import notes: fields not understood

  bool is_moe() const { return moe.experts > 0; }
  bool is_moe_layer(int layer) const {
    return is_moe() && layer >= moe.first_dense_layers &&
           (layer - moe.first_dense_layers) % moe.layer_frequency == 0;
  }
};

}  // namespace memwall
