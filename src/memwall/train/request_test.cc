#include "memwall/train/request.h"

#include <gtest/gtest.h>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"

namespace memwall::train {
namespace {

TEST(TrainRequest, DefaultNodeAndFabricByGeneration) {
  const Catalog& c = Catalog::builtin();
  EXPECT_EQ(default_node(c, c.accelerator("a100")).id, "hgx-a100");
  EXPECT_EQ(default_node(c, c.accelerator("h100")).id, "hgx-h100");
  EXPECT_EQ(default_fabric(c.accelerator("a100")), "ib-hdr");
  EXPECT_EQ(default_fabric(c.accelerator("h100")), "ib-ndr");
  EXPECT_EQ(default_fabric(c.accelerator("b200")), "ib-xdr");
}

Request gpt3() {
  Request r;
  r.model = "gpt3-175b";
  r.gpu = "a100";
  r.config.gpus = 1024;
  r.config.tp = 8;
  r.config.pp = 8;
  r.config.micro_batch = 1;
  r.config.global_batch = 1536;
  r.config.seq = 2048;
  r.config.recompute = Recompute::selective;
  r.config.sequence_parallel = true;
  r.config.zero = 1;
  return r;
}

TEST(TrainRequest, FabricOnlyWhenTheGpusSpanNodes) {
  Request r = gpt3();
  const Answer a = answer(Catalog::builtin(), r);
  EXPECT_EQ(a.fabric_id, "ib-hdr");
  EXPECT_FALSE(a.run.has_value());
  const Json j = to_json(a);
  EXPECT_EQ(j["config"]["dp"], 16);  // 1024 / (8 x 8)
  EXPECT_FALSE(j.contains("train"));
  EXPECT_DOUBLE_EQ(j["mfu"].get<double>(), j["model_tflops_per_gpu"].get<double>() / 312.0);
}

TEST(TrainRequest, TokensAndPriceGiveTheRun) {
  Request r = gpt3();
  r.tokens = 300e9;
  r.price_per_gpu_hour = 2;
  const Answer a = answer(Catalog::builtin(), r);
  ASSERT_TRUE(a.run.has_value());
  // steps = tokens / (global batch x seq); GPU-hours = GPUs x steps x step time / 3600.
  EXPECT_NEAR(a.run->steps, 300e9 / (1536.0 * 2048), 1e-6);
  EXPECT_NEAR(a.run->gpu_hours, 1024 * a.run->steps * a.estimate.step_time.value() / 3600, 1e-3);
  EXPECT_NEAR(to_json(a)["train"]["cost_usd"].get<double>(), 2 * a.run->gpu_hours, 1e-6);
  r.price_per_gpu_hour = -1;
  r.tokens.reset();
  EXPECT_THROW(answer(Catalog::builtin(), r), InputError);
}

}  // namespace
}  // namespace memwall::train
