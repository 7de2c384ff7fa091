#include "memwall/perf/graph.h"

#include <gtest/gtest.h>

#include "memwall/perf/perf_test_fixtures.h"

namespace memwall::perf {
namespace {

double sum_flops(const std::vector<Operator>& ops, bool gemm, bool attention) {
  double f = 0;
  for (const auto& op : ops) {
    const bool is_attn =
        op.cost.kind == OpKind::attention_decode || op.cost.kind == OpKind::attention_prefill;
    if ((gemm && op.cost.kind == OpKind::gemm) || (attention && is_attn))
      f += op.repeat * op.cost.flops.value();
  }
  return f;
}

const Operator* find(const std::vector<Operator>& ops, std::string_view name) {
  for (const auto& op : ops)
    if (op.name == name) return &op;
  return nullptr;
}

TEST(Graph, KvElementsPerTokenAreExact) {
  // Llama-3.1-70B: 2 x 8 KV heads x 128 x 80 layers x 2 B = 327,680 B per token at bf16.
  EXPECT_EQ(kv_elements_per_token_per_layer(testing::llama31_70b()) * 80 * 2, 327680);
  // Llama-2-7B (MHA): 2 x 32 x 128 x 32 layers x 2 B = 524,288 B.
  EXPECT_EQ(kv_elements_per_token_per_layer(testing::llama2_7b()) * 32 * 2, 524288);
  // Mixtral-8x7B: 2 x 8 x 128 x 32 x 2 = 131,072 B.
  EXPECT_EQ(kv_elements_per_token_per_layer(testing::mixtral_8x7b()) * 32 * 2, 131072);
  // DeepSeek-V3 MLA: (512 + 64) x 61 layers x 2 B = 70,272 B.
  EXPECT_EQ(kv_elements_per_token_per_layer(testing::deepseek_v3()) * 61 * 2, 70272);
  EXPECT_EQ(kv_heads_per_device(testing::llama31_70b(), 4), 2);
  EXPECT_EQ(kv_heads_per_device(testing::llama31_70b(), 16), 1);  // replicated
}

TEST(Graph, DistinctExperts) {
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 1), 2.0);
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 2), 8.0 * (1 - 0.75 * 0.75));
  EXPECT_NEAR(expected_distinct_experts(256, 8, 1e4), 256.0, 1e-9);
  EXPECT_DOUBLE_EQ(expected_distinct_experts(256, 8, 0), 0.0);
  EXPECT_DOUBLE_EQ(causal_pairs(4, 0), 10.0);
  EXPECT_DOUBLE_EQ(causal_pairs(2, 10), 23.0);
}

TEST(Graph, DecodeFlopsMatchTwoTimesParametersPlusAttention) {
  const ModelSpec m = testing::llama2_7b();
  const double h = double(m.hidden), L = m.layers, C = 1000, ffn = double(m.ffn);
  StepTokens t;
  t.decode_sequences = 1;
  t.decode_context_tokens = 1000;
  const auto ops = build_step_graph(m, ShardPlan{}, t);
  // Matmul parameters: per layer QKV + O (4 h^2 for MHA) + gated MLP (3 h ffn); plus the LM head.
  const double params = L * (4.0 * h * h + 3.0 * h * ffn) + double(m.vocab) * h;
  EXPECT_DOUBLE_EQ(sum_flops(ops, true, false), 2.0 * params);
  // Attention: QK^T and PV, 2 x 2 x C x heads x head_dim per layer = 4 C h L.
  EXPECT_DOUBLE_EQ(sum_flops(ops, false, true), 4.0 * C * h * L);
  // Weight bytes read once per step: params x 2 B.
  double weights = 0;
  for (const auto& op : ops) weights += op.repeat * op.weight_bytes.value();
  EXPECT_DOUBLE_EQ(weights, 2.0 * params);
  // The decode attention reads the whole cache: C x 524,288 B over all layers.
  const Operator* attn = find(ops, "attention_decode");
  ASSERT_NE(attn, nullptr);
  EXPECT_DOUBLE_EQ(attn->repeat * attn->kv_bytes.value(), C * 524288.0);
}

