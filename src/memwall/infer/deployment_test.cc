#include "memwall/infer/deployment.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/step.h"
#include "memwall/model/counts.h"
#include "memwall/perf/graph.h"
#include "memwall/perf/perf_test_fixtures.h"

namespace memwall::infer {
namespace {

using perf::testing::a100_80;
using perf::testing::h100_sxm;
using perf::testing::llama2_7b;
using perf::testing::llama31_70b;
using perf::testing::mixtral_8x7b;

Node nvswitch8() {
  Node n;
  n.id = "test-8gpu";
  n.devices = 8;
  n.device_link_bandwidth_per_direction = gb_per_s(450);
  n.device_link_latency = us(1);
  return n;
}

Deployment make(const ModelSpec& m, const Accelerator& a, DeploymentOptions o) {
  return make_deployment(m, a, nvswitch8(), std::nullopt, o);
}

TEST(Deployment, ParallelSizesThatDoNotDivideAreInfeasible) {
  DeploymentOptions o;
  o.tp = 3;  // 64 heads
  EXPECT_THROW(make(llama31_70b(), h100_sxm(), o), InfeasibleError);
  o.tp = 16;  // divides 64 heads, multiple of 8 KV heads: KV heads replicated
  Node big = nvswitch8();
  big.devices = 16;
  const Deployment d = make_deployment(llama31_70b(), h100_sxm(), big, std::nullopt, o);
  EXPECT_FALSE(d.assumptions.empty());
  ModelSpec odd = llama31_70b();
  odd.kv_heads = 6;
  odd.heads = 48;
  o.tp = 4;  // divides 48 heads, neither divides nor is a multiple of 6 KV heads
  EXPECT_THROW(make(odd, h100_sxm(), o), InfeasibleError);
  o = {};
  o.pp = 81;
  EXPECT_THROW(make(llama31_70b(), h100_sxm(), o), InfeasibleError);
  o = {};
  o.ep = 2;
  EXPECT_THROW(make(llama31_70b(), h100_sxm(), o), InputError);  // dense model
  o.tp = 2;
  o.ep = 3;
  EXPECT_THROW(make(mixtral_8x7b(), h100_sxm(), o), InfeasibleError);  // 8 experts
  o.tp = 0;
  EXPECT_THROW(make(llama31_70b(), h100_sxm(), o), InputError);
}

TEST(Deployment, PrecisionTheDeviceLacksIsInfeasible) {
  DeploymentOptions o;
  o.weight_precision = Precision::fp8_e4m3;
  EXPECT_THROW(make(llama2_7b(), a100_80(), o), InfeasibleError);
  // int4 weight-only computes in bf16 on A100.
  o.weight_precision = Precision::int4;
  const Deployment d = make(llama2_7b(), a100_80(), o);
  EXPECT_EQ(d.matmul, Precision::bf16);
  EXPECT_EQ(d.kv, Precision::bf16);
  // GGUF Q4_0: 4 bits + one fp16 scale per 32 = 4.5 bits.
  o.weight_group_size = 32;
  EXPECT_DOUBLE_EQ(make(llama2_7b(), a100_80(), o).weight_bytes_per_element, 4.5 / 8);
}

// The RTX 3090 and 5090 run BF16 (RTX Blackwell whitepaper Table 3): the default weights are
// bf16, with no "no bf16 path" assumption (seed audit 3, D3).
TEST(Deployment, GeForce3090And5090HaveABf16Path) {
  for (const char* gpu : {"rtx-3090", "rtx-5090"}) {
    DeploymentOptions o;
    o.model = "llama-3.1-8b";
    o.gpu = gpu;
    const Deployment d = make_deployment(Catalog::builtin(), o);
    EXPECT_EQ(d.weight, Precision::bf16) << gpu;
    for (const auto& a : d.assumptions) EXPECT_EQ(a.find("no bf16 path"), std::string::npos) << a;
  }
}

// The FP8 recipe defaults to the model's FP8 checkpoint (DeepSeek-V3's is block-scaled), is named
// in the assumptions, and is refused for a deployment whose GEMMs are not FP8.
TEST(Deployment, Fp8RecipeDefaultsToTheCheckpointsAndNeedsFp8Gemms) {
  DeploymentOptions o;
  o.model = "deepseek-v3";
  o.gpu = "h200";
  o.tp = 8;
  o.engine = "vllm";
  o.weight_precision = Precision::fp8_e4m3;
  const Deployment ds = make_deployment(Catalog::builtin(), o);
  EXPECT_EQ(ds.fp8_recipe, Fp8Recipe::blockwise);
  bool named = false;
  for (const auto& a : ds.assumptions) named |= a.find("FP8 scaling: blockwise") != std::string::npos;
  EXPECT_TRUE(named);
  o.fp8_recipe = Fp8Recipe::tensorwise;
  const Deployment tensor = make_deployment(Catalog::builtin(), o);
  EXPECT_GT(tensor.ceilings.gemm_peak_fraction, 1.5 * ds.ceilings.gemm_peak_fraction);
  o.model = "llama-3.1-8b";
  o.tp = 1;
  o.fp8_recipe.reset();
  EXPECT_EQ(make_deployment(Catalog::builtin(), o).fp8_recipe, Fp8Recipe::tensorwise);
  o.fp8_recipe = Fp8Recipe::mxfp8;  // Hopper has no microscaling MMA; Blackwell has
  EXPECT_THROW(make_deployment(Catalog::builtin(), o), InfeasibleError);
  o.gpu = "b200";
  EXPECT_EQ(make_deployment(Catalog::builtin(), o).fp8_recipe, Fp8Recipe::mxfp8);
  o.fp8_recipe = Fp8Recipe::blockwise;
  o.weight_precision = Precision::bf16;
  EXPECT_THROW(make_deployment(Catalog::builtin(), o), InputError);
}

TEST(Deployment, ReplicaLargerThanTheNodeNeedsAFabric) {
  DeploymentOptions o;
  o.tp = 8;
  o.pp = 2;
  EXPECT_THROW(make(llama31_70b(), h100_sxm(), o), InputError);
  o.tp = 2;
  o.pp = 1;
  EXPECT_THROW(make_deployment(llama31_70b(), h100_sxm(), std::nullopt, std::nullopt, o),
               InputError);
}

TEST(MemoryPlan, TensorRtLlmGivesTheKvCacheItsFractionOfTheFreeMemory) {
  // vLLM: weights + activations + KV <= 0.9 x total. TensorRT-LLM: KV = 0.9 x (total - weights -
  // activations) (free_gpu_memory_fraction), so with 70B weights filling most of a device
  // TensorRT-LLM keeps more KV cache than vLLM at the same 0.9.
  DeploymentOptions o;
  o.tp = 2;
  o.engine = "vllm";
  const MemoryPlan v = plan_engine_memory(make(llama31_70b(), h100_sxm(), o));
  o.engine = "trtllm";
  const Deployment t_dep = make(llama31_70b(), h100_sxm(), o);
  const MemoryPlan t = plan_engine_memory(t_dep);
  EXPECT_NEAR(v.kv_budget.value(), 0.9 * v.capacity.value() - v.weights.value() -
                                       v.activations.value(), 1.0);
  const double free_after_load = t.capacity.value() - t.weights.value() - t.activations.value();
  EXPECT_NEAR(t.kv_budget.value(), 0.9 * free_after_load, 1.0);
  EXPECT_NEAR(t.runtime_reserve.value(), 0.1 * free_after_load, 1.0);
  EXPECT_GT(t.kv_budget.value(), v.kv_budget.value() + 4.0 * kGiB);
  // 70B BF16 on one H100 (~131 GiB of weights): TensorRT-LLM's bound is the whole device.
  o.tp = 1;
  try {
    plan_engine_memory(make(llama31_70b(), h100_sxm(), o));
    FAIL() << "70B BF16 weights do not fit one H100";
  } catch (const InfeasibleError& err) {
    EXPECT_NE(std::string(err.what()).find("(100% of 80.00 GiB)"), std::string::npos) << err.what();
  }
}

TEST(MemoryPlan, KvBytesAndWeightsPerDevice) {
  DeploymentOptions o;
  o.tp = 4;
  const Deployment d = make(llama31_70b(), h100_sxm(), o);
  // 327,680 B per token at bf16 over 4 devices (2 of 8 KV heads each).
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_device(d).value(), 327680.0 / 4);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(d.model, Precision::bf16).value(), 327680.0);
  // Weights: all parameters x 2 B / 4.
  const ParameterCounts c = count_parameters(d.model);
  EXPECT_NEAR(weight_bytes_per_device(d).value(), c.total * 2 / 4, 1.0);
  // Capacity: the device's bytes as the catalog holds them (80 GiB for an H100); reserve 10 %.
  const MemoryPlan p = plan_memory(d, 8, 4096, 2048);
  EXPECT_DOUBLE_EQ(p.capacity.value(), 80.0 * kGiB);
  EXPECT_NEAR(p.runtime_reserve.value(), 8.0 * kGiB, 1.0);
  EXPECT_DOUBLE_EQ(p.kv_used.value(), 8.0 * 4096 * 327680.0 / 4);
  EXPECT_EQ(p.kv_capacity_tokens,
            static_cast<int64_t>(p.kv_budget.value() / (327680.0 / 4)));
  // Largest batch at 4096 tokens fills the budget exactly to the block.
  const int64_t b = max_batch(d, 4096, 2048);
  EXPECT_GT(b, 0);
  EXPECT_NO_THROW(plan_memory(d, b, 4096, 2048));
  EXPECT_THROW(plan_memory(d, b + 1, 4096, 2048), InfeasibleError);
  EXPECT_EQ(max_context(d, 1) / kKvBlockTokens * kKvBlockTokens, max_context(d, 1));
}

