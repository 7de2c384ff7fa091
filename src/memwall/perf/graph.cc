#include "memwall/perf/graph.h"

#include <algorithm>
#include <cmath>

namespace memwall::perf {
namespace {

// Builds operators for one device; sizes in elements, converted with the plan's precisions.
class Builder {
 public:
  Builder(const ShardPlan& s, std::vector<Operator>& ops)
      : s_(s), ops_(ops),
        w_(s.weight_bytes_per_element > 0 ? s.weight_bytes_per_element
                                          : bytes_per_element(s.weight)),
        a_(bytes_per_element(s.activation)),
        kv_(bytes_per_element(s.kv)) {}

  // A GEMM with `rows` token rows against a k x n weight; `groups` weight matrices (experts)
  // share the rows evenly. Fractional groups are expectations (distinct experts touched).
  void gemm(std::string_view name, double rows, int64_t n, int64_t k, double repeat,
            double groups = 1.0, double weight_bytes_per_element = 0) {
    if (rows <= 0 || n <= 0 || k <= 0 || repeat <= 0 || groups <= 0) return;
    if (s_.fp8_activation_quant_kernel && weight_bytes_per_element == 0 &&
        (s_.activation == Precision::fp8_e4m3 || s_.activation == Precision::fp8_e5m2))
      elementwise("fp8_act_quant", rows * double(k), rows * double(k), repeat);
    Operator op = make(name, OpKind::gemm, repeat);
    op.element = s_.weight;
    const double rows_per_group = rows / groups;
    op.cost.gemm = {std::max<int64_t>(1, static_cast<int64_t>(std::ceil(rows_per_group))), n, k,
                    std::max<int64_t>(1, static_cast<int64_t>(std::ceil(groups - 1e-9)))};
    op.cost.flops = Flops(2.0 * rows * double(n) * double(k));
    op.weight_bytes = Bytes(groups * double(n) * double(k) *
                            (weight_bytes_per_element > 0 ? weight_bytes_per_element : w_));
    op.activation_bytes = Bytes(rows * double(k) * a_);
    op.cost.bytes_written = Bytes(rows * double(n) * a_);
    push(op);
  }

  // A memory-bound vector kernel reading `read` and writing `written` activation elements.
  void elementwise(std::string_view name, double read, double written, double repeat,
                   bool fusable = false, Bytes weights = Bytes(0)) {
    if (repeat <= 0 || (read <= 0 && written <= 0)) return;
    if (fusable && s_.fused_elementwise) return;  // folded into a neighbouring kernel
    Operator op = make(name, OpKind::elementwise, repeat);
    op.element = s_.activation;
    op.activation_bytes = Bytes(read * a_);
    op.weight_bytes = weights;
    op.cost.bytes_written = Bytes(written * a_);
    op.cost.flops = Flops(2.0 * std::max(read, written));
    push(op);
  }

  void attention(std::string_view name, OpKind kind, double pairs, int heads, int qk_dim,
                 int v_dim, double queries, double kv_tokens_read, double kv_tokens_written,
                 int64_t kv_elements_per_token, double repeat) {
    if (repeat <= 0 || queries <= 0) return;
    Operator op = make(name, kind, repeat);
    op.element = s_.kv;
    // QK^T and PV: 2 FLOPs per multiply-add, per attended (query, key) pair and head.
    op.cost.flops = Flops(2.0 * pairs * heads * double(qk_dim + v_dim));
    op.activation_bytes = Bytes(queries * heads * double(qk_dim) * a_);
    op.kv_bytes = Bytes(kv_tokens_read * double(kv_elements_per_token) * kv_);
    op.cost.bytes_written = Bytes(queries * heads * double(v_dim) * a_ +
                                  kv_tokens_written * double(kv_elements_per_token) * kv_);
    push(op);
  }

  // A fixed latency per repeat: no bytes, no FLOPs, no launch of its own (already counted).
  void latency(std::string_view name, Seconds t, double repeat) {
    if (repeat <= 0 || t.value() <= 0) return;
    Operator op = make(name, OpKind::elementwise, repeat);
    op.cost.kernels = 0;
    op.cost.fixed_time = t;
    push(op);
  }

  void comm(std::string_view name, CommPattern pattern, double elements, double repeat) {
    if (repeat <= 0 || elements <= 0) return;
    Operator op = make(name, OpKind::communication, repeat);
    op.element = s_.activation;
    op.comm = pattern;
    op.message_bytes = Bytes(elements * a_);
    push(op);
  }

