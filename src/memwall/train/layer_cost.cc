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
comm::Group ep_group(const TrainConfig& c) { return {c.ep, c.tp, 0}; }

double collective(const comm::Cluster& cl, comm::Collective op, double bytes, comm::Group g) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  return comm::estimate(cl, op, Bytes(bytes), g).time.value();
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

}  // namespace

LayerCost layer_cost(const TrainSetup& setup, const TrainConfig& c, const DeviceRates& r,
                     const comm::Cluster& cl, bool moe_layer) {
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

  LayerCost lc;
  for (int pass = 0; pass < 2; ++pass) {
    const bool bwd = pass == 1;
    PassCost p;
    // Element-wise traffic per element: forward reads + writes; backward reads inputs and output
    // gradients and writes input gradients (about 1.5x the forward bytes).
    const double ew = bwd ? 1.5 : 1.0;
    // --- attention block
    add_memory(p, r, ew * (4 * T * h * rep));                       // LayerNorm 1
    add_gemm(p, r, {T, (s.q_width + 2 * s.kv_width) / t, h}, bwd);  // QKV projection
    if (rope) add_memory(p, r, ew * 4 * T * (s.q_width + s.kv_width) / t);
    PassCost attn;
    if (c.flash_attention) {
      // Fused causal attention: only the unmasked half of the s x s tiles is computed (Dao 2023).
      const double fwd_flops = 4.0 * b * seq_local * double(c.seq) * (s.q_width / t) * 0.5;
      const double flops = bwd ? 2.5 * fwd_flops : fwd_flops;  // backward: 5 matmuls vs 2
      const double frac =
          bwd ? prm.flash_backward_fraction : r.efficiency->attention_compute_fraction;
      attn.compute_s = flops / (r.matmul_peak * frac) + r.kernel_overhead_s;
      attn.flops = flops;
    } else {
      // Unfused (Megatron 2021): batched QK^T and AV over b x a/t heads, scores materialised.
      const double batch = b * heads_local;
      add_gemm(attn, r, {seq_local, double(c.seq), s.head_dim}, bwd, batch);
      add_gemm(attn, r, {seq_local, s.head_dim, double(c.seq)}, bwd, batch);
      const double scores = batch * seq_local * double(c.seq);
      // Scale-mask-softmax (read 2 + write 2 B; backward read y, dy, write dx) and dropout
      // (read 2, write 2 and a 1-byte mask; backward read dy and mask, write dx).
      add_memory(attn, r, scores * (bwd ? 6.0 : 4.0));
      if (c.dropout) add_memory(attn, r, scores * (bwd ? 5.0 : 5.0));
    }
    attn.attention_s = attn.compute_s;
    p += attn;
    add_gemm(p, r, {T, h, s.q_width / t}, bwd);                     // output projection
    add_memory(p, r, ew * (6 + mask) * T * h * rep);                // bias-dropout-add
    // --- MLP block
    add_memory(p, r, ew * (4 * T * h * rep));                       // LayerNorm 2
    auto mlp = [&](double tokens, double f, double batch) {
      const double up = (s.mlp_matrices == 3 ? 2.0 : 1.0) * f / t;
      add_gemm(p, r, {tokens, up, h}, bwd, batch);
      // activation: GELU read 2 write 2; SwiGLU read 4 write 2 (per intermediate element)
      add_memory(p, r, ew * (s.mlp_matrices == 3 ? 6.0 : 4.0) * tokens * f / t * batch);
      add_gemm(p, r, {tokens, h, f / t}, bwd, batch);
    };
    if (moe_layer) {
      add_gemm(p, r, {T, s.experts, h}, bwd);                       // router
      add_memory(p, r, ew * 12 * T * s.experts);                    // softmax + top-k (fp32)
      add_memory(p, r, ew * 2 * 4 * T * s.top_k * h);               // permute and unpermute
      const double local_experts = std::max(1.0, s.experts / c.ep);
      const double tokens_per_expert = T * s.top_k * c.ep / s.experts;
      mlp(tokens_per_expert, s.expert_ffn, local_experts);
      if (s.shared_ffn > 0) mlp(T, s.shared_ffn, 1.0);
      // dispatch + combine all-to-all of the routed tokens (16-bit)
      p.ep_comm_s += 2 * collective(cl, comm::Collective::all_to_all, 2 * T * s.top_k * h,
                                    ep_group(c));
    } else {
      mlp(T, s.ffn, 1.0);
    }
    add_memory(p, r, ew * (6 + mask) * T * h * rep);                // bias-dropout-add
    // --- TP collectives: two per pass (Shoeybi et al. 2019 §3, "f" and "g" operators); with SP an
    // all-gather + reduce-scatter pair of the same volume replaces each all-reduce (Korthikanti §4.2.2).
    const double act_bytes = 2 * T * h;
    if (c.tp > 1) {
      if (c.sequence_parallel) {
        p.tp_comm_s = 2 * (collective(cl, comm::Collective::all_gather, act_bytes, tp_group(c)) +
                           collective(cl, comm::Collective::reduce_scatter, act_bytes, tp_group(c)));
      } else {
        p.tp_comm_s = 2 * collective(cl, comm::Collective::all_reduce, act_bytes, tp_group(c));
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
      lc.recompute = attn;
      break;
    }
  }
  return lc;
}

EdgeCost edge_cost(const TrainSetup& setup, const TrainConfig& c, const DeviceRates& r,
                   const comm::Cluster& cl) {
  const LayerShape& s = setup.shape;
  const double t = c.tp;
  const double T = double(c.micro_batch) * double(c.seq) / c.cp;
  const double h = s.hidden;
  const double rep = c.sequence_parallel ? 1.0 / t : 1.0;
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
  add_gemm(e.head_forward, r, {T, s.vocab / t, h}, false);
  add_memory(e.head_forward, r, 10 * T * s.vocab / t);
  add_memory(e.head_backward, r, 6 * T * h * rep);
  add_gemm(e.head_backward, r, {T, s.vocab / t, h}, true);
  add_memory(e.head_backward, r, 8 * T * s.vocab / t);
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
