#include "memwall/plan/requirements.h"

#include <gtest/gtest.h>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/model/counts.h"
#include "memwall/model/zoo.h"

namespace memwall::plan {
namespace {

ModelSpec builtin_model(const std::string& id) {
  for (const auto& f : data::embedded_files()) {
    if (std::string(f.path).rfind("models/", 0) != 0) continue;
    const Json doc = parse_document(f.content, std::string(f.path));
    for (const auto& e : doc.at("models")) {
      if (e.at("id") == id) return model_from_json(e, id);
    }
  }
  throw InputError("model", id, "a built-in model");
}

InferenceWorkload chat(double users) {
  InferenceWorkload w;
  w.load.concurrency = users;
  w.input = {161.31, 800, "sharegpt", {}};
  w.output = {337.99, 1500, "sharegpt", {}};
  w.sla = parse_sla("ttft_p99=1,tpot_p99=50ms");
  return w;
}

TEST(Requirements, Qwen72bChatForThreeHundredUsers) {
  const ModelSpec m = builtin_model("qwen2.5-72b");
  const Requirements r = derive_requirements(m, chat(300), Precision::bf16, Precision::bf16);
  // 80 layers x 2 (K,V) x 8 KV heads x 128 dims x 2 bytes = 327,680 B per token.
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_token.value(), 327680.0);
  EXPECT_DOUBLE_EQ(r.weights.value(), count_parameters(m).total * 2.0);
  EXPECT_NEAR(r.weights.value() / 1e9, 145.4, 0.5);
  const double ctx = 161.31 + 337.99 / 2;
  EXPECT_DOUBLE_EQ(r.kv_cache.value(), 300 * ctx * 327680.0);
  EXPECT_DOUBLE_EQ(r.bandwidth.value(), (r.weights.value() + r.kv_cache.value()) / 0.05);
  EXPECT_NEAR(r.bandwidth.value() / 1e12, 3.56, 0.02);  // more than one H100's 3.35 TB/s
  EXPECT_DOUBLE_EQ(r.generated_tokens_per_s, 300 / 0.05);
}

TEST(Requirements, RateLoadUsesLittlesLaw) {
  const ModelSpec m = builtin_model("llama-3.1-8b");
  InferenceWorkload w = chat(1);
  w.load = {};
  w.load.rate_per_s = 10;
  const Requirements r = derive_requirements(m, w, Precision::bf16, Precision::fp8_e4m3);
  EXPECT_NEAR(r.concurrency, 10 * (1.0 + (337.99 - 1) * 0.05), 1e-9);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_token.value(), 32 * 2 * 8 * 128 * 1.0);
}

TEST(Requirements, BadWorkloadsAreRejected) {
  const ModelSpec m = builtin_model("llama-3.1-8b");
  InferenceWorkload w = chat(10);
  w.load.rate_per_s = 3;
  EXPECT_THROW(derive_requirements(m, w, Precision::bf16, Precision::bf16), InputError);
  EXPECT_THROW(parse_sla("ttft_p99=1"), InputError);
  EXPECT_THROW(parse_sla("ttft_p99=-1,tpot_p99=1"), InputError);
  EXPECT_THROW(parse_sla("ttft_p99=nan,tpot_p99=1"), InputError);
  EXPECT_THROW(parse_sla("ttft_p99=1,tpot_p99=1,tbt=2"), InputError);
  EXPECT_DOUBLE_EQ(parse_sla("ttft_p99=1s,tpot_p99=50ms,e2e_p99=20").e2e_p99->value(), 20.0);
}

}  // namespace
}  // namespace memwall::plan
