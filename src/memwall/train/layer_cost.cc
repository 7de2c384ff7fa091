#include "memwall/train/layer_cost.h"

#include <algorithm>

namespace memwall::train {

PassCost& PassCost::operator+=(const PassCost& o) {
  compute_s += o.compute_s;
  gemm_s += o.gemm_s;
  attention_s += o.attention_s;
  tp_comm_s += o.tp_comm_s;
  cp_comm_s += o.cp_comm_s;
  ep_comm_s += o.ep_comm_s;
  flops += o.flops;
  return *this;
}

PassCost PassCost::scaled(double k) const {
  PassCost p = *this;
  p.compute_s *= k;
  p.gemm_s *= k;
  p.attention_s *= k;
  p.tp_comm_s *= k;
  p.cp_comm_s *= k;
  p.ep_comm_s *= k;
  p.flops *= k;
  return p;
}

comm::Cluster cluster_for(const TrainSetup& setup, const TrainConfig& c) {
  comm::Cluster cl;
  cl.node = &setup.node;
  cl.fabric = setup.fabric ? &*setup.fabric : nullptr;
  cl.nodes = (c.gpus + setup.node.devices - 1) / setup.node.devices;
  return cl;
}

namespace {

// Ranks are laid out as Megatron-LM orders them: TP innermost, then CP, DP, PP outermost.
comm::Group tp_group(const TrainConfig& c) { return {c.tp, 1, 0}; }
comm::Group cp_neighbours(const TrainConfig& c) { return {2, c.tp, 0}; }



// One MoE all-to-all (dispatch or combine) of `bytes` per rank over the EP group. With
// node-limited routing (DeepSeek-V3 §3.2.2; DeepEP) a token crosses the network once per target
// node, min(limit, nodes, top-k) times instead of top-k times, and its copies for experts on the
// same node are forwarded over NVLink: the scale-out part moves that fraction of the buffer and
// the scale-up part forwards the whole buffer inside the node; the slower of the two sets the time.
double moe_all_to_all_s(const TrainSetup& setup, const TrainConfig& c, const comm::Cluster& cl,
                        double bytes) {
  auto collective = [&](double b, comm::Group g) {
    return setup.collectives->seconds(cl, comm::Collective::all_to_all, b, g);
  };
  const comm::Group ep{c.ep, c.tp, 0};
  const int per_node = std::max(1, std::min(c.ep, setup.node.devices / std::max(1, c.tp)));
  const int nodes = (c.ep + per_node - 1) / per_node;
  if (c.moe_node_limit <= 0 || nodes <= 1) return collective(bytes, ep);
  const double top_k = setup.shape.top_k;
  const double crossings = std::min({double(c.moe_node_limit), double(nodes), top_k});
  return std::max(collective(bytes * crossings / top_k, ep),
                  collective(bytes, comm::Group{per_node, c.tp, 0}));
}

struct Gemm {
  double m, n, k;
};

// Adds a GEMM's forward, or its backward (input gradient M x K x N and weight gradient K x N x M).
void add_gemm(PassCost& p, const DeviceRates& r, Gemm g, bool backward, double batch = 1.0) {
  double s = 0;
  if (!backward) {
    s = gemm_seconds(r, g.m, g.n, g.k, batch);
    p.flops += 2 * g.m * g.n * g.k * batch;
  } else {
    s = gemm_seconds(r, g.m, g.k, g.n, batch) + gemm_seconds(r, g.k, g.n, g.m, batch);
    p.flops += 4 * g.m * g.n * g.k * batch;
  }
  p.compute_s += s;
  p.gemm_s += s;
}

void add_memory(PassCost& p, const DeviceRates& r, double bytes) {
  p.compute_s += memory_seconds(r, bytes);
}


double fp8_scale_bytes_per_element(Fp8Recipe recipe) {
  switch (recipe) {
    case Fp8Recipe::tensorwise: return 0.0;
    case Fp8Recipe::blockwise: return 4.0 / 128.0;
    case Fp8Recipe::mxfp8: return 1.0 / 32.0;
  }
  return 0.0;
}

// FP8 recipes (Transformer Engine; Micikevicius et al. 2022) run only the linear layers in fp8:
// attention and the LM head stay in 16-bit, so they use the 16-bit rates.
DeviceRates half_precision_rates(const TrainSetup& setup, const TrainConfig& c,
                                 const DeviceRates& r) {
  if (!is_fp8(c.precision)) return r;
  const Precision half = setup.bf16 ? Precision::bf16 : Precision::fp16;
  return device_rates(setup.ceilings(half), r.kernel_overhead_s,
                      setup.params.gemm_in_situ_fraction);
}

// FP8 casts around a linear layer (Transformer Engine): forward casts the input (read 2, write
// 1 B per element) and the weight with a transposed copy for backward (read 2, write 2);
// backward casts the output gradient with its transpose (read 2, write 2) and transposes the
// saved fp8 input for the weight gradient (read 1, write 1).
// Block-scaled recipes also write one scale per block: an fp32 scale per 1 x 128 tile (and per
// 128 x 128 weight block, negligible) for DeepSeek's recipe, an E8M0 byte per 32 for MXFP8.
void add_fp8_casts(PassCost& p, const DeviceRates& r, double m, double n, double k, bool bwd,
                   double batch, Fp8Recipe recipe) {
  const double scales = fp8_scale_bytes_per_element(recipe);
  if (!bwd) {
    add_memory(p, r, (3 * m * k + 4 * k * n + scales * (m * k + 2 * k * n)) * batch);
  } else {
    add_memory(p, r, (4 * m * n + 2 * m * k + scales * (2 * m * n + m * k)) * batch);
  }
}

}  // namespace

LayerCost layer_cost(const TrainSetup& setup, const TrainConfig& c, const DeviceRates& r,
                     const comm::Cluster& cl, bool moe_layer) {
  auto collective = [&](const comm::Cluster& cl_, comm::Collective op, double bytes,
                        comm::Group g) { return setup.collectives->seconds(cl_, op, bytes, g); };
  const LayerShape& s = setup.shape;
  const TrainParameters& prm = setup.params;
  const double t = c.tp;
  const double b = double(c.micro_batch);
  const double seq_local = double(c.seq) / c.cp;
  const double T = b * seq_local;  // tokens this rank processes
  const double h = s.hidden;
  const double rep = c.sequence_parallel ? 1.0 / t : 1.0;
  const double mask = c.dropout ? 1.0 : 0.0;
  const bool rope = setup.model.position == PositionKind::rope;
  const double heads_local = s.heads / t;
  const double unfused = c.fused_elementwise ? 1.0 : prm.unfused_elementwise_factor;
  const DeviceRates half = half_precision_rates(setup, c, r);
  const bool fp8 = is_fp8(c.precision);
  // FlashAttention rates: FA2 is not Hopper-native (Hopper and later run it at a lower fraction).
  const bool hopper_or_later = setup.gpu.arch.rfind("Hopper", 0) == 0 ||
                               setup.gpu.arch.rfind("Blackwell", 0) == 0;
  double flash_fwd = prm.flash2_forward_fraction, flash_bwd = prm.flash2_backward_fraction;
  if (c.flash_attention_version <= 1) {
    flash_fwd = hopper_or_later ? prm.flash1_hopper_forward_fraction : prm.flash1_forward_fraction;
    flash_bwd =
        hopper_or_later ? prm.flash1_hopper_backward_fraction : prm.flash1_backward_fraction;
  } else if (hopper_or_later) {
    flash_fwd = c.flash_attention_version >= 3 ? prm.flash3_forward_fraction
                                               : prm.flash2_hopper_forward_fraction;
    flash_bwd = c.flash_attention_version >= 3 ? prm.flash3_backward_fraction
                                               : prm.flash2_hopper_backward_fraction;
  }

  LayerCost lc;
  for (int pass = 0; pass < 2; ++pass) {
    const bool bwd = pass == 1;
    PassCost p;
    // Element-wise traffic per element: forward reads + writes; backward reads inputs and output
    // gradients and writes input gradients (about 1.5x the forward bytes).
    const double ew = (bwd ? 1.5 : 1.0) * unfused;
    auto linear = [&](Gemm g, double batch = 1.0) {
      add_gemm(p, r, g, bwd, batch);
      if (fp8) add_fp8_casts(p, r, g.m, g.n, g.k, bwd, batch, c.fp8_recipe);
    };
    // --- attention block
    add_memory(p, r, ew * (4 * T * h * rep));                       // LayerNorm 1
    linear({T, (s.q_width + 2 * s.kv_width) / t, h});  // QKV projection
    if (rope) add_memory(p, r, ew * 4 * T * (s.q_width + s.kv_width) / t);
    PassCost attn;
    if (c.flash_attention) {
      // Fused causal attention: only the unmasked half of the s x s tiles is computed (Dao 2023).
      const double fwd_flops = 4.0 * b * seq_local * double(c.seq) * (s.q_width / t) * 0.5;
      const double flops = bwd ? 2.5 * fwd_flops : fwd_flops;  // backward: 5 matmuls vs 2
      // The FlashAttention fractions are short-benchmark figures: the sustained clock scales them.
      const double frac = (bwd ? flash_bwd : flash_fwd) * half.sustained_compute_fraction;
      attn.compute_s = flops / (half.matmul_peak * frac) + r.kernel_overhead_s;
      attn.flops = flops;
    } else {
      // Unfused (Megatron 2021): batched QK^T and AV over b x a/t heads, scores materialised.
      const double batch = b * heads_local;
      add_gemm(attn, half, {seq_local, double(c.seq), s.head_dim}, bwd, batch);
      add_gemm(attn, half, {seq_local, s.head_dim, double(c.seq)}, bwd, batch);
      const double scores = batch * seq_local * double(c.seq);
      // Scale-mask-softmax (read 2 + write 2 B; backward read y, dy, write dx) and dropout
      // (read 2, write 2 and a 1-byte mask; backward read dy and mask, write dx).
      add_memory(attn, r, scores * (bwd ? 6.0 : 4.0));
      if (c.dropout) add_memory(attn, r, scores * (bwd ? 5.0 : 5.0));
    }
    attn.attention_s = attn.compute_s;
    p += attn;
    linear({T, h, s.q_width / t});  // output projection
    add_memory(p, r, ew * (6 + mask) * T * h * rep);                // bias-dropout-add
    // --- MLP block
    add_memory(p, r, ew * (4 * T * h * rep));                       // LayerNorm 2
    auto mlp = [&](double tokens, double f, double batch) {
      const double up = (s.mlp_matrices == 3 ? 2.0 : 1.0) * f / t;
      linear({tokens, up, h}, batch);
      // activation: GELU read 2 write 2; SwiGLU read 4 write 2 (per intermediate element)
      add_memory(p, r, ew * (s.mlp_matrices == 3 ? 6.0 : 4.0) * tokens * f / t * batch);
      linear({tokens, h, f / t}, batch);
    };
    if (moe_layer) {
      add_gemm(p, r, {T, s.experts, h}, bwd);                       // router
      add_memory(p, r, ew * 12 * T * s.experts);                    // softmax + top-k (fp32)
      add_memory(p, r, ew * 2 * 4 * T * s.top_k * h);               // permute and unpermute
      // Dropless routing: the busiest EP rank gets moe_imbalance x the mean tokens and sets the
      // pace of the expert GEMMs and of the all-to-all it receives.
      const double imbalance = std::max(1.0, c.moe_imbalance);
      const double local_experts = std::max(1.0, s.experts / c.ep);
      const double tokens_per_expert = T * s.top_k * c.ep / s.experts * imbalance;
      mlp(tokens_per_expert, s.expert_ffn, local_experts);
      if (s.shared_ffn > 0) mlp(T, s.shared_ffn, 1.0);
      // Dispatch and combine all-to-all of the routed tokens: 16-bit, except the forward dispatch
      // of a block-scaled fp8 recipe, which sends fp8 with its scales (DeepSeek-V3 §3.3.4).
      const double dispatch_bytes = !bwd && fp8 && c.fp8_recipe != Fp8Recipe::tensorwise
                                        ? 1.0 + fp8_scale_bytes_per_element(c.fp8_recipe)
                                        : 2.0;
      // With TP, Megatron-Core runs MoE with sequence parallelism: each TP rank dispatches its
      // 1/t of the tokens, and the expert-tensor-parallel group (= TP) all-gathers the routed
      // tokens before the sharded expert GEMMs and reduce-scatters their outputs.
      const double routed = T * s.top_k * h;
      p.ep_comm_s += imbalance * (moe_all_to_all_s(setup, c, cl, dispatch_bytes * routed / t) +
                                  moe_all_to_all_s(setup, c, cl, 2.0 * routed / t));
      if (c.tp > 1)
        p.tp_comm_s +=
            imbalance * (collective(cl, comm::Collective::all_gather, 2.0 * routed, tp_group(c)) +
                         collective(cl, comm::Collective::reduce_scatter, 2.0 * routed, tp_group(c)));
    } else {
      mlp(T, s.ffn, 1.0);
    }
    add_memory(p, r, ew * (6 + mask) * T * h * rep);                // bias-dropout-add
    // --- TP collectives: two per pass (Shoeybi et al. 2019 §3, "f" and "g" operators); with SP an
    // all-gather + reduce-scatter pair of the same volume replaces each all-reduce (Korthikanti §4.2.2).
    const double act_bytes = 2 * T * h;
    if (c.tp > 1) {
      if (c.sequence_parallel) {
        p.tp_comm_s += 2 * (collective(cl, comm::Collective::all_gather, act_bytes, tp_group(c)) +
                           collective(cl, comm::Collective::reduce_scatter, act_bytes, tp_group(c)));
      } else {
        p.tp_comm_s += 2 * collective(cl, comm::Collective::all_reduce, act_bytes, tp_group(c));
      }
    }
    // --- CP ring attention: cp-1 hops of this rank's K and V shard (backward also carries dK, dV).
    if (c.cp > 1) {
      const double kv_bytes = 2 * 2 * T * s.kv_width / t * (bwd ? 2.0 : 1.0);
      p.cp_comm_s = (c.cp - 1) * collective(cl, comm::Collective::send_recv, kv_bytes,
                                             cp_neighbours(c));
    }
    (bwd ? lc.backward : lc.forward) = p;
  }
  switch (c.recompute) {
    case Recompute::none: break;
    case Recompute::full: lc.recompute = lc.forward; break;
    case Recompute::selective: {
      // The attention core's forward again (Korthikanti §5): its share of the forward pass.
      PassCost attn;
      attn.compute_s = lc.forward.attention_s;
      attn.attention_s = lc.forward.attention_s;
      attn.flops = c.flash_attention
                       ? 4.0 * b * seq_local * double(c.seq) * (s.q_width / t) * 0.5
                       : 4.0 * b * seq_local * double(c.seq) * (s.q_width / t);
      if (s.mla_latent > 0 && c.flash_attention) {
        // MLA with fused attention keeps nothing of the core to drop: what is recomputed are the
        // up-projections from the latents (DeepSeek-V3 §3.2.3).
        attn = PassCost{};
        add_gemm(attn, r, {T, s.mla_kv_up / t, s.mla_kv_rank}, false);
        if (s.mla_q_up > 0) add_gemm(attn, r, {T, s.mla_q_up / t, s.mla_q_rank}, false);
      }
      lc.recompute = attn;
      break;
    }
  }
  return lc;
}

EdgeCost edge_cost(const TrainSetup& setup, const TrainConfig& c, const DeviceRates& r,
                   const comm::Cluster& cl) {
  auto collective = [&](const comm::Cluster& cl_, comm::Collective op, double bytes,
                        comm::Group g) { return setup.collectives->seconds(cl_, op, bytes, g); };
  const LayerShape& s = setup.shape;
  const double t = c.tp;
  const double T = double(c.micro_batch) * double(c.seq) / c.cp;
  const double h = s.hidden;
  const double rep = c.sequence_parallel ? 1.0 / t : 1.0;
  const double unfused = c.fused_elementwise ? 1.0 : setup.params.unfused_elementwise_factor;
  EdgeCost e;
  // Embedding: gather rows (write 2 T h), vocabulary-parallel so partial sums are all-reduced over
  // TP (Megatron VocabParallelEmbedding); backward scatters gradients (read 2, add into fp32 4).
  add_memory(e.embedding_forward, r, 4 * T * h);
  add_memory(e.embedding_backward, r, 8 * T * h);
  if (c.tp > 1)
    e.embedding_forward.tp_comm_s =
        collective(cl, c.sequence_parallel ? comm::Collective::reduce_scatter
                                           : comm::Collective::all_reduce,
                   2 * T * h, tp_group(c));
  // Head: final norm, LM head GEMM (T x V/t x h), fp32 cross-entropy over V/t logits (read 2,
  // write 4, reduce; backward read 4, write 2).
  add_memory(e.head_forward, r, 4 * T * h * rep);
  const DeviceRates half = half_precision_rates(setup, c, r);  // the head stays 16-bit
  add_gemm(e.head_forward, half, {T, s.vocab / t, h}, false);
  add_memory(e.head_forward, r, unfused * 10 * T * s.vocab / t);
  add_memory(e.head_backward, r, 6 * T * h * rep);
  add_gemm(e.head_backward, half, {T, s.vocab / t, h}, true);
  add_memory(e.head_backward, r, unfused * 8 * T * s.vocab / t);
  if (c.tp > 1) {
    // SP all-gathers the final-norm output before the head; backward reduces its gradient.
    const auto op = c.sequence_parallel ? comm::Collective::all_gather : comm::Collective::all_reduce;
    e.head_forward.tp_comm_s = c.sequence_parallel
                                   ? collective(cl, op, 2 * T * h, tp_group(c))
                                   : 0.0;
    e.head_backward.tp_comm_s =
        collective(cl, c.sequence_parallel ? comm::Collective::reduce_scatter
                                           : comm::Collective::all_reduce,
                   2 * T * h, tp_group(c));
  }
  return e;
}

}  // namespace memwall::train
