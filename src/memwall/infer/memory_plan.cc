#include "memwall/infer/memory_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/model/counts.h"

namespace memwall::infer {
namespace {

int64_t blocks_of(int64_t tokens) {
  return (tokens + kKvBlockTokens - 1) / kKvBlockTokens * kKvBlockTokens;
}

// Usable memory minus weights and activations: what the KV cache may take.
Bytes kv_budget(const MemoryPlan& p) {
  return p.capacity - p.runtime_reserve - p.weights - p.activations;
}

MemoryPlan base_plan(const Deployment& d, int64_t step_tokens, int64_t logit_rows) {
  if (!d.gpu.memory || d.gpu.memory->value() <= 0)
    throw InputError("accelerator " + d.gpu.id +
                     ": memory capacity is unknown in the catalog; add it with --catalog FILE");
  MemoryPlan p;
  p.capacity = device_capacity(d.gpu);
  p.weights = weight_bytes_per_device(d);
  p.activations = activation_bytes_per_device(d, step_tokens, logit_rows);
  // vLLM and SGLang cap weights + activations + KV at the fraction of the total; TensorRT-LLM
  // gives the KV cache that fraction of what is still free after weights and activations
  // ("free_gpu_memory_fraction ... 90% of free GPU memory for KV cache", TensorRT-LLM docs, "How
  // to Change KV Cache Behavior"); such an engine may use the whole device.
  const bool of_free = d.engine_profile && d.engine_profile->limits.memory_fraction_of_free;
  const Bytes free_after_load = p.capacity - p.weights - p.activations;
  p.runtime_reserve = !of_free ? p.capacity * (1.0 - d.memory_utilization)
                      : free_after_load.value() > 0 ? free_after_load * (1.0 - d.memory_utilization)
                                                    : Bytes(0);
  p.kv_bytes_per_token = kv_bytes_per_token_per_device(d);
  p.kv_budget = kv_budget(p);
  if (p.kv_budget.value() <= 0)
    throw InfeasibleError(fmt::format(
        "{} on {} x{} (tp {}, pp {}) does not fit: weights {:.2f} GiB + activations {:.2f} GiB "
        "exceed the usable {:.2f} GiB ({:.0f}% of {:.2f} GiB) by {:.2f} GiB",
        d.model.id, d.gpu.id, d.devices_per_replica(), d.tp, d.pp, p.weights.value() / kGiB,
        p.activations.value() / kGiB, (p.capacity - p.runtime_reserve).value() / kGiB,
        (p.capacity - p.runtime_reserve).value() / p.capacity.value() * 100,
        p.capacity.value() / kGiB, -p.kv_budget.value() / kGiB));
  p.kv_capacity_tokens =
      static_cast<int64_t>(std::floor(p.kv_budget.value() / p.kv_bytes_per_token.value()));
  return p;
}

}  // namespace

// Engines size their pools against the total the driver reports (vLLM: torch.cuda.mem_get_info),
// not the datasheet's figure. CUDA's own total is lower still on an H100 (79.11 GiB in vLLM issue
// #27508's out-of-memory report against nvidia-smi's 79.65 GiB); that gap is not modelled.
Bytes device_capacity(const Accelerator& a) { return a.runtime_memory().value_or(Bytes(0)); }

Bytes weight_bytes_per_device(const Deployment& d) {
  const ModelSpec& m = d.model;
  const ParameterCounts c = count_parameters(m);
  const double layer_params =
      c.attention + c.dense_mlp + c.routed_experts + c.shared_experts + c.router + c.norms;
  const double stage_layers = std::ceil(double(m.layers) / d.pp);
  const double w = d.weight_bytes_per_element, hb = d.head_bytes_per_element;
  // Vocabulary-parallel embedding and LM head (Megatron-LM): split tp ways; the first pipeline
  // stage holds the embedding, the last the head.
  const double emb = c.embedding * hb / d.tp, head = c.lm_head * hb / d.tp;
  const double ends = d.pp == 1 ? emb + head : std::max(emb, head);
  return Bytes(layer_params * w / d.tp * stage_layers / m.layers + ends);
}

Bytes kv_bytes_per_token_per_device(const Deployment& d) {
  const ModelSpec& m = d.model;
  const double per_layer = m.attention == AttentionKind::mla
                               ? double(perf::kv_elements_per_token_per_layer(m))
                               : 2.0 * perf::kv_heads_per_device(m, d.tp) * m.head_dim;
  return Bytes(per_layer * std::ceil(double(m.layers) / d.pp) * bytes_per_element(d.kv));
}

Bytes activation_bytes_per_device(const Deployment& d, int64_t step_tokens, int64_t logit_rows) {
  const ModelSpec& m = d.model;
  const double T = double(std::min(step_tokens, kActivationChunkTokens));
  const double a = bytes_per_element(d.activation) < 2.0 ? 2.0 : bytes_per_element(d.activation);
  const double h = double(m.hidden);
  const double qkv = double(m.heads + 2 * m.kv_heads) * m.head_dim / d.tp;
  double ffn = double(m.ffn) / d.tp;
  if (m.is_moe())
    ffn = std::max(ffn, double(m.moe.expert_ffn) * m.moe.top_k / d.tp +
                            double(m.moe.shared_experts) * double(m.moe.shared_expert_ffn) / d.tp);
  // Live at the peak: residual stream + normed input + the wider of (QKV + attention output) and
  // (gate/up output + activated half).
  const double per_token = 2 * h + std::max(qkv + h, 3 * ffn);
  const double logits = double(std::min(logit_rows, kActivationChunkTokens)) * double(m.vocab) /
                        d.tp * 4.0;  // fp32 logits for sampling
  return Bytes(T * per_token * a + logits) + gib(kWorkspaceGiB);
}

MemoryPlan plan_memory(const Deployment& d, int64_t batch, int64_t context_tokens,
                       int64_t prompt_tokens) {
  if (batch < 0 || context_tokens < 0 || prompt_tokens < 0)
    throw InputError("batch and context must not be negative");
  MemoryPlan p = base_plan(d, std::max<int64_t>(1, batch * std::max<int64_t>(1, prompt_tokens)),
                           std::max<int64_t>(1, batch));
  if (batch > 0) {
    const double tokens = double(batch) * double(blocks_of(context_tokens));
    p.kv_used = p.kv_bytes_per_token * tokens;
    if (p.kv_used > p.kv_budget)
      throw InfeasibleError(fmt::format(
          "batch {} x {} tokens of context needs {:.2f} GiB of KV cache per device; only {:.2f} "
          "GiB is left after weights {:.2f} GiB, activations {:.2f} GiB and the runtime reserve "
          "{:.2f} GiB: {:.2f} GiB short (largest batch at this context: {})",
          batch, context_tokens, p.kv_used.value() / kGiB, p.kv_budget.value() / kGiB,
          p.weights.value() / kGiB, p.activations.value() / kGiB,
          p.runtime_reserve.value() / kGiB, (p.kv_used - p.kv_budget).value() / kGiB,
          max_batch(d, context_tokens, prompt_tokens)));
  }
  return p;
}

MemoryPlan plan_engine_memory(const Deployment& d) {
  // vLLM V1 (gpu_worker.determine_available_memory): KV = memory_utilization x total - weights -
  // the torch peak of a dummy forward of max_num_batched_tokens tokens whose sampler pass takes
  // min(max_num_seqs, tokens) rows of logits - non-torch memory. vLLM issue #27508 (H100,
  // gpt-oss-120b) shows that pass allocating the fp32 logits of 1024 rows x 201,088 vocabulary
  // (786 MiB) at start-up.
  const int64_t tokens = std::max<int64_t>(1, d.max_num_batched_tokens());
  const int64_t rows = std::clamp<int64_t>(d.max_num_seqs(), 1, tokens);
  return base_plan(d, tokens, rows);
}

int64_t max_batch(const Deployment& d, int64_t context_tokens, int64_t prompt_tokens) {
  const int64_t per_seq = blocks_of(std::max<int64_t>(1, context_tokens));
  const int64_t prompt = std::max<int64_t>(1, prompt_tokens);
  auto fits = [&](int64_t b) {
    try {
      return base_plan(d, b * prompt, b).kv_capacity_tokens >= b * per_seq;
    } catch (const InfeasibleError&) {
      return false;
    }
  };
  if (!fits(1)) return 0;
  // Activations grow with the batch up to the prefill chunk cap, so fitting is monotone in b:
  // bisect between 1 and the batch the KV budget of a one-sequence step would allow.
  int64_t lo = 1, hi = base_plan(d, prompt, 1).kv_capacity_tokens / per_seq + 1;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

int64_t max_context(const Deployment& d, int64_t batch) {
  if (batch <= 0) return 0;
  const MemoryPlan p = base_plan(d, batch, batch);
  const int64_t per_seq = p.kv_capacity_tokens / batch;
  return per_seq / kKvBlockTokens * kKvBlockTokens;
}

}  // namespace memwall::infer
