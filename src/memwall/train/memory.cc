#include "memwall/train/memory.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

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
  // Inputs of the linear layers are kept for the weight gradient as the GEMM reads them: the fp8
  // copy under fp8 recipes (Transformer Engine saves the cast input; DeepSeek-V3 §3.3.3 caches
  // them in fp8), else 16-bit.
  const bool fp8 = c.precision == Precision::fp8_e4m3 || c.precision == Precision::fp8_e5m2;
  const double lin = fp8 ? 1.0 : 2.0;
  // Attention block (Korthikanti §4.1: 11sbh + 5as^2b for MHA with dropout).
  double bytes = 2 * tokens * h * rep;                        // LayerNorm 1 input
  bytes += lin * tokens * h * rep;                            // QKV GEMM input
  bytes += 2 * tokens * (s.q_width + 2 * s.kv_width) / t;     // Q, K (for QK^T) and V (for AV)
  if (c.flash_attention) {
    bytes += 4 * tokens * (s.heads / t);                      // softmax log-sum-exp, fp32
  } else {
    const double scores = double(c.micro_batch) * (s.heads / t) * (double(c.seq) / c.cp) * double(c.seq);
    bytes += 2 * scores;                                      // softmax output
    bytes += (mask + (c.dropout ? 2.0 : 0.0)) * scores;       // dropout mask and output
  }
  bytes += lin * tokens * s.v_width / t;                      // output-projection input
  bytes += mask * tokens * h * rep;                           // attention output dropout mask
  // MLP block (Korthikanti §4.1: 19sbh for GELU, f = 4h, with dropout).
  bytes += 2 * tokens * h * rep;                              // LayerNorm 2 input
  auto mlp = [&](double tokens_in, double f) {
    double b = lin * tokens_in * h * rep;                     // up-projection input
    // plain: activation input (2) + down input; gated: gate and up outputs (4) + down input.
    // DeepSeek-V3's block-scaled recipe caches the SwiGLU inputs in fp8 and recomputes its output
    // (the down-projection input) in backward (§3.3.3): 2 x 1 byte.
    if (s.mlp_matrices == 3 && fp8 && c.fp8_recipe == Fp8Recipe::blockwise)
      return b + 2.0 * tokens_in * f / t;
    b += ((s.mlp_matrices == 3 ? 4.0 : 2.0) + lin) * tokens_in * f / t;
    return b;
  };
  if (moe_layer) {
    bytes += 4 * tokens * s.experts * rep;                    // router logits (fp32)
    bytes += mlp(tokens * s.top_k * std::max(1.0, c.moe_imbalance), s.expert_ffn);  // routed
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
      double bytes = layer_activation_bytes(s, without_scores, moe_layer);
      // MLA: the per-head Q, K, V come back from the compressed latents by recomputing the
      // up-projections (DeepSeek-V3 §3.2.3), so only the latents are kept.
      if (s.mla_latent > 0)
        bytes += 2 * tokens * s.mla_latent - 2 * tokens * (s.q_width + 2 * s.kv_width) / t;
      return bytes;
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
  return memory_per_gpu(setup, c, split_layers(setup.shape.layers, setup.shape.moe_layers, c));
}