TEST(Graph, PrefillAttentionAndTensorParallelShards) {
  const ModelSpec m = testing::llama31_70b();
  StepTokens t;
  t.prefill_tokens = 2048;
  t.prefill_sequences = 1;
  t.prefill_attended_pairs = causal_pairs(2048, 0);
  ShardPlan s;
  s.tp = 4;
  const auto ops = build_step_graph(m, s, t);
  // Per device: 2 x pairs x (64/4 heads) x (128 + 128) per layer.
  EXPECT_DOUBLE_EQ(sum_flops(ops, false, true), 2.0 * causal_pairs(2048, 0) * 16 * 256 * 80);
  const Operator* qkv = find(ops, "qkv_proj");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->cost.gemm.n, (16 + 2 * 2) * 128);
  EXPECT_EQ(qkv->cost.gemm.m, 2048);
  const Operator* ar = find(ops, "attn_all_reduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_DOUBLE_EQ(ar->message_bytes.value(), 2048.0 * 8192 * 2);
  // LM head only for the last prompt token.
  EXPECT_EQ(find(ops, "lm_head")->cost.gemm.m, 1);
  EXPECT_EQ(find(ops, "lm_head")->cost.gemm.n, 128256 / 4);
}

TEST(Graph, MoeReadsOnlyTouchedExperts) {
  const ModelSpec m = testing::mixtral_8x7b();
  StepTokens one;
  one.decode_sequences = 1;
  one.decode_context_tokens = 100;
  const auto ops = build_step_graph(m, ShardPlan{}, one);
  const Operator* up = find(ops, "moe_expert_up_gate");
  ASSERT_NE(up, nullptr);
  // One token touches top_k = 2 experts: 2 x (2 x 14336) x 4096 x 2 B per layer.
  EXPECT_DOUBLE_EQ(up->weight_bytes.value(), 2.0 * 2 * 14336 * 4096 * 2);
  StepTokens many = one;
  many.decode_sequences = 64;
  const auto ops64 = build_step_graph(m, ShardPlan{}, many);
  EXPECT_NEAR(find(ops64, "moe_expert_up_gate")->weight_bytes.value(),
              expected_distinct_experts(8, 2, 64) * 2 * 14336 * 4096 * 2, 1e-3);
  // FLOPs follow the routed assignments, not the experts touched: 64 x 2 rows.
  EXPECT_DOUBLE_EQ(find(ops64, "moe_expert_up_gate")->cost.flops.value(),
                   2.0 * 128 * 2 * 14336 * 4096);
}

TEST(Graph, MlaProjections) {
  const ModelSpec m = testing::deepseek_v3();
  StepTokens t;
  t.decode_sequences = 1;
  t.decode_context_tokens = 10;
  const auto ops = build_step_graph(m, ShardPlan{}, t);
  EXPECT_EQ(find(ops, "kv_down_proj")->cost.gemm.n, 512 + 64);
  // Decode absorbs the latent up-projection into the query (W_UK) and the output (W_UV): two
  // batched GEMMs with the FLOPs and weights of prefill's single kv_up_proj.
  EXPECT_EQ(find(ops, "kv_up_proj"), nullptr);
  EXPECT_DOUBLE_EQ(find(ops, "q_absorb_uk")->cost.flops.value() +
                       find(ops, "out_absorb_uv")->cost.flops.value(),
                   2.0 * 128 * (128 + 128) * 512);
  StepTokens prefill;
  prefill.prefill_tokens = 16;
  prefill.prefill_sequences = 1;
  prefill.prefill_attended_pairs = causal_pairs(16, 0);
  EXPECT_EQ(find(build_step_graph(m, ShardPlan{}, prefill), "kv_up_proj")->cost.gemm.n,
            128 * (128 + 128));
  EXPECT_EQ(find(ops, "q_up_proj")->cost.gemm.n, 128 * (128 + 64));
  // Absorbed decode attention: QK over 576, PV over 512 per head.
  EXPECT_DOUBLE_EQ(find(ops, "attention_decode")->cost.flops.value(), 2.0 * 10 * 128 * (576 + 512));
  EXPECT_DOUBLE_EQ(find(ops, "moe_router")->repeat, 58.0);
  EXPECT_DOUBLE_EQ(find(ops, "mlp_down")->repeat, 3.0);
}

}  // namespace
}  // namespace memwall::perf