TEST(MemoryPlan, ModelThatDoesNotFitSaysByHowMuch) {
  DeploymentOptions o;  // 70B bf16 = 141 GB on one 80 GB device
  const Deployment d = make(llama31_70b(), h100_sxm(), o);
  try {
    plan_memory(d, 1, 1024, 512);
    FAIL();
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos);
  }
  EXPECT_EQ(max_batch(d, 1024, 512), 0);
}

TEST(Estimate, DecodeAtBatchOneIsBandwidthBound) {
  DeploymentOptions o;
  const Deployment d = make(llama2_7b(), h100_sxm(), o);
  const Estimate e = estimate(d, {1, 128, 129});
  EXPECT_EQ(e.decode.bound, "memory");
  // TPOT >= weights / sustained bandwidth (13.5 GB at 3.35 TB/s x 0.875).
  const double floor_s = count_parameters(d.model).total * 2 / (3350e9 * 0.875);
  EXPECT_GT(e.tpot.value(), floor_s);
  EXPECT_LT(e.tpot.value(), floor_s * 1.3);
  EXPECT_NEAR(e.e2e.value(), e.ttft.value() + 128 * e.tpot.value(), 1e-12);
  EXPECT_NEAR(e.throughput_tokens_per_s, 129 / e.e2e.value(), 1e-9);
  EXPECT_GT(e.mbu, 0.5);
  EXPECT_LT(e.mbu, 0.95);
  // Large prefill is compute-bound.
  const Estimate big = estimate(d, {32, 2048, 1});
  EXPECT_EQ(big.prefill.bound, "compute");
  EXPECT_THROW(estimate(d, {0, 10, 10}), InputError);
}

