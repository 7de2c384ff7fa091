// Operator graphs of inference: one engine iteration (a mixed batch of prefill tokens and decode
// tokens, which covers a whole prefill pass and a single decode step) of any ModelSpec, as the
// operators one device runs under tensor/pipeline/expert parallelism.
#pragma once

#include <cstdint>
#include <vector>

#include "memwall/core/precision.h"
#include "memwall/model/transformer.h"
#include "memwall/perf/operator.h"

namespace memwall::perf {

// How the model is cut across the devices of one replica, and the element types.
struct ShardPlan {
  int tp = 1;  // tensor parallel: heads and FFN columns split tp ways
  int pp = 1;  // pipeline parallel: layers split pp ways
  int ep = 1;  // expert parallel inside the TP group (ep | tp): experts split ep ways,
               // each expert's FFN split tp/ep ways (TensorRT-LLM moe_ep x moe_tp = tp)
  Precision weight = Precision::bf16;
  double weight_bytes_per_element = 0;  // > 0: overrides the precision's (other group sizes)
  double head_bytes_per_element = 2;    // embedding and LM head (kept 16-bit when quantised)
  Precision activation = Precision::bf16;
  Precision kv = Precision::bf16;
  bool fused_elementwise = true;  // rotary, activation and residual adds fused into neighbours
  bool gqa_shared_kv_loads = true;  // decode attention reads a KV head once per query group
  bool gqa_shared_kv_loads_mixed = true;  // the same in iterations that also carry prompt tokens
  // W8A8 GEMMs quantise their input activations in a kernel of their own (vLLM scaled_fp8_quant,
  // SGLang per_token_group_quant_fp8) instead of fusing it into the producer (TensorRT-LLM).
  bool fp8_activation_quant_kernel = false;
  // Latency per MoE layer of the engine version's routed-expert path beyond its modelled kernels
  // (EngineProfile::moe_layer_overhead).
  Seconds moe_layer_overhead;
  double gqa_reread_dram_share = 0;  // else: share of the per-query-head re-reads reaching DRAM
  int compute_units = 0;  // SMs / CUs of the device (0: unknown), for kernels' CTA residency
};

// The tokens of one iteration (same fields as infer::StepBatch).
struct StepTokens {
  int64_t prefill_tokens = 0;
  int prefill_sequences = 0;
  double prefill_attended_pairs = 0;  // sum over prefill tokens of the context each attends to
  int decode_sequences = 0;
  int64_t decode_context_tokens = 0;  // sum of the decode sequences' KV lengths
};

// Causal attention pairs of a prompt chunk of `new_tokens` after `cached` tokens:
// sum_{i=1..n} (cached + i) = n*cached + n(n+1)/2.
double causal_pairs(double new_tokens, double cached);

// Expected number of distinct experts that `tokens` tokens touch when each picks `top_k` of
// `experts` uniformly: E * (1 - (1 - k/E)^T) (balls into bins without replacement per token).
double expected_distinct_experts(int experts, int top_k, double tokens);

// KV-cache elements one token stores in one layer: 2 * kv_heads * head_dim, or for MLA the
// compressed latent plus the decoupled rope key, kv_lora_rank + qk_rope_head_dim
// (DeepSeek-V2 arXiv 2405.04434 §2.1.2).
int64_t kv_elements_per_token_per_layer(const ModelSpec& m);
// KV heads one device stores under tensor parallelism: kv_heads / tp, or 1 when tp > kv_heads
// (each KV head replicated tp / kv_heads times, as vLLM and TensorRT-LLM do).
int kv_heads_per_device(const ModelSpec& m, int tp);

// The operators one device runs in one iteration, each with `repeat` = the number of layers of
// its kind in the whole model (a pipeline stage runs repeat / pp of them). Includes embedding,
// norms, projections, rotary, attention, MLP or MoE, residuals, LM head, sampling and the
// communication operators (timed by the caller).
std::vector<Operator> build_step_graph(const ModelSpec& m, const ShardPlan& s, const StepTokens& t);
// The same into `ops` (cleared first), reusing its storage: for callers that build millions.
void build_step_graph(const ModelSpec& m, const ShardPlan& s, const StepTokens& t,
                      std::vector<Operator>& ops);

// Hardware FLOPs of one step on one replica: sum of repeat x flops over the graph, x tp (every
// device of a stage runs its share; replicated small ops are counted on every device).
Flops replica_flops(const std::vector<Operator>& ops, int tp);

}  // namespace memwall::perf