MemoryBreakdown memory_per_gpu(const TrainSetup& setup, const TrainConfig& c,
                               const PipelineSplit& split) {
  const LayerShape& s = setup.shape;
  const TrainParameters& prm = setup.params;
  const double t = c.tp, p = c.pp, v = c.vpp;
  const double m = double(c.micro_batches());
  const double tokens = double(c.micro_batch) * double(c.seq) / c.cp;
  const double rep = c.sequence_parallel ? 1.0 / t : 1.0;
  const double act_dense = s.moe_layers < s.layers ? layer_stored_activation_bytes(s, c, false) : 0;
  const double act_moe = s.moe_layers > 0 ? layer_stored_activation_bytes(s, c, true) : 0;
  // Full recomputation re-materialises one layer's complete activations during its backward.
  const double working_dense = c.recompute == Recompute::full && s.moe_layers < s.layers
                                   ? layer_activation_bytes(s, c, false)
                                   : 0.0;
  const double working_moe =
      c.recompute == Recompute::full && s.moe_layers > 0 ? layer_activation_bytes(s, c, true) : 0.0;

  // Embedding on the first stage: token ids (int64) and the embedding dropout mask of every
  // in-flight micro-batch (Megatron theoretical_memory_usage: 8sbp + sbhp).
  const double embed_params = s.embedding_params / t;
  // Last stage: LM head (or the tied copy when it sits on another stage than the embedding) and
  // final norm; LayerNorm output and fp32 logits of one micro-batch, 4sbh (1 + V/h) with the
  // vocabulary split over TP (Korthikanti §4.3).
  const double head_params =
      (!s.tied || c.pp > 1 ? s.lm_head_params / t : 0.0) + s.norm_params / 2;
  const double head_act = 4 * tokens * s.hidden * rep + 4 * tokens * s.vocab / t;

  const StateBytes sb = state_bytes(c);
  const double dp_shard = double(c.data_parallel()) * c.cp;  // ZeRO shards over the DP x CP group
  const double ep_shard = std::max(1.0, dp_shard / c.ep);    // experts: over expert-DP ranks
  // DualPipe: rank s hosts stage s for one direction and stage p - 1 - s for the other (DeepSeek-V3
  // §3.2.1, "two copies of the model parameters"), and its in-flight micro-batches pass through
  // either: half of them through each.
  const bool dualpipe = c.schedule == Schedule::dualpipe;
  MemoryBreakdown worst;
  worst.per_stage.reserve(split.stages.size());
  auto stage_load = [&](int st) {
    const StageLayers& sl = split.stages[static_cast<size_t>(st)];
    // Parameters of the stage's layers on one GPU: matrices split over TP, norms replicated;
    // routed experts split over EP x TP (Megatron-LM issue #4050: not over TP alone).
    StageLoad l;
    l.params = sl.dense * ((s.attention_params + s.dense_mlp_params) / t + s.norm_params) +
               sl.moe * ((s.attention_params + s.shared_mlp_params) / t + s.norm_params +
                         s.router_params);
    l.expert_params = sl.moe * s.experts * s.expert_params / (double(c.ep) * t);
    // In-flight model chunks (Narayanan et al. 2021 §2.2; Megatron schedules.py warm-up counts
    // (p - s - 1) x 2 + (v - 1) x p, plus the one in flight): 1F1B stage s holds min(m, p - s)
    // micro-batches; interleaved stage 0 holds p v + p - 1 chunks = L (1 + (p-1)/(p v)) layers
    // (Korthikanti §4.2.3), the last stage (v - 1) p + 1.
    // DualPipe holds PP + 1 micro-batches on every stage (DeepSeek-V3 Table 2).
    const double chunks = c.schedule == Schedule::dualpipe ? std::min(m, p + 1)
                          : v > 1 ? std::min(m * v, (p - st - 1) * 2 + (v - 1) * p + 1)
                                  : std::min(m, p - st);
    const double per_mb = sl.dense * act_dense + sl.moe * act_moe;  // all the stage's layers
    const double working = std::max(sl.dense > 0 ? working_dense : 0.0,
                                    sl.moe > 0 ? working_moe : 0.0);
    l.activations = chunks / v * per_mb + working;
    if (st == 0) {
      const double first_mb = v > 1 ? std::min(m, std::ceil(chunks / v)) : chunks;
      l.params += embed_params;
      l.activations += first_mb * (8 * tokens + (c.dropout ? tokens * s.hidden * rep : 0.0));
    }
    if (st == c.pp - 1) {
      l.params += head_params;
      l.activations += head_act;
      // MTP modules (DeepSeek-V3 §2.2): a MoE layer and a 2h x h projection each, the head and
      // embedding shared with the main model; one micro-batch of their activations per in-flight
      // micro-batch, like a layer.
      l.params += c.mtp_layers * ((s.attention_params + s.shared_mlp_params + 2 * s.hidden * s.hidden) / t +
                                  s.norm_params + s.router_params);
      l.expert_params += c.mtp_layers * s.experts * s.expert_params / (double(c.ep) * t);
      l.activations += c.mtp_layers * (chunks / v * act_moe + head_act);
    }
    return l;
  };
  for (int st = 0; st < c.pp; ++st) {
    const StageLayers& sl = split.stages[static_cast<size_t>(st)];
    StageLoad l = stage_load(st);
    int stage_count = sl.layers;
    if (dualpipe) {
      const StageLoad mirror = stage_load(c.pp - 1 - st);
      l.params += mirror.params;
      l.expert_params += mirror.expert_params;
      l.activations = 0.5 * (l.activations + mirror.activations);
      stage_count += split.stages[static_cast<size_t>(c.pp - 1 - st)].layers;
    }
    MemoryBreakdown out;
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
    const double layer_params = l.params / std::max(1, stage_count);
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
    out.stage = st;
    worst.per_stage.push_back(out.total());
    if (st == 0 || out.total() > worst.total()) {
      std::vector<Bytes> keep = std::move(worst.per_stage);
      worst = out;
      worst.per_stage = std::move(keep);
    }
  }
  return worst;
}

}  // namespace memwall::train
