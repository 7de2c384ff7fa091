#include "memwall/core/units.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"
#include "memwall/core/precision.h"

namespace memwall {
namespace {

TEST(Units, DivisionGivesTime) {
  const Seconds t = gb(3.35) / gb_per_s(3350);  // 3.35 GB at 3.35 TB/s
  EXPECT_DOUBLE_EQ(t.value(), 1e-3);
  const Seconds c = Flops(989.4e12) / tflop_per_s(989.4);
  EXPECT_DOUBLE_EQ(c.value(), 1.0);
  EXPECT_DOUBLE_EQ((Watts(700) * Seconds(3600)).value(), 2.52e6);
}

TEST(Precision, BytesPerElementIncludesGroupScales) {
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::bf16), 2.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp8_e4m3), 1.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::int4), 0.5 + 2.0 / 128.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp4), 0.5 + 1.0 / 16.0);
  EXPECT_EQ(parse_precision("FP8"), Precision::fp8_e4m3);
  EXPECT_EQ(parse_precision("bfloat16"), Precision::bf16);
  EXPECT_FALSE(parse_precision("fp7").has_value());
  EXPECT_THROW(parse_precision_or_throw("fp7", "--kv-precision"), InputError);
}

TEST(Errors, NearestNamesSuggestsClosest) {
  const std::vector<std::string> known = {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b"};
  EXPECT_EQ(nearest_names("llama-3.1-7b", known, 1).front(), "llama-3.1-8b");
  try {
    throw InputError::unknown_name("--model", "qwen-72b", known);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("qwen2.5-72b"), std::string::npos);
  }
  EXPECT_THROW(require_positive(std::nan(""), "--rate"), InputError);
  EXPECT_THROW(require_fraction(1.5, "--util"), InputError);
}

}  // namespace
}  // namespace memwall
