#include "memwall/train/memory.h"

#include <gtest/gtest.h>

#include "memwall/train/counts.h"
#include "memwall/train/test_hardware.h"

namespace memwall::train {
namespace {

using namespace testing;

// The published configurations of Korthikanti et al. 2022 Table 3 (22B, 175B, 530B; TP 8).
struct Published {
  int layers;
  int64_t hidden;
  int heads;
  int64_t micro_batch;
};
constexpr Published kKorthikanti[] = {{48, 6144, 64, 4}, {96, 12288, 96, 1}, {105, 20480, 128, 1}};

TrainConfig megatron_2022(int64_t b) {
  TrainConfig c;
  c.tp = 8;
  c.gpus = 8;
  c.micro_batch = b;
  c.global_batch = b;
  c.seq = 2048;
  c.flash_attention = false;  // the scores are materialised
  c.dropout = true;           // GPT dropout layers with 1-byte masks
  return c;
}

TEST(TrainMemory, ActivationsPerLayerMatchKorthikantiTable2) {
  for (const auto& p : kKorthikanti) {
    const LayerShape s = layer_shape(gpt(p.layers, p.hidden, p.heads));
    const double sbh = 2048.0 * double(p.micro_batch) * double(p.hidden);
    const double t = 8, as_h = double(p.heads) * 2048.0 / double(p.hidden);
    TrainConfig c = megatron_2022(p.micro_batch);
    // TP only: sbh (10 + 24/t + 5as/(ht))
    EXPECT_NEAR(layer_stored_activation_bytes(s, c, false) / (sbh * (10 + 24 / t + 5 * as_h / t)),
                1.0, 1e-12);
    // TP + selective: sbh (10 + 24/t)
    c.recompute = Recompute::selective;
    EXPECT_NEAR(layer_stored_activation_bytes(s, c, false) / (sbh * (10 + 24 / t)), 1.0, 0.01);
    // TP + SP + selective: 34 sbh / t
    c.sequence_parallel = true;
    EXPECT_NEAR(layer_stored_activation_bytes(s, c, false) / (34 * sbh / t), 1.0, 0.02);
    // TP + SP: sbh (34/t + 5as/(ht))
    c.recompute = Recompute::none;
    EXPECT_NEAR(layer_stored_activation_bytes(s, c, false) / (sbh * (34 / t + 5 * as_h / t)), 1.0,
                1e-12);
    // Full recomputation: the layer input 2sbh (/t with SP).
    c.recompute = Recompute::full;
    EXPECT_DOUBLE_EQ(layer_stored_activation_bytes(s, c, false), 2 * sbh / t);
    c.sequence_parallel = false;
    EXPECT_DOUBLE_EQ(layer_stored_activation_bytes(s, c, false), 2 * sbh);
  }
  // No parallelism: sbh (34 + 5as/h) (Korthikanti §4.1).
  const LayerShape s = layer_shape(gpt(96, 12288, 96));
  TrainConfig c = megatron_2022(1);
  c.tp = 1;
  const double sbh = 2048.0 * 12288;
  EXPECT_NEAR(layer_activation_bytes(s, c, false) / (sbh * (34 + 5 * 96 * 2048.0 / 12288)), 1.0,
              1e-12);
}

TEST(TrainMemory, PipelineFirstStageHoldsLTimesPerLayer) {
  // 1F1B: the first stage holds p micro-batches of L/p layers = L x per-layer, independent of p;
  // interleaved multiplies this by 1 + (p-1)/(p v) (Korthikanti §4.2.3).
  const TrainSetup setup = make_setup(gpt(96, 12288, 96), a100_80gb(), hgx_a100(), ib("ib", 25));
  TrainConfig c = megatron_2022(1);
  c.gpus = 64;
  c.pp = 8;
  c.global_batch = 64;
  c.sequence_parallel = true;
  c.recompute = Recompute::selective;
  c.dropout = false;
  const double per_layer = layer_stored_activation_bytes(setup.shape, c, false);
  const double frag = 1 + setup.params.activation_fragmentation;
  auto first_stage_layers = [&](const TrainConfig& cfg, double microbatches_in_flight) {
    const MemoryBreakdown m = memory_per_gpu(setup, cfg);
    EXPECT_EQ(m.stage, 0);
    const double ids = 8.0 * 2048 * microbatches_in_flight;  // int64 token ids
    return (m.activations.value() / frag - ids) / per_layer;
  };
  EXPECT_NEAR(first_stage_layers(c, 8), 96.0, 1e-9);
  c.vpp = 3;  // p v + p - 1 = 31 chunks of 4 layers from 11 micro-batches
  EXPECT_NEAR(first_stage_layers(c, 11), 96.0 * (1 + 7.0 / 24), 1e-9);
}

TEST(TrainMemory, ZeroShardingMatchesRajbhandari) {
  // Rajbhandari et al. 2020 Fig. 1: baseline (2 + 2 + 12) Psi; ZeRO-1 2Psi + 2Psi + 12Psi/d;
  // ZeRO-2 2Psi + 14Psi/d; ZeRO-3 16Psi/d (mixed-precision Adam, K = 12).
  const TrainSetup setup = make_setup(gpt(36, 4096, 32), a100_80gb(), hgx_a100(), ib("ib", 25));
  const double psi = count_parameters(setup.shape).total;
  TrainConfig c;
  c.gpus = 64;
  c.micro_batch = 1;
  c.global_batch = 64;
  c.seq = 2048;
  const double d = 64;
  auto check = [&](int zero, double w, double g, double o) {
    c.zero = zero;
    const MemoryBreakdown m = memory_per_gpu(setup, c);
    EXPECT_NEAR(m.local_parameters / psi, 1.0, 1e-12);
    EXPECT_NEAR(m.weights.value() / w, 1.0, 1e-12) << "ZeRO-" << zero;
    EXPECT_NEAR(m.gradients.value() / g, 1.0, 1e-12) << "ZeRO-" << zero;
    EXPECT_NEAR(m.optimizer_state.value() / o, 1.0, 1e-12) << "ZeRO-" << zero;
  };
  check(0, 2 * psi, 2 * psi, 12 * psi);
  check(1, 2 * psi, 2 * psi, 12 * psi / d);
  check(2, 2 * psi, 2 * psi / d, 12 * psi / d);
  check(3, 2 * psi / d, 2 * psi / d, 12 * psi / d);
}

TEST(TrainMemory, Gpt3On1024GpusFitsWithRecompute) {
  // GPT-3 175B, TP 8 x PP 16 x DP 8, micro-batch 1: model states 18 B x 175B / 128 = 24.6 GB
  // with fp32 gradients (Megatron), activations with full recomputation ~2 GB: fits in 80 GB.
  const TrainSetup setup = make_setup(gpt(96, 12288, 96), a100_80gb(), hgx_a100(), ib("ib", 25));
  TrainConfig c;
  c.gpus = 1024;
  c.tp = 8;
  c.pp = 16;
  c.micro_batch = 1;
  c.global_batch = 1536;
  c.recompute = Recompute::full;
  c.fp32_grad_accumulation = true;
  const MemoryBreakdown m = memory_per_gpu(setup, c);
  const double states = (m.weights + m.gradients + m.optimizer_state).value();
  EXPECT_NEAR(states / (18 * m.local_parameters), 1.0, 1e-12);
  EXPECT_NEAR(m.local_parameters / 1e9, 174.6 / 128, 0.12);  // edge stage holds the embedding
  EXPECT_TRUE(m.fits());
}

}  // namespace
}  // namespace memwall::train