TEST(Estimate, StepTimeIsAdditiveInLayersAndMonotone) {
  DeploymentOptions o;
  o.tp = 2;
  const Deployment d = make(llama31_70b(), h100_sxm(), o);
  const Seconds t1 = step_time(d, decode_batch(8, 1000));
  const Seconds t2 = step_time(d, decode_batch(8, 4000));
  const Seconds t3 = step_time(d, decode_batch(64, 4000));
  EXPECT_LT(t1, t2);
  EXPECT_LT(t2, t3);
  EXPECT_DOUBLE_EQ(step_time(d, StepBatch{}).value(), 0.0);
  EXPECT_NEAR(step_cost(d, decode_batch(8, 1000)).total.value(), t1.value(), 1e-15);
  StepBatch bad;
  bad.decode_sequences = -1;
  EXPECT_THROW(step_time(d, bad), InputError);
}

// The engine's host work: a fixed part per iteration and a part per sequence the iteration runs
// (vLLM's Python loops over the running requests); multi-step scheduling divides both by the
// iterations per scheduler call.
TEST(Estimate, HostWorkGrowsWithTheSequencesAndMultiStepDividesIt) {
  DeploymentOptions o;
  o.engine = "vllm";
  o.engine_version = "0.6";
  const Deployment d = make(llama2_7b(), a100_80(), o);
  const Seconds per_seq = d.ceilings.step_overhead_per_sequence;
  EXPECT_DOUBLE_EQ(per_seq.value(), 20e-6);
  const StepCost c1 = step_cost(d, decode_batch(1, 500)), c64 = step_cost(d, decode_batch(64, 500));
  EXPECT_NEAR((c64.overhead - c1.overhead).value(), 63 * per_seq.value(), 1e-12);
  o.scheduler_steps = 10;
  const Deployment m = make(llama2_7b(), a100_80(), o);
  EXPECT_NEAR(m.ceilings.step_overhead_per_sequence.value(), per_seq.value() / 10, 1e-15);
  EXPECT_NEAR(m.ceilings.step_overhead.value(), d.ceilings.step_overhead.value() / 10, 1e-15);
  EXPECT_NEAR((step_time(d, decode_batch(64, 500)) - step_time(m, decode_batch(64, 500))).value(),
              0.9 * (d.ceilings.step_overhead + per_seq * 64.0).value(), 1e-12);
  o.scheduler_steps = 0;
  EXPECT_THROW(make(llama2_7b(), a100_80(), o), InputError);
}

