#include "memwall/train/framework.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::train {
namespace {

TEST(TrainingFramework, EveryFrameworkOfTheIssueIsThereWithSources) {
  for (const char* id :
       {"megatron", "nemo", "fsdp", "fsdp-compiled", "deepspeed", "nanotron", "mindspeed"}) {
    const Framework& f = training_framework(id);
    EXPECT_FALSE(f.sources.empty()) << id;
    EXPECT_FALSE(f.efficiency.empty()) << id;
    EXPECT_GE(f.flash_attention_version, 1);
    EXPECT_LE(f.flash_attention_version, 3);
  }
  EXPECT_TRUE(training_framework("megatron").distributed_optimizer);
  EXPECT_TRUE(training_framework("fsdp").fsdp);
  EXPECT_FALSE(training_framework("fsdp").fused_elementwise);
  EXPECT_TRUE(training_framework("fsdp-compiled").fused_elementwise);
  // Adam: Megatron/DeepSpeed run fused kernels; PyTorch's default AdamW is for-each (op by op).
  EXPECT_TRUE(training_framework("megatron").fused_optimizer);
  EXPECT_TRUE(training_framework("deepspeed").fused_optimizer);
  EXPECT_FALSE(training_framework("fsdp").fused_optimizer);
  EXPECT_TRUE(training_framework("deepspeed").bf16_grad_accumulation_pass);
  EXPECT_FALSE(training_framework("megatron").bf16_grad_accumulation_pass);
  EXPECT_THROW(training_framework("megatorn"), InputError);
}

}  // namespace
}  // namespace memwall::train
