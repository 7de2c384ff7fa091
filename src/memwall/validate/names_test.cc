#include "memwall/validate/names.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::validate {
namespace {

// The hardware texts of the dev validation cases resolve to catalog entries by id or alias.
TEST(ValidateNames, CaseHardwareTextsResolve) {
  const Catalog& c = Catalog::builtin();
  std::string note;
  EXPECT_EQ(hardware_id("RTX 6000 Ada 48GB", c, note), "nvidia-rtx-6000-ada");
  EXPECT_EQ(hardware_id("NVIDIA GH200 SXM (900W, 141GiB HBM3e)", c, note), "nvidia-gh200-144gb");
  EXPECT_EQ(hardware_id("NVIDIA L40", c, note), "nvidia-l40");
  EXPECT_EQ(hardware_id("NVIDIA L40S", c, note), "nvidia-l40s");
  EXPECT_EQ(hardware_id("H200 SXM", c, note), "nvidia-h200-sxm");  // not taken for a GH200
  EXPECT_TRUE(note.empty()) << note;
  EXPECT_THROW(hardware_id("Quadro RTX 6000", c, note), InputError);  // Turing: not in catalog
}

// FP4 texts are FP4 even when an FP8 KV cache is named beside them; MXFP4 scales blocks of 32
// (OCP MX), NVFP4 keeps the fp4 default of 16; older texts keep their meaning.
TEST(ValidateNames, CasePrecisionTexts) {
  std::string note;
  const auto mx = case_precision("MXFP4 (weights and activations)", note);
  EXPECT_EQ(mx.weight, Precision::fp4);
  EXPECT_EQ(mx.group, 32);
  EXPECT_FALSE(mx.kv);
  const auto nv = case_precision("NVFP4 weights, FP8 KV cache", note);
  EXPECT_EQ(nv.weight, Precision::fp4);
  EXPECT_FALSE(nv.group);
  EXPECT_EQ(nv.kv, Precision::fp8_e4m3);
  EXPECT_EQ(case_precision("FP8", note).weight, Precision::fp8_e4m3);
  EXPECT_EQ(case_precision("GGUF Q4_0 (4-bit blockwise)", note).group, 32);
  EXPECT_EQ(case_precision("BF16", note).weight, Precision::bf16);
  EXPECT_THROW(case_precision("fp5", note), InputError);
}

TEST(Names, ReleaseInReadsTheFirstDottedNumberFromAPosition) {
  EXPECT_EQ(release_in("vLLM 0.11.0"), "0.11.0");
  EXPECT_EQ(release_in("TensorRT-LLM v0.6.1."), "0.6.1");
  const std::string both = "pytorch 2.4, vllm 0.6.3";
  EXPECT_EQ(release_in(both), "2.4");
  EXPECT_EQ(release_in(both, both.find("vllm")), "0.6.3");
  EXPECT_EQ(release_in("sglang", std::string::npos), "");
  EXPECT_EQ(release_in("no release here"), "");
}

}  // namespace
}  // namespace memwall::validate