TEST(Estimate, PrefillModelFlopsCountTheCausalAttentionTheKernelDoes) {
  // Prompt token i attends to i tokens: (S + 1) / 2 on average, not the full S of train's
  // convention (which would put a long prompt's MFU above 1).
  const Deployment d = make(llama2_7b(), h100_sxm(), DeploymentOptions{});
  const Estimate e = estimate(d, {2, 4000, 1});
  EXPECT_NEAR(e.prefill.model_flops.value(), 2 * 4000 * forward_flops_per_token(d.model, 4001.0 / 2),
              1e-6 * e.prefill.model_flops.value());
  EXPECT_LT(e.prefill.model_flops.value(), 2 * 4000 * forward_flops_per_token(d.model, 4000));
  EXPECT_LE(e.prefill.mfu, 1.0);
}

TEST(Estimate, BytesMovedPerDeviceIsOneStagesShareWithPipelining) {
  DeploymentOptions o;
  o.tp = 2;
  const Deployment flat = make(llama31_70b(), h100_sxm(), o);
  o.pp = 4;
  const Deployment piped = make(llama31_70b(), h100_sxm(), o);
  const auto b = decode_batch(8, 1000);
  const double whole = step_cost(flat, b).bytes_moved.value();
  EXPECT_NEAR(step_cost(piped, b).bytes_moved.value(), whole / 4, 1e-6 * whole);
  // MBU is unchanged by the bookkeeping: pp micro-batches, each a stage's share per device.
  const Estimate e = estimate(piped, {8, 1000, 64});
  EXPECT_GT(e.mbu, 0.3);
  EXPECT_LT(e.mbu, 1.0);
  // Per device, bytes moved stay below what one device holds plus its KV share.
  EXPECT_LT(e.decode.step.bytes_moved.value(), e.memory.weights.value() + e.memory.kv_used.value());
}