 private:
  Operator make(std::string_view name, OpKind kind, double repeat) const {
    Operator op;
    op.name = name;
    op.cost.kind = kind;
    op.repeat = repeat;
    return op;
  }
  void push(Operator& op) {
    op.cost.bytes_read = op.weight_bytes + op.activation_bytes + op.kv_bytes;
    ops_.push_back(op);
  }

  const ShardPlan& s_;
  std::vector<Operator>& ops_;
  double w_, a_, kv_;
};

// Expected number of distinct experts on the busiest of `ep` expert-parallel ranks when `tokens`
// tokens each pick `top_k` of `experts` uniformly. Each expert is touched with probability
// p = 1 - (1 - k/E)^T (the coverage behind expected_distinct_experts); treating experts as
// independent, a rank's count is Binomial(E/ep, p) and the expected maximum of ep independent
// counts is sum_{m>=0} (1 - F(m)^ep) (order statistics, e.g. David & Nagaraja, "Order
// Statistics", 3rd ed., eq. 4.2.1 via E[X] = sum P(X > m)). With ep = 1 it is the mean E p.
double expected_busiest_rank_experts(int experts, int top_k, double tokens, int ep) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0.0;
  const int per_rank = experts / std::max(1, ep);
  const double E = experts, k = std::min<double>(top_k, experts);
  const double p = 1.0 - std::pow(1.0 - k / E, tokens);
  if (ep <= 1 || p >= 1.0 - 1e-12) return per_rank * p;
  double cdf = 0, pmf = std::pow(1.0 - p, per_rank), expected_max = 0;
  for (int m = 0; m < per_rank; ++m) {
    cdf += pmf;
    expected_max += 1.0 - std::pow(std::min(1.0, cdf), ep);
    pmf *= double(per_rank - m) / double(m + 1) * p / (1.0 - p);  // Binomial pmf recurrence
  }
  return expected_max;
}

}  // namespace

double causal_pairs(double new_tokens, double cached) {
  return new_tokens * cached + new_tokens * (new_tokens + 1.0) / 2.0;
}

double expected_distinct_experts(int experts, int top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0.0;
  const double E = experts, k = std::min<double>(top_k, experts);
  return E * (1.0 - std::pow(1.0 - k / E, tokens));
}

int64_t kv_elements_per_token_per_layer(const ModelSpec& m) {
  if (m.attention == AttentionKind::mla) return int64_t(m.mla.kv_lora_rank) + m.mla.qk_rope_head_dim;
  return 2LL * m.kv_heads * m.head_dim;
}

int kv_heads_per_device(const ModelSpec& m, int tp) {
  if (tp <= 0) return m.kv_heads;
  return std::max(1, m.kv_heads / tp);
}

std::vector<Operator> build_step_graph(const ModelSpec& m, const ShardPlan& s,
                                       const StepTokens& t) {
  std::vector<Operator> ops;
  ops.reserve(40);
  build_step_graph(m, s, t, ops);
  return ops;
}

