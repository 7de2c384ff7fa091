#include "memwall/train/counts.h"

#include <gtest/gtest.h>

#include "memwall/train/test_hardware.h"

namespace memwall::train {
namespace {

using testing::gpt;

TEST(TrainCounts, Gpt3ParametersMatchClosedForm) {
  // N = L (12h^2 + 13h) + V h + s h + 2h (Ultra-Scale Playbook; Narayanan et al. 2021 §5.1).
  const double h = 12288, L = 96, V = 50257, s = 2048;
  const ParameterCounts c = count_parameters(layer_shape(gpt(96, 12288, 96, 50257, 2048)));
  EXPECT_DOUBLE_EQ(c.total, L * (12 * h * h + 13 * h) + V * h + s * h + 2 * h);
  EXPECT_NEAR(c.total / 1e9, 174.6, 0.1);
  EXPECT_DOUBLE_EQ(c.active, c.total);
}

TEST(TrainCounts, LlamaParametersMatchClosedForm) {
  // Llama-2-7B: L (2h^2 + 2hgd + 3hf + 2h) + 2Vh + h = 6.74 B (Touvron et al. 2023).
  ModelSpec m;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = m.kv_heads = 32;
  m.head_dim = 128;
  m.ffn = 11008;
  m.vocab = 32000;
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rope;
  const ParameterCounts c = count_parameters(layer_shape(m));
  const double h = 4096, f = 11008;
  EXPECT_DOUBLE_EQ(c.total, 32 * (2 * h * h + 2 * h * h + 3 * h * f + 2 * h) + 2 * 32000 * h + h);
  EXPECT_NEAR(c.total / 1e9, 6.74, 0.01);
}

TEST(TrainCounts, ModelFlopsAreNarayananEquation3) {
  // F per iteration = 72 B s L h^2 (1 + s/6h + V/12Lh); with full recomputation
  // 96 B s L h^2 (1 + s/6h + V/16Lh) (Narayanan et al. 2021 eq. 3 and §5.1).
  const double h = 12288, L = 96, V = 51200, s = 2048;
  const LayerShape shape = layer_shape(gpt(96, 12288, 96, 51200, 2048));
  const double model = model_flops_per_token(shape, 2048);
  EXPECT_NEAR(model / (72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h))), 1.0, 1e-12);
  const double hardware = model + recompute_flops_per_token(shape, 2048, Recompute::full);
  EXPECT_NEAR(hardware / (96 * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))), 1.0, 1e-12);
  // Selective recomputation adds only the attention core forward, 4 s h per layer and token.
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(shape, 2048, Recompute::selective), L * 4 * s * h);
  EXPECT_EQ(recompute_flops_per_token(shape, 2048, Recompute::none), 0.0);
}

TEST(TrainCounts, MoeCountsActiveExpertsOnly) {
  // Mixtral-8x7B style: 8 experts, top-2; active = all but 6 of the 8 experts per layer.
  ModelSpec m;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  m.vocab = 32000;
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_ffn = 14336;
  const LayerShape s = layer_shape(m);
  const ParameterCounts c = count_parameters(s);
  EXPECT_NEAR(c.total / 1e9, 46.7, 0.1);
  EXPECT_NEAR(c.active / 1e9, 12.9, 0.1);
  EXPECT_DOUBLE_EQ(c.total - c.active, 32 * 6 * 3 * 4096.0 * 14336);
  // 6 x active matmul parameters (embedding lookup excluded, LM head included) + attention.
  const double matmul_active = c.active - 32000.0 * 4096 - 32 * (2 * 4096.0) - 4096;
  const double expected = 6 * matmul_active + 12 * 32 * 4096.0 * 4096;
  EXPECT_NEAR(model_flops_per_token(s, 4096) / expected, 1.0, 1e-9);
}

}  // namespace
}  // namespace memwall::train
