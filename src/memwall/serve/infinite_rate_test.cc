// `infer --batch max` (the continuous-batching steady state, infer/continuous.h) and the serving
// simulator at an arrival rate far above capacity answer the same question: their throughputs agree
// for the same engine limits.
#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/infer/continuous.h"
#include "memwall/serve/request.h"
#include "memwall/serve/serving.h"

namespace memwall::serve {
namespace {

using infer::ContinuousLimits;
using infer::Deployment;
using infer::DeploymentOptions;

DeploymentOptions options(const std::string& engine) {
  DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.gpu = "h100";
  o.engine = engine;
  return o;
}

// The serving simulator at an arrival rate far above capacity, with the same engine limits.
double simulated_throughput(const DeploymentOptions& o, const ContinuousLimits& l, int64_t in,
                            int64_t out, int64_t requests) {
  ServingOptions s;
  s.deployment = o;
  s.workload.lengths = dataset_preset("fixed:" + std::to_string(in) + "," + std::to_string(out));
  s.workload.requests = requests;
  s.workload.arrival.rate_per_s = 1e7;
  s.scheduler.policy = l.chunked_prefill ? SchedulerPolicy::chunked : SchedulerPolicy::continuous;
  s.scheduler.max_batch = l.max_num_seqs;
  s.scheduler.token_budget = l.max_num_batched_tokens;
  return simulate_serving(Catalog::builtin(), s).result.throughput_tokens_per_s;
}

TEST(InfiniteRate, AgreesWithTheSimulatorAtAnInfiniteRate) {
  // Chunked prefill (vLLM V1 limits, cut to keep the test quick) and whole prompts (vLLM V0).
  struct Case {
    std::string engine;
    int seqs;
    int64_t budget, in, out;
  };
  for (const Case& k : {Case{"vllm", 64, 2048, 512, 128}, Case{"vllm", 128, 8192, 1024, 64},
                        Case{"vllm@0.6", 64, 4096, 256, 128}}) {
    SCOPED_TRACE(k.engine + " " + std::to_string(k.seqs));
    const auto o = options(k.engine);
    const Deployment d = infer::make_deployment(Catalog::builtin(), o);
    ContinuousLimits l = infer::engine_limits(d);
    l.max_num_seqs = k.seqs;
    l.max_num_batched_tokens = k.budget;
    const infer::ContinuousEstimate c = infer::continuous_max_throughput(d, k.in, k.out, l);
    const double sim = simulated_throughput(o, l, k.in, k.out, 40 * k.seqs);
    EXPECT_NEAR(c.throughput_tokens_per_s / sim, 1.0, 0.05)
        << "infer " << c.throughput_tokens_per_s << " simulate " << sim << " binds " << c.binding;
  }
}

TEST(InfiniteRate, TensorRtLlmReservesTheWholeLengthAndNeverPreempts) {
  // GUARANTEED_NO_EVICT: a KV-bound decode-heavy load holds (input + output) per sequence, so
  // about input + output / 2 over input + output of vLLM's concurrency, and the simulator with
  // the same engine agrees and preempts nothing.
  DeploymentOptions o = options("trtllm");
  o.model = "qwen3-32b";
  const Deployment d = infer::make_deployment(Catalog::builtin(), o);
  const infer::ContinuousEstimate c = infer::continuous_max_throughput(d, 128, 2048);
  EXPECT_TRUE(c.limits.reserve_output);
  EXPECT_EQ(c.binding, "kv_cache");
  EXPECT_NEAR(c.concurrency, double(c.limits.kv_capacity_tokens) / (128 + 2048 + 8), 1e-9);
  ServingOptions s;
  s.deployment = o;
  s.workload.lengths = dataset_preset("fixed:128,2048");
  s.workload.requests = 1000;  // ~70 turnovers of the ~14 resident: ramp and tail stay small
  s.workload.arrival.rate_per_s = 1e7;
  s.engine_limits = true;
  const ServingRun run = simulate_serving(Catalog::builtin(), s);
  EXPECT_EQ(run.result.preemptions_recompute, 0);
  // The promised blocks show as reserved KV: on average half of each sequence's output is still
  // to come, about 1024 of its 2184 reserved tokens.
  EXPECT_NEAR(run.result.kv.reserved, 1024.0 / 2184.0, 0.05);
  EXPECT_NEAR(c.throughput_tokens_per_s / run.result.throughput_tokens_per_s, 1.0, 0.05);
  // vLLM on the same GPU admits by the prompt and holds about twice the sequences per token of
  // KV cache (TensorRT-LLM's cache itself is larger: its 0.9 is a share of the free memory).
  DeploymentOptions v = o;
  v.engine = "vllm";
  const infer::ContinuousEstimate cv =
      infer::continuous_max_throughput(infer::make_deployment(Catalog::builtin(), v), 128, 2048);
  EXPECT_FALSE(cv.limits.reserve_output);
  EXPECT_GT(c.limits.kv_capacity_tokens, cv.limits.kv_capacity_tokens);
  EXPECT_GT(cv.concurrency / double(cv.limits.kv_capacity_tokens),
            1.6 * c.concurrency / double(c.limits.kv_capacity_tokens));
}

TEST(InfiniteRate, EngineLimitsTakeTheEnginesSchedulerSettings) {
  SimulateRequest r;
  r.model = "llama-3.1-8b";
  r.gpu = "h100";
  r.rate = 1e7;
  r.dataset = "fixed:512,64";
  r.requests = 200;
  r.engine = "vllm";
  r.engine_version = "0.6";
  r.engine_limits = true;
  const ServingRun run = simulate_serving(Catalog::builtin(), to_options(r));
  bool stated = false;
  for (const auto& a : run.assumptions) stated = stated || a.find("whole prompts") != std::string::npos;
  EXPECT_TRUE(stated);
  EXPECT_EQ(run.result.completed, 200);
}

}  // namespace
}  // namespace memwall::serve
