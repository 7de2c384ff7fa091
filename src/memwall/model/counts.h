// What a model's shape implies before any hardware enters: how many parameters it has (in total
// and used per token), how many FLOPs one token's forward pass costs, and how many KV-cache
// elements and bytes each token of context occupies.
//
// Conventions (docs/models.md explains them with examples):
//  - total counts every stored parameter, all routed experts included; the learned position table
//    (GPT-2/OPT style) is part of `embedding`. Multi-token-prediction modules (DeepSeek-V3 MTP)
//    are not part of the main model and are not counted, as DeepSeek's 671B figure does not.
//  - active counts what one token touches: attention, dense MLPs, the top-k routed plus the shared
//    experts, routers, norms, the LM head and the embedding table. Counting the embedding table is
//    the publishers' convention: Mixtral 8x7B's 12.9B active (Mistral AI) and Qwen3-30B-A3B's
//    3.3B only come out with it included.
#pragma once

#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/model/transformer.h"

namespace memwall {

struct ParameterCounts {
  double total = 0;           // every stored parameter
  double active = 0;          // parameters a single token uses (see the conventions above)
  double embedding = 0;       // token (+ learned position) embedding tables
  double lm_head = 0;         // output projection; 0 when tied to the embedding
  double attention = 0;       // q/k/v/o projections (MLA: the low-rank factors), with biases
  double dense_mlp = 0;       // MLPs of dense layers, with biases
  double routed_experts = 0;  // all routed experts of all MoE layers
  double shared_experts = 0;  // always-on experts of MoE layers
  double router = 0;          // expert gate weights (+ bias)
  double norms = 0;           // layer/RMS norms, q/k norms, MLA latent norms, final norm
};

ParameterCounts count_parameters(const ModelSpec& m);

// How attention is evaluated for MLA models. `expanded` materialises per-head keys and values
// (prefill/training kernels: q·k over qk_nope+qk_rope dims, p·v over v_head_dim). `absorbed`
// folds the up-projections into q and the output (DeepSeek-V2 §2.1.2, the decode path of
// FlashMLA/vLLM): q·k over kv_lora_rank+qk_rope dims and p·v over kv_lora_rank, per head.
// For MHA/GQA/MQA both forms are the same.
enum class MlaAttentionForm { expanded, absorbed };

// Score and value FLOPs of one query token attending to `context_tokens` keys, summed over layers:
// 2*context*heads*qk_dim (Q·K^T) + 2*context*heads*v_dim (P·V) per layer, i.e. 4*context*heads*
// head_dim for MHA/GQA/MQA (Narayanan et al. 2021, eq. 3 attention term; Kaplan et al. 2020
// Table 1). Causal-mask convention: the caller chooses `context_tokens`. Decoding with n tokens in
// the cache: n. A causal prefill of S tokens, exactly: (S+1)/2 on average. The Megatron/PaLM MFU
// convention (model FLOPs) uses the full S, which is what Narayanan eq. 3 assumes.
double attention_flops_per_token(const ModelSpec& m, double context_tokens,
                                 MlaAttentionForm form = MlaAttentionForm::expanded);

// Parameters that one token multiplies in matmuls: attention projections, dense MLP or top-k
// routed + shared experts, router, and the LM head (vocab x hidden even when tied). Excludes the
// embedding lookup, norms and biases.
double matmul_parameters_per_token(const ModelSpec& m);

// Forward FLOPs of one token: 2 x matmul_parameters_per_token + attention_flops_per_token.
double forward_flops_per_token(const ModelSpec& m, double context_tokens,
                               MlaAttentionForm form = MlaAttentionForm::expanded);

// KV-cache elements one token of context occupies, summed over layers: 2*kv_heads*head_dim per
// layer for MHA/GQA/MQA; for MLA the compressed latent plus the shared rope key,
// kv_lora_rank + qk_rope_head_dim, as DeepSeek-V2/V3 inference engines cache it (DeepSeek-V2
// Table 1: (d_c + d_h^R) * l elements per token).
double kv_cache_elements_per_token(const ModelSpec& m);
Bytes kv_cache_bytes_per_token(const ModelSpec& m, Precision kv);

}  // namespace memwall
