#include "memwall/infer/continuous.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/request.h"

namespace memwall::infer {
namespace {

DeploymentOptions options(const std::string& engine, const std::string& model = "llama-3.1-8b",
                          const std::string& gpu = "h100", int tp = 1) {
  DeploymentOptions o;
  o.model = model;
  o.gpu = gpu;
  o.tp = tp;
  o.engine = engine;
  return o;
}

// FP8 weights on `tp` devices of `gpu`, KV cache in `kv`.
DeploymentOptions fp8_options(const std::string& engine, const std::string& model,
                              const std::string& gpu, int tp, Precision kv) {
  DeploymentOptions o = options(engine, model, gpu, tp);
  o.weight_precision = Precision::fp8_e4m3;
  o.kv_precision = kv;
  return o;
}

TEST(Continuous, TheBindingLimitIsNamed) {
  const Deployment d = make_deployment(Catalog::builtin(), options("vllm"));
  ContinuousLimits l = engine_limits(d);
  l.max_num_seqs = 8;
  EXPECT_EQ(continuous_max_throughput(d, 128, 128, l).binding, "max_num_seqs");
  l.max_num_seqs = 4096;
  l.max_num_batched_tokens = 512;
  EXPECT_EQ(continuous_max_throughput(d, 2048, 128, l).binding, "max_num_batched_tokens");
  l.max_num_batched_tokens = 1 << 20;
  l.kv_capacity_tokens = 100000;
  EXPECT_EQ(continuous_max_throughput(d, 2048, 2048, l).binding, "kv_cache");
  l.kv_capacity_tokens = 10;
  EXPECT_THROW(continuous_max_throughput(d, 2048, 2048, l), InfeasibleError);
  EXPECT_THROW(continuous_max_throughput(d, 0, 2048, l), InputError);
}

// The KV cache a continuous-batching engine gets is what its start-up profile leaves: a step of
// max_num_batched_tokens tokens with fp32 logits for max_num_seqs rows (vLLM profile_run; issue
// #27508 shows that pass allocating 1024 rows x 201,088 x 4 B), against the driver's total.
TEST(Continuous, KvCapacityLeavesTheEngineProfileStep) {
  const Deployment d = make_deployment(Catalog::builtin(), options("vllm", "qwen3-32b"));
  const MemoryPlan idle = plan_memory(d, 0, 0, 0), engine = plan_engine_memory(d);
  EXPECT_DOUBLE_EQ(engine.capacity.value(), 81559.0 * kMiB);  // nvidia-smi's H100 total
  const double logits = 1024.0 * double(d.model.vocab) * 4.0;
  EXPECT_GT((engine.activations - idle.activations).value(), logits);
  EXPECT_EQ(engine_limits(d).kv_capacity_tokens, engine.kv_capacity_tokens);
  EXPECT_LT(engine.kv_capacity_tokens, idle.kv_capacity_tokens);
  // Qwen3-32B BF16 on one H100 at 0.9: ~71.7 GiB usable - 61.0 GiB weights - the profile step
  // leaves ~8 GiB, ~33K tokens at 256 KiB each.
  EXPECT_NEAR(double(engine.kv_capacity_tokens), 33000, 3000);
}

// One client (a synchronous benchmark: GuideLLM's, vllm bench serve --max-concurrency 1) has one
// prompt to prefill at a time: its TTFT is one prompt's prefill beside its own decode, not that of
// a token budget filled by a cohort of prompts that cannot exist (1024-token prompts under an
// 8192-token budget: 278.6 ms was predicted where one prompt takes 36.8 ms).
TEST(Continuous, ACohortIsNoLargerThanTheSequencesThatCanBeAdmitted) {
  const Deployment d = make_deployment(Catalog::builtin(), options("vllm"));
  ContinuousLimits l = engine_limits(d);
  ASSERT_GE(l.max_num_batched_tokens, 8192);
  l.max_num_seqs = 1;
  const ContinuousEstimate c = continuous_max_throughput(d, 1024, 128, l);
  StepBatch one;
  one.prefill_tokens = 1024;
  one.prefill_sequences = 1;
  one.prefill_attended_pairs = perf::causal_pairs(1024, 0);
  const double alone = step_time(d, one).value();
  EXPECT_GE(c.ttft.value(), alone);
  EXPECT_LT(c.ttft.value(), 1.1 * alone) << "one prompt alone " << alone << " s";
  // Four clients: a cohort of at most four prompts.
  l.max_num_seqs = 4;
  one.prefill_tokens = 4 * 1024;
  one.prefill_sequences = 4;
  one.prefill_attended_pairs = 4 * perf::causal_pairs(1024, 0);
  EXPECT_LT(continuous_max_throughput(d, 1024, 128, l).ttft.value(), 1.1 * step_time(d, one).value());
}

TEST(Continuous, BatchMaxReportsTheContinuousSteadyState) {
  Request r;
  r.deployment = options("sglang");
  r.batch = parse_batch_spec("max", "--batch");
  r.input_tokens = 1024;
  r.output_tokens = 256;
  const Answer a = answer(Catalog::builtin(), r);
  const Estimate& e = a.estimates.front();
  ASSERT_TRUE(e.continuous.has_value());
  EXPECT_EQ(e.batching, "continuous");
  EXPECT_DOUBLE_EQ(e.throughput_tokens_per_s, e.continuous->throughput_tokens_per_s);
  const Json j = to_json(a, false);
  EXPECT_EQ(j["batching"], "continuous");
  EXPECT_EQ(j["deployment"]["engine"], "sglang");
  EXPECT_EQ(j["deployment"]["engine_version"], "0.4");
  EXPECT_GT(j["continuous"]["max_num_batched_tokens"].get<int64_t>(), 0);
}

// An engine's ROCm build has its own profile where one exists (vLLM), chosen by the platform of
// the accelerator; other engines fall back to their generic profile.
TEST(EngineProfiles, RocmBuildsHaveTheirOwnProfile) {
  const auto& eff = perf::default_efficiency();
  const perf::EngineProfile& rocm = eff.engine("vllm@0.10.2", "rocm");
  EXPECT_EQ(rocm.platform, "rocm");
  EXPECT_EQ(rocm.version, "0.8");
  EXPECT_EQ(eff.engine("vllm", "rocm").key(), "vllm@0.14/rocm");  // the current release's
  EXPECT_EQ(eff.engine("vllm@0.6", "rocm").platform, "rocm");
  EXPECT_EQ(eff.engine("vllm@0.10.2").platform, "");
  EXPECT_EQ(eff.engine("sglang", "rocm").platform, "");  // no ROCm evidence: the generic profile
  EXPECT_EQ(eff.engine("default", "rocm").platform, "rocm");
  EXPECT_LT(rocm.fp8_gemm_rate_scale, 1.0);
  EXPECT_FALSE(rocm.sources.empty());
  Accelerator amd, nv;
  amd.vendor = "AMD";
  nv.vendor = "NVIDIA";
  EXPECT_EQ(perf::engine_platform(amd), "rocm");
  EXPECT_EQ(perf::engine_platform(nv), "");
}

// SGLang 0.4.1 (DeepSeek-V3 day-one support) ran the routed experts through an untuned path with
// a fixed latency per MoE layer; the profile covers 0.4.1 and its .postN releases only, later
// ones resolve to the current profile. Batch-1 DeepSeek-V3 on 8 x H200 then lands near the
// ~30 tokens/s sglang PR #2643 published, and the latency adds once per MoE layer.
TEST(EngineProfiles, SglangEarlyMoePathAddsAFixedLatencyPerMoeLayer) {
  const auto& eff = perf::default_efficiency();
  EXPECT_EQ(eff.engine("sglang@0.4.1").version, "0.4.1");
  EXPECT_EQ(eff.engine("sglang@0.4.1.post2").version, "0.4.1");
  EXPECT_EQ(eff.engine("sglang@0.4.5").version, "0.4");
  EXPECT_EQ(eff.engine("sglang").version, "0.4");
  // 0.4.1's Triton path: 400 us per MoE layer; today's (0.4.6 on the Qwen3 speed benchmark): 27 us.
  EXPECT_GT(eff.engine("sglang@0.4.1").moe_layer_overhead.value(),
            10 * eff.engine("sglang").moe_layer_overhead.value());
  EXPECT_GT(eff.engine("sglang").moe_layer_overhead.value(), 0);
  DeploymentOptions o = fp8_options("sglang", "deepseek-v3", "h200", 8, Precision::bf16);
  auto tpot = [&](const char* version) {
    o.engine_version = version;
    return estimate(make_deployment(Catalog::builtin(), o), {1, 128, 256}).tpot.value();
  };
  const double early = tpot("0.4.1"), current = tpot("0.4.5");
  const double extra = eff.engine("sglang@0.4.1").moe_layer_overhead.value() -
                       eff.engine("sglang").moe_layer_overhead.value();
  // The current profile also streams at 0.85 of STREAM (memory_stream_fraction), which costs it
  // ~0.3 ms per step here: the two differ by a little less than the overhead of 58 MoE layers...
  EXPECT_LT(early - current, 58 * extra);
  // ...and by exactly that once the current profile streams at STREAM level too (and runs its
  // compute-bound kernels at the full sustained rate, as 0.4.1's profile: at batch 1 the block-FP8
  // GEMMs' compute time shows in the roofline blend by a few microseconds).
  const auto path = std::filesystem::temp_directory_path() / "memwall_sglang_stream.json";
  std::ofstream(path) << R"({"engines": {"sglang@0.4": {"memory_stream_fraction": 1.0, )"
                      << R"("compute_in_situ_fraction": 1.0}}})";
  o.calibration_file = path.string();
  const double same_stream = tpot("0.4.5");
  o.calibration_file.reset();
  std::filesystem::remove(path);
  EXPECT_NEAR(early - same_stream, 58 * extra, 1e-6);
  EXPECT_GT(1.0 / early, 25.0);
  EXPECT_LT(1.0 / early, 40.0);
}

TEST(EngineProfiles, EveryEngineIdResolvesWithItsSources) {
  const auto& eff = perf::default_efficiency();
  for (const char* id : {"vllm", "sglang", "trtllm", "mindie", "vllm-ascend", "lmdeploy",
                         "llama.cpp", "tgi", "default"}) {
    SCOPED_TRACE(id);
    const perf::EngineProfile& p = eff.engine(id);
    EXPECT_EQ(p.name, id);
    EXPECT_TRUE(p.current);
    EXPECT_FALSE(p.sources.empty());
    EXPECT_FALSE(p.date.empty());
    EXPECT_GT(p.limits.max_num_seqs, 0);
  }
  EXPECT_EQ(eff.engine("tensorrt-llm-0.6").version, "0.6");
  EXPECT_EQ(eff.engine("trtllm@0.6").kernel_overhead.value(), 8e-6);
  EXPECT_EQ(eff.engine("vllm@0.6").version, "0.6");
  EXPECT_EQ(eff.engine("vllm@0.10.2").version, "0.8");  // nearest at or below
  EXPECT_EQ(eff.engine("vllm@0.7.3").version, "0.6");
  EXPECT_THROW(eff.engine("vllm@0.1"), InputError);
  // Release parts of any length compare as numbers, without overflow (a fuzzer found
  // "4000015000000000000" overflowing a long).
  EXPECT_EQ(eff.engine("vllm@0.0008").version, "0.8");
  EXPECT_EQ(eff.engine("vllm@0.400001500000000000000000").version, "0.14");
  // A major version past the newest profile's: what it changed is unknown.
  EXPECT_EQ(eff.engine("vllm@0.13.9").version, "0.8");
  EXPECT_THROW(eff.engine("vllm@99999999999999999999999"), InputError);
  EXPECT_EQ(eff.engine("vllm@0.14.2").version, "0.14");
  EXPECT_THROW(eff.engine("nope"), InputError);
  // The default is stated as an assumption.
  const Deployment d = make_deployment(Catalog::builtin(), options("default"));
  bool stated = false;
  for (const auto& a : d.assumptions) stated = stated || a.rfind("engine: ", 0) == 0;
  EXPECT_TRUE(stated);
}

TEST(EngineProfiles, CustomAllReduceIsFasterThanNcclForDecodeMessages) {
  DeploymentOptions o = options("vllm", "llama-3.1-70b", "h100", 8);
  const Deployment with = make_deployment(Catalog::builtin(), o);
  o.engine = "tgi";  // NCCL only
  const Deployment without = make_deployment(Catalog::builtin(), o);
  const Bytes msg(64 * 8192 * 2);  // 64 tokens x hidden 8192 x bf16
  const auto ar = size_t(perf::CommPattern::tp_all_reduce);
  EXPECT_LT(with.comm[ar].time(msg), without.comm[ar].time(msg));
  EXPECT_GT(with.comm[ar].time(msg).value(), 4e-6);
  // Large messages keep NCCL's time.
  EXPECT_DOUBLE_EQ(with.comm[ar].time(Bytes(1 << 30)).value(),
                   without.comm[ar].time(Bytes(1 << 30)).value());
}

// vLLM's ROCm build on MI300X against the figures its profile cites. OCI blog (vLLM 0.6 ROCm,
// Llama 3.1 405B FP8 TP8, 128 in / 128 out): batch 64 -> 256 adds 10.83 s of end-to-end latency
// (6.919 -> 17.75 s), linear-layer work at ~460 TFLOPS per GPU; AMD's table (vLLM 0.10.2, 70B FP8
// TP8, batch 1, 128 / 2048): 15.88 s. The CUDA profile on the same chip is far faster than both.
TEST(EngineProfiles, RocmVllmMatchesPublishedMi300xLatencies) {
  DeploymentOptions o = fp8_options("vllm", "llama-3.1-405b", "mi300x", 8, Precision::fp8_e4m3);
  o.engine_version = "0.6";
  o.memory_utilization = 1.0;
  const Deployment d = make_deployment(Catalog::builtin(), o);
  EXPECT_EQ(d.engine_profile->platform, "rocm");
  const double slope = estimate(d, {256, 128, 128}).e2e.value() - estimate(d, {64, 128, 128}).e2e.value();
  EXPECT_NEAR(slope, 17.75 - 6.919, 0.15 * (17.75 - 6.919));
  o.model = "llama-3.1-70b";
  o.engine_version = "0.10.2";
  const Deployment d70 = make_deployment(Catalog::builtin(), o);
  const double e2e = estimate(d70, {1, 128, 2048}).e2e.value();
  EXPECT_NEAR(e2e, 15.88, 0.15 * 15.88);
  // The CUDA build's figures are faster per kernel and per FP8 GEMM.
  const perf::EngineProfile& cuda = perf::default_efficiency().engine("vllm@0.10.2");
  EXPECT_LT(cuda.kernel_overhead.value(), d70.engine_profile->kernel_overhead.value());
  EXPECT_GT(cuda.fp8_gemm_rate_scale, d70.engine_profile->fp8_gemm_rate_scale);
}

}  // namespace
}  // namespace memwall::infer
