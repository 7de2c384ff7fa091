#include "memwall/train/request.h"

#include <gtest/gtest.h>

#include <string>

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

TEST(TrainRequest, FrameworkDefaultsAreAppliedAndStated) {
  // Llama-3 70B on 64 H100, TP4 PP4 CP2 VPP5 fp8: fits only with the distributed optimizer and
  // sequence parallelism that Megatron-LM / NeMo recipes use.
  Request r;
  r.model = "llama-3.1-70b";
  r.gpu = "h100";
  TrainConfig& c = r.config;
  c.gpus = 64;
  c.tp = 4;
  c.pp = 4;
  c.cp = 2;
  c.vpp = 5;
  c.micro_batch = 1;
  c.global_batch = 128;
  c.seq = 8192;
  c.precision = Precision::fp8_e4m3;
  const Answer a = answer(Catalog::builtin(), r);
  EXPECT_EQ(a.config.zero, 1);
  EXPECT_TRUE(a.config.sequence_parallel);
  EXPECT_EQ(a.framework, "megatron");
  EXPECT_TRUE(a.estimate.memory.fits());
  const Json j = to_json(a);
  EXPECT_TRUE(j["defaults_applied"]["zero"].get<bool>());
  EXPECT_TRUE(j["defaults_applied"]["recompute_auto"].get<bool>());
  EXPECT_GE(j["assumptions"].size(), 4u);
  // Told otherwise, the defaults step back.
  r.zero = 0;
  r.sequence_parallel = false;
  r.recompute = "none";
  EXPECT_THROW(answer(Catalog::builtin(), r), InfeasibleError);
  // FSDP shards fully and runs eager element-wise kernels.
  Request f = r;
  f.zero.reset();
  f.sequence_parallel.reset();
  f.recompute.reset();
  f.framework = "fsdp";
  const Answer b = answer(Catalog::builtin(), f);
  EXPECT_EQ(b.config.zero, 3);
  EXPECT_FALSE(b.config.fused_elementwise);
  EXPECT_FALSE(b.config.sequence_parallel);
  EXPECT_FALSE(b.config.fused_optimizer);  // torch AdamW for-each, op by op
  EXPECT_FALSE(to_json(b)["config"]["fused_optimizer"].get<bool>());
  // DeepSpeed in bf16 adds the BF16_Optimizer accumulation pass, and says so; fp8 (TE) does not.
  Request d = f;
  d.framework = "deepspeed";
  d.config.precision = Precision::bf16;
  const Answer ds = answer(Catalog::builtin(), d);
  EXPECT_TRUE(ds.config.fp32_grad_accumulation_pass);
  EXPECT_TRUE(ds.config.fused_optimizer);
  EXPECT_NE(to_json(ds)["assumptions"][0].get<std::string>().find("BF16_Optimizer"),
            std::string::npos);
  EXPECT_FALSE(answer(Catalog::builtin(), f).config.fp32_grad_accumulation_pass);
  f.framework = "megatorn";
  EXPECT_THROW(answer(Catalog::builtin(), f), InputError);
}

TEST(TrainRequest, RecomputeAutoPicksTheCheapestThatFits) {
  Request r = gpt3();
  r.config.tp = 8;
  r.config.pp = 8;
  r.recompute = "auto";
  r.sequence_parallel = true;
  r.zero = 1;
  const Answer a = answer(Catalog::builtin(), r);
  EXPECT_TRUE(a.recompute_chosen);
  EXPECT_TRUE(a.estimate.memory.fits());
  // Anything cheaper than the chosen level does not fit.
  for (Recompute x : {Recompute::none, Recompute::selective}) {
    if (x == a.config.recompute) break;
    TrainConfig c = a.config;
    c.recompute = x;
    EXPECT_FALSE(memory_per_gpu(a.setup, c).fits());
  }
}

}  // namespace
}  // namespace memwall::train
