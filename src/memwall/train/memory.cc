#include "memwall/train/memory.h"

#include <algorithm>
#include <cmath>

namespace memwall::train {

StateBytes state_bytes(const TrainConfig& c) {
  StateBytes b;
  // fp8 training (Transformer Engine): bf16 weights plus a cached fp8 copy for the GEMMs
  // (NVIDIA TE docs, "FP8 primer"); gradients and optimizer as in bf16 mixed precision.
  if (c.precision == Precision::fp8_e4m3 || c.precision == Precision::fp8_e5m2) b.weights = 3;
  if (c.fp32_grad_accumulation) b.gradients = 4;
  return b;
}

double layer_activation_bytes(const LayerShape& s, const TrainConfig& c, bool moe_layer) {
  const double t = c.tp;
  const double tokens = double(c.micro_batch) * double(c.seq) / c.cp;  // s b on this rank
  const double rep = c.sequence_parallel ? 1.0 / t : 1.0;  // tensors replicated over TP unless SP
  const double h = s.hidden;
  const double mask = c.dropout ? 1.0 : 0.0;               // 1-byte dropout mask per element
  // Attention block (Korthikanti §4.1: 11sbh + 5as^2b for MHA with dropout).
  double bytes = 2 * tokens * h * rep;                        // LayerNorm 1 input
  bytes += 2 * tokens * h * rep;                              // QKV GEMM input
  bytes += 2 * tokens * (s.q_width + 2 * s.kv_width) / t;     // Q, K (for QK^T) and V (for AV)
  if (c.flash_attention) {
    bytes += 4 * tokens * (s.heads / t);                      // softmax log-sum-exp, fp32
  } else {
    const double scores = double(c.micro_batch) * (s.heads / t) * (double(c.seq) / c.cp) * double(c.seq);
    bytes += 2 * scores;                                      // softmax output
    bytes += (mask + (c.dropout ? 2.0 : 0.0)) * scores;       // dropout mask and output
  }
  bytes += 2 * tokens * s.q_width / t;                        // output-projection input
  bytes += mask * tokens * h * rep;                           // attention output dropout mask
  // MLP block (Korthikanti §4.1: 19sbh for GELU, f = 4h, with dropout).
  bytes += 2 * tokens * h * rep;                              // LayerNorm 2 input
  auto mlp = [&](double tokens_in, double f) {
    double b = 2 * tokens_in * h * rep;                       // up-projection input
    // plain: activation input + down input (4 t f); gated: gate and up outputs + down input (6 t f)
    b += (s.mlp_matrices == 3 ? 6.0 : 4.0) * tokens_in * f / t;
    return b;
  };
  if (moe_layer) {
    bytes += 4 * tokens * s.experts * rep;                    // router logits (fp32)
    bytes += mlp(tokens * s.top_k, s.expert_ffn);              // routed tokens through experts
    if (s.shared_ffn > 0) bytes += mlp(tokens, s.shared_ffn);
  } else {
    bytes += mlp(tokens, s.ffn);
  }
  bytes += mask * tokens * h * rep;                           // MLP output dropout mask
  return bytes;
}

double layer_stored_activation_bytes(const LayerShape& s, const TrainConfig& c, bool moe_layer) {
  const double t = c.tp;
  const double tokens = double(c.micro_batch) * double(c.seq) / c.cp;
  switch (c.recompute) {
    case Recompute::none: return layer_activation_bytes(s, c, moe_layer);
    case Recompute::selective: {
      TrainConfig without_scores = c;
      without_scores.flash_attention = true;  // scores are recomputed: keep only what flash keeps
      return layer_activation_bytes(s, without_scores, moe_layer);
    }
    case Recompute::full:
      // Korthikanti §4.2: only the layer input, 2sbh (sharded over TP with SP).
      return 2 * tokens * s.hidden * (c.sequence_parallel ? 1.0 / t : 1.0);
  }
  return 0;
}

namespace {

struct StageLoad {
  double params = 0;         // dense parameters on this GPU (after TP, before ZeRO)
  double expert_params = 0;  // routed-expert parameters on this GPU (after TP and EP)
  double activations = 0;    // bytes
};

}  // namespace

MemoryBreakdown memory_per_gpu(const TrainSetup& setup, const TrainConfig& c) {
  const LayerShape& s = setup.shape;
  const TrainParameters& prm = setup.params;
  const double t = c.tp, p = c.pp, v = c.vpp;
  const double m = double(c.micro_batches());
  const double dense_layers = double(s.layers - s.moe_layers) / p;  // per stage (MoE spread evenly)
  const double moe_layers = double(s.moe_layers) / p;
  const double layers = double(s.layers) / p;

  // Parameters of one stage's layers on one GPU: matrices split over TP, norms replicated;
  // routed experts split over EP x TP (Megatron-LM issue #4050: not over TP alone).
  StageLoad body;
  body.params = dense_layers * ((s.attention_params + s.dense_mlp_params) / t + s.norm_params) +
                moe_layers * ((s.attention_params + s.shared_mlp_params) / t + s.norm_params +
                              s.router_params);
  body.expert_params = moe_layers * s.experts * s.expert_params / (double(c.ep) * t);

  // Activations: per layer, times the layers of the micro-batches in flight.
  const double per_layer = (dense_layers * layer_stored_activation_bytes(s, c, false) +
                            moe_layers * layer_stored_activation_bytes(s, c, true)) /
                           layers;
  // Full recomputation re-materialises one layer's complete activations during its backward.
  const double working = c.recompute == Recompute::full
                             ? std::max(s.moe_layers > 0 ? layer_activation_bytes(s, c, true) : 0.0,
                                        s.moe_layers < s.layers ? layer_activation_bytes(s, c, false)
                                                                : 0.0)
                             : 0.0;
  const double chunk_layers = layers / v;
  // In-flight model chunks (Narayanan et al. 2021 §2.2; Megatron schedules.py warm-up counts):
  // 1F1B first stage holds min(m, p) micro-batches; interleaved holds p v + p - 1 chunks
  // = L (1 + (p-1)/(p v)) layers (Korthikanti §4.2.3); the last stage holds one (v-1) p + 1.
  const double first_chunks = v > 1 ? std::min(m * v, p * v + p - 1) : std::min(m, p);
  const double last_chunks = v > 1 ? std::min(m * v, (v - 1) * p + 1) : 1.0;
  const double first_mb = v > 1 ? std::min(m, std::ceil(first_chunks / v)) : first_chunks;
  const double tokens = double(c.micro_batch) * double(c.seq) / c.cp;
  const double rep = c.sequence_parallel ? 1.0 / t : 1.0;

  // Embedding on the first stage: token ids (int64) and the embedding dropout mask of every
  // in-flight micro-batch (Megatron theoretical_memory_usage: 8sbp + sbhp).
  const double embed_params = s.embedding_params / t;
  const double embed_act = first_mb * (8 * tokens + (c.dropout ? tokens * s.hidden * rep : 0.0));
  // Last stage: LM head (or the tied copy when it sits on another stage than the embedding) and
  // final norm; LayerNorm output and fp32 logits of one micro-batch, 4sbh (1 + V/h) with the
  // vocabulary split over TP (Korthikanti §4.3).
  const double head_params =
      (!s.tied || c.pp > 1 ? s.lm_head_params / t : 0.0) + s.norm_params / 2;
  const double head_act = 4 * tokens * s.hidden * rep + 4 * tokens * s.vocab / t;

  StageLoad first = body, last = body;
  first.activations = first_chunks * chunk_layers * per_layer + working + embed_act;
  first.params += embed_params;
  last.activations = last_chunks * chunk_layers * per_layer + working + head_act;
  last.params += head_params;
  if (c.pp == 1) {
    first.params += head_params;
    first.activations += head_act;
  }

  const StateBytes sb = state_bytes(c);
  const double dp_shard = double(c.data_parallel()) * c.cp;  // ZeRO shards over the DP x CP group
  const double ep_shard = std::max(1.0, dp_shard / c.ep);    // experts: over expert-DP ranks
  auto model_states = [&](const StageLoad& l, MemoryBreakdown& out) {
    const double w = c.zero >= 3 ? 1.0 / dp_shard : 1.0, we = c.zero >= 3 ? 1.0 / ep_shard : 1.0;
    const double g = c.zero >= 2 ? 1.0 / dp_shard : 1.0, ge = c.zero >= 2 ? 1.0 / ep_shard : 1.0;
    const double o = c.zero >= 1 ? 1.0 / dp_shard : 1.0, oe = c.zero >= 1 ? 1.0 / ep_shard : 1.0;
    out.weights = Bytes(sb.weights * (l.params * w + l.expert_params * we));
    out.gradients = Bytes(sb.gradients * (l.params * g + l.expert_params * ge));
    out.optimizer_state = Bytes(sb.optimizer * (l.params * o + l.expert_params * oe));
    out.activations = Bytes(l.activations * (1.0 + prm.activation_fragmentation));
    out.local_parameters = l.params + l.expert_params;
    // Communication buffers. ZeRO-3 / FSDP: the gathered weights of the current and the prefetched
    // layer plus one layer's unsharded gradients (DeepSpeed estimator: 4 x largest layer);
    // ZeRO 0-2: one gradient bucket (Megatron DDP).
    const double layer_params = l.params / std::max(1.0, layers);
    if (c.zero >= 3) {
      out.comm_buffers = Bytes(layer_params * (2 * sb.weights + sb.gradients));
    } else {
      const double bucket = std::min(out.local_parameters,
                                     std::max(prm.grad_bucket_params, 1e6 * c.data_parallel()));
      out.comm_buffers = Bytes(bucket * sb.gradients);
    }
    // Pipeline send and receive buffers, one micro-batch each direction.
    if (c.pp > 1) out.comm_buffers += Bytes(2 * 2 * tokens * s.hidden * rep);
    out.runtime_reserve = prm.runtime_reserve;
    out.capacity = setup.gpu.memory.value_or(Bytes(0));
  };
  MemoryBreakdown a, b;
  model_states(first, a);
  a.stage = 0;
  if (c.pp == 1) return a;
  model_states(last, b);
  b.stage = c.pp - 1;
  return b.total() > a.total() ? b : a;
}

}  // namespace memwall::train