void build_step_graph(const ModelSpec& m, const ShardPlan& s, const StepTokens& t,
                      std::vector<Operator>& ops) {
  ops.clear();
  Builder b(s, ops);
  const int tp = std::max(1, s.tp);
  const double T = double(t.prefill_tokens) + double(t.decode_sequences);  // rows this step
  if (T <= 0) return;
  const double Tp = double(t.prefill_tokens), Sd = double(t.decode_sequences);
  const int64_t h = m.hidden;
  const int L = m.layers;
  int moe_layers = 0;
  for (int l = 0; l < L; ++l) moe_layers += m.is_moe_layer(l) ? 1 : 0;
  const double dense_layers = double(L - moe_layers);
  const double Lr = double(L);

  // Embedding gather (Vaswani et al. 2017 §3.4): one row per token.
  b.elementwise("embedding", T * double(h), T * double(h), 1.0);

  // Attention block.
  b.elementwise("attn_norm", T * double(h), T * double(h), Lr);
  const int heads = m.heads / tp;
  int qk_dim = m.head_dim, v_dim = m.head_dim;
  int64_t kv_per_token = 0;  // KV elements one device stores per token per layer
  if (m.attention == AttentionKind::mla) {
    const auto& a = m.mla;
    qk_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    v_dim = a.v_head_dim;
    kv_per_token = kv_elements_per_token_per_layer(m);  // latent replicated on every TP rank
    // DeepSeek-V2 §2.1: q down/up (or direct q), joint KV down-projection (+ rope key), KV up.
    // The compressed latents are RMS-normalised before their up-projections (q_a_layernorm,
    // kv_a_layernorm in the reference modeling_deepseek.py): one kernel each.
    if (a.q_lora_rank > 0) {
      b.gemm("q_down_proj", T, a.q_lora_rank, h, Lr);
      b.elementwise("q_latent_norm", T * a.q_lora_rank, T * a.q_lora_rank, Lr);
      b.gemm("q_up_proj", T, int64_t(heads) * qk_dim, a.q_lora_rank, Lr);
    } else {
      b.gemm("q_proj", T, int64_t(heads) * qk_dim, h, Lr);
    }
    b.gemm("kv_down_proj", T, int64_t(a.kv_lora_rank) + a.qk_rope_head_dim, h, Lr);
    b.elementwise("kv_latent_norm", T * a.kv_lora_rank, T * a.kv_lora_rank, Lr);
    // Up-projection of the latent: applied to new tokens in prefill (one GEMM for K and V), absorbed
    // in decode into the query (W_UK, before attention) and the output (W_UV, after it): two
    // batched GEMMs with the same FLOPs per token in all.
    if (Tp > 0)
      b.gemm("kv_up_proj", Tp, int64_t(heads) * (a.qk_nope_head_dim + a.v_head_dim),
             a.kv_lora_rank, Lr);
    if (Sd > 0) {
      b.gemm("q_absorb_uk", Sd, int64_t(heads) * a.kv_lora_rank, a.qk_nope_head_dim, Lr);
      b.gemm("out_absorb_uv", Sd, int64_t(heads) * a.v_head_dim, a.kv_lora_rank, Lr);
    }
  } else {
    const int kvh = kv_heads_per_device(m, tp);
    kv_per_token = 2LL * kvh * m.head_dim;
    b.gemm("qkv_proj", T, int64_t(heads + 2 * kvh) * m.head_dim, h, Lr);
  }
  if (m.position == PositionKind::rope)
    b.elementwise("rotary", T * heads * qk_dim + T * double(kv_per_token) / 2,
                  T * heads * qk_dim + T * double(kv_per_token) / 2, Lr, true);
  // FlashAttention (Dao et al. 2022, Alg. 1): S = QK^T stays on chip; HBM traffic is Q, O, and
  // K/V read once per 128-row query block, plus this step's new K/V written to the cache.
  constexpr double kQueryBlock = 128.0;
  if (Tp > 0)
    b.attention("attention_prefill", OpKind::attention_prefill, t.prefill_attended_pairs, heads,
                qk_dim, v_dim, Tp, t.prefill_attended_pairs / kQueryBlock + Tp, Tp, kv_per_token,
                Lr);
  if (Sd > 0) {
    // Decode reads each sequence's whole cache once (FlashDecoding / paged attention). With MLA
    // the query is absorbed into the latent space: QK over kv_lora + rope, PV over kv_lora.
    const int dq = m.attention == AttentionKind::mla ? int(kv_per_token) : qk_dim;
    const int dv = m.attention == AttentionKind::mla ? m.mla.kv_lora_rank : v_dim;
    // Kernels that are not GQA-aware load each KV head once per query head of its group; some
    // are only in iterations that also carry prompt chunks (EngineProfile::
    // mixed_step_gqa_unshared_archs).
    const double group = double(heads) / kv_heads_per_device(m, tp);
    const bool shared = Tp > 0 ? s.gqa_shared_kv_loads_mixed : s.gqa_shared_kv_loads;
    double dram_share = s.gqa_reread_dram_share;
    if (Tp > 0 && s.gqa_shared_kv_loads && !shared && s.compute_units > 0) {
      // FlashAttention-2's forward grid is (query blocks, sequences, heads), heads slowest
      // (flash_fwd_launch_template.h, run_flash_fwd): the query heads of one group reach a
      // sequence's K/V `apart` CTAs apart, every sequence padded to the batch's query blocks
      // (taken at the step's mean prompt chunk: a lower bound when chunks differ).
      // Re-reads within the CTAs the device holds at once hit L2; the rest reach DRAM. Two CTAs
      // per SM: the hdim-128 kernel uses 128 threads and 64 KB of shared memory (A100: 164 KB).
      constexpr double kFa2CtasPerSm = 2.0;
      const double q_blocks = std::ceil(Tp / std::max(1, t.prefill_sequences) / kQueryBlock);
      const double apart = q_blocks * (double(t.prefill_sequences) + Sd);
      dram_share = std::clamp(1.0 - double(s.compute_units) * kFa2CtasPerSm / apart, 0.0, 1.0);
    }
    const double reloads = (m.attention != AttentionKind::mla && !shared)
                               ? 1.0 + (group - 1.0) * dram_share
                               : 1.0;
    b.attention("attention_decode", OpKind::attention_decode, double(t.decode_context_tokens),
                heads, dq, dv, Sd, double(t.decode_context_tokens) * reloads, Sd, kv_per_token,
                Lr);
  }
  b.gemm("o_proj", T, h, int64_t(heads) * v_dim, Lr);
  if (tp > 1) b.comm("attn_all_reduce", CommPattern::tp_all_reduce, T * double(h), Lr);
  b.elementwise("attn_residual", 2 * T * double(h), T * double(h), Lr, true);
  b.elementwise("mlp_norm", T * double(h), T * double(h), Lr);

  // MLP (dense layers): gated = SwiGLU (Shazeer 2020) with gate and up fused into one GEMM.
  const bool gated = m.mlp == MlpKind::gated;
  auto mlp = [&](std::string_view up, std::string_view act, std::string_view down, int64_t ffn,
                 int split, double rows, double repeat, double groups) {
    const int64_t f = ffn / split;
    b.gemm(up, rows, (gated ? 2 : 1) * f, h, repeat, groups);
    b.elementwise(act, rows * double((gated ? 2 : 1) * f), rows * double(f), repeat, true);
    b.gemm(down, rows, h, f, repeat, groups);
  };
  if (dense_layers > 0) {
    mlp("mlp_up_gate", "mlp_act", "mlp_down", m.ffn, tp, T, dense_layers, 1.0);
    if (tp > 1) b.comm("mlp_all_reduce", CommPattern::tp_all_reduce, T * double(h), dense_layers);
  }
  if (moe_layers > 0) {
    const double ml = double(moe_layers);
    const auto& e = m.moe;
    const int ep = std::max(1, s.ep);
    b.gemm("moe_router", T, e.experts, h, ml);
    b.elementwise("moe_topk_permute", T * double(h), T * e.top_k * double(h) / ep, ml);
    // Experts the busiest expert-parallel rank holds that the step's tokens touch (the other
    // ranks wait for it at the combine), and its token rows. A small batch spreads its few
    // experts unevenly: batch 1 of DeepSeek-V3 on EP 8 touches 8 experts, ~1 per rank on
    // average but ~2.5 on the busiest.
    const double mean_touched = expected_distinct_experts(e.experts, e.top_k, T) / ep;
    const double touched = std::max(mean_touched,
                                    expected_busiest_rank_experts(e.experts, e.top_k, T, ep));
    const double rows = T * e.top_k / ep * (mean_touched > 0 ? touched / mean_touched : 1.0);
    mlp("moe_expert_up_gate", "moe_expert_act", "moe_expert_down", e.expert_ffn, tp / ep, rows,
        ml, std::max(touched, 1e-9));
    b.elementwise("moe_unpermute", T * e.top_k * double(h) / ep, T * double(h), ml);
    // Engine versions whose routed-expert path is not yet fused and tuned (SGLang 0.4.1's
    // DeepSeek-V3 path: data/engines/sglang.json) add a latency per MoE layer that does not
    // scale with the batch: one Triton fused_moe call on DeepSeek-V3 shapes takes 0.33-0.37 ms at
    // batch 1-18 (sgl-project/sglang PR #7876); docs/infer.md "Engine profiles".
    b.latency("moe_path_overhead", s.moe_layer_overhead, ml);
    if (e.shared_experts > 0)
      mlp("shared_expert_up_gate", "shared_expert_act", "shared_expert_down",
          int64_t(e.shared_experts) * e.shared_expert_ffn, tp, T, ml, 1.0);
    if (tp > 1) b.comm("moe_all_reduce", CommPattern::tp_all_reduce, T * double(h), ml);
  }
  b.elementwise("mlp_residual", 2 * T * double(h), T * double(h), Lr, true);

  // Pipeline: activations cross pp - 1 stage boundaries.
  if (s.pp > 1) b.comm("pp_send_recv", CommPattern::pp_send_recv, T * double(h), s.pp - 1);

  // Head: logits only for rows that produce a token (decode rows, last prompt token of each
  // prefill sequence).
  const double rows_out = Sd + double(t.prefill_sequences);
  b.elementwise("final_norm", T * double(h), T * double(h), 1.0);
  b.gemm("lm_head", rows_out, m.vocab / tp, h, 1.0, 1.0, s.head_bytes_per_element);
  if (tp > 1) b.comm("logits_all_gather", CommPattern::tp_all_gather, rows_out * double(m.vocab), 1.0);
  b.elementwise("sampling", rows_out * double(m.vocab), rows_out, 1.0);
}

Flops replica_flops(const std::vector<Operator>& ops, int tp) {
  double f = 0;
  for (const auto& op : ops) f += op.repeat * op.cost.flops.value();
  return Flops(f * std::max(1, tp));
}

}  // namespace memwall::perf
