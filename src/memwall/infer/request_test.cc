#include "memwall/infer/request.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/infer/deployment.h"

namespace memwall::infer {
namespace {

TEST(InferRequest, BatchSpecForms) {
  EXPECT_TRUE(parse_batch_spec("max", "batch").max);
  EXPECT_EQ(parse_batch_spec("8", "batch").sizes, (std::vector<int64_t>{8}));
  EXPECT_EQ(parse_batch_spec("1,2,64", "batch").sizes, (std::vector<int64_t>{1, 2, 64}));
  for (const char* bad : {"", "0", "-1", "abc", "1,,2", "8x", "99999999"})
    EXPECT_THROW(parse_batch_spec(bad, "batch"), InputError) << bad;
}

Request llama8b(BatchSpec batch) {
  Request r;
  r.deployment.model = "llama-3.1-8b";
  r.deployment.gpu = "h100";
  r.batch = std::move(batch);
  r.input_tokens = 128;
  r.output_tokens = 128;
  return r;
}

TEST(InferRequest, MaxIsTheLargestBatchThatFits) {
  const Answer a = answer(Catalog::builtin(), llama8b({true, {}}));
  ASSERT_EQ(a.estimates.size(), 1u);
  EXPECT_GT(a.max_batch, 1);
  // --batch max is continuous batching: its concurrency, capped by what fits and the engine's
  // max sequences (1024 for the default engine on an 80 GB H100).
  ASSERT_TRUE(a.estimates[0].continuous.has_value());
  EXPECT_EQ(a.batches.size(), 1u);
  EXPECT_LE(a.batches[0], std::min<int64_t>(a.max_batch, 1024));
  EXPECT_EQ(a.estimates[0].workload.batch, a.batches[0]);
  EXPECT_EQ(a.estimates[0].continuous->binding, "max_num_seqs");
  // One more sequence does not fit.
  EXPECT_THROW(answer(Catalog::builtin(), llama8b({false, {a.max_batch + 1}})), InfeasibleError);
}

TEST(InferRequest, MaxSaysWhenTheFrontEndCannotKeepUp) {
  // 128/128 on Llama-3.1-8B: vLLM's engine finishes well over 1 / 12.8 ms requests/s, so its one
  // API server would be the limit; the default engine states no front-end figure.
  auto front_end_line = [](const Answer& a) {
    for (const auto& s : a.estimates.at(0).assumptions)
      if (s.rfind("front end:", 0) == 0) return true;
    return false;
  };
  Request r = llama8b({true, {}});
  EXPECT_FALSE(front_end_line(answer(Catalog::builtin(), r)));
  r.deployment.engine = "vllm";
  const Answer a = answer(Catalog::builtin(), r);
  ASSERT_TRUE(a.estimates.at(0).continuous.has_value());
  const Deployment d = make_deployment(Catalog::builtin(), r.deployment);
  EXPECT_GT(a.estimates[0].continuous->requests_per_s * d.engine_profile->frontend_per_request.value(), 0.5);
  EXPECT_TRUE(front_end_line(a));
  // Long prompts on a 70B at TP 4: a few requests/s, the front end idles.
  r.deployment.model = "llama-3.1-70b";
  r.deployment.tp = 4;
  r.input_tokens = 2000;
  r.output_tokens = 200;
  EXPECT_FALSE(front_end_line(answer(Catalog::builtin(), r)));
}

TEST(InferRequest, SweepKeepsTheBatchesThatFitInOrder) {
  const Answer fits = answer(Catalog::builtin(), llama8b({true, {}}));
  const Answer a = answer(Catalog::builtin(), llama8b({false, {1, 8, fits.max_batch + 1}}));
  EXPECT_TRUE(a.sweep());
  ASSERT_EQ(a.estimates.size(), 2u);
  EXPECT_EQ(a.estimates[0].workload.batch, 1);
  EXPECT_EQ(a.estimates[1].workload.batch, 8);
  const Json j = to_json(a, false);
  ASSERT_EQ(j["sweep"].size(), 2u);
  EXPECT_EQ(j["batch"], 8);  // the top level is the last batch that fits
  EXPECT_EQ(j["sweep"][1]["tpot_s"], j["tpot_s"]);
  EXPECT_LT(j["sweep"][0]["throughput_tokens_per_s"].get<double>(),
            j["sweep"][1]["throughput_tokens_per_s"].get<double>());
}

TEST(InferRequest, BadLengthsNameTheField) {
  Request r = llama8b({false, {1}});
  r.input_tokens = 0;
  try {
    answer(Catalog::builtin(), r);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("input"), std::string::npos);
  }
}

}  // namespace
}  // namespace memwall::infer