TEST(Estimate, VllmOnAmpereReReadsKvPerQueryHeadOnlyInIterationsThatMixPromptChunks) {
  // FlashAttention-2 folds the query group into the rows only in decode-only iterations: vLLM V1
  // on Ampere re-reads each KV head per query head when prompt chunks share the iteration, from
  // DRAM for the share of the re-reads beyond the CTAs the device holds at once.
  auto decode_attention_bytes = [](const Deployment& d, const StepBatch& b) {
    for (const auto& t : step_cost(d, b).ops)
      if (t.op.name == "attention_decode") return t.op.cost.bytes_moved().value() * t.op.repeat;
    return 0.0;
  };
  auto batch = [](int decodes, int64_t chunk) {
    StepBatch b;
    b.decode_sequences = decodes;
    b.decode_context_tokens = int64_t(decodes) * 2000;
    b.prefill_tokens = chunk;
    b.prefill_sequences = chunk > 0 ? 1 : 0;
    b.prefill_attended_pairs = perf::causal_pairs(double(chunk), 0);
    return b;
  };
  const ModelSpec m = llama31_70b();  // 64 query heads over 8 KV heads: groups of 8
  DeploymentOptions o;
  o.tp = 4;
  o.engine = "vllm";
  const Deployment vllm_a100 = make(m, a100_80(), o);
  // K/V bytes of the decode rows: 2 x 2 KV heads per device x 128 x 2 bytes x 80 layers per token.
  auto kv = [&](int decodes) { return decodes * 2000.0 * 2 * (8 / 4) * m.head_dim * 2 * 80; };
  // 128 decodes beside a 2048-token chunk: 16 query blocks x 129 sequences = 2064 CTAs between
  // the heads of a group, 108 SMs x 2 CTAs held at once: 1 - 216 / 2064 of the re-reads in DRAM.
  const double share = 1.0 - 216.0 / 2064.0;
  EXPECT_NEAR(decode_attention_bytes(vllm_a100, batch(128, 2048)) - decode_attention_bytes(vllm_a100, batch(128, 0)),
              kv(128) * 7 * share, 1e-6 * kv(128));
  // 8 decodes beside it: 144 CTAs apart, all resident together: the re-reads hit L2.
  EXPECT_DOUBLE_EQ(decode_attention_bytes(vllm_a100, batch(8, 2048)), decode_attention_bytes(vllm_a100, batch(8, 0)));
  // FlashAttention-3 on Hopper packs the group with a paged cache; SGLang's kernels share too.
  const Deployment vllm_h100 = make(m, h100_sxm(), o);
  EXPECT_DOUBLE_EQ(decode_attention_bytes(vllm_h100, batch(128, 2048)), decode_attention_bytes(vllm_h100, batch(128, 0)));
  o.engine = "sglang";
  const Deployment sglang_a100 = make(m, a100_80(), o);
  EXPECT_DOUBLE_EQ(decode_attention_bytes(sglang_a100, batch(128, 2048)),
                   decode_attention_bytes(sglang_a100, batch(128, 0)));
}

// Without a stated memory fraction a deployment takes its engine's default for its TP size
// (SGLang: 0.85 at TP 4; vLLM: 0.9); a stated one wins.
TEST(Deployment, MemoryFractionDefaultsToTheEngines) {
  DeploymentOptions o;
  o.tp = 4;
  o.engine = "sglang";
  EXPECT_DOUBLE_EQ(make(llama31_70b(), h100_sxm(), o).memory_utilization, 0.85);
  o.engine = "vllm";
  EXPECT_DOUBLE_EQ(make(llama31_70b(), h100_sxm(), o).memory_utilization, 0.9);
  o.memory_utilization = 0.7;
  EXPECT_DOUBLE_EQ(make(llama31_70b(), h100_sxm(), o).memory_utilization, 0.7);
  o.memory_utilization = 1.5;
  EXPECT_THROW(make(llama31_70b(), h100_sxm(), o), InputError);
}

// StepTimer gives step_time's value for every batch, the first time and when its kernels come
// from the memo, on a dense model with TP (collectives) and an MoE one.
TEST(StepTimer, MatchesStepTimeExactly) {
  for (const char* model : {"llama-3.1-70b", "mixtral-8x7b"}) {
    DeploymentOptions o;
    o.model = model;
    o.gpu = "h100";
    o.tp = 4;
    const Deployment d = make_deployment(Catalog::builtin(), o);
    StepTimer timer(d);
    for (int round = 0; round < 2; ++round) {
      for (int seqs : {1, 7, 64, 256}) {
        for (int64_t prompt : {int64_t(0), int64_t(1), int64_t(513), int64_t(2048)}) {
          StepBatch b;
          b.decode_sequences = seqs;
          b.decode_context_tokens = int64_t(seqs) * (300 + 17 * round);
          b.prefill_tokens = prompt;
          b.prefill_sequences = prompt > 0 ? 1 : 0;
          b.prefill_attended_pairs = perf::causal_pairs(double(prompt), 0);
          EXPECT_EQ(timer(b).value(), step_time(d, b).value()) << model << " " << seqs << " " << prompt;
        }
      }
    }
    EXPECT_EQ(timer(StepBatch{}).value(), step_time(d, StepBatch{}).value());
  }
}

}  // namespace
}  // namespace memwall::infer
