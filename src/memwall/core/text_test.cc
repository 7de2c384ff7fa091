#include "memwall/core/text.h"

#include <gtest/gtest.h>

namespace memwall {
namespace {

// iequals and istarts_with answer what comparing the to_lower copies answers (the lookups that
// switched to them must match the same entries).
TEST(Text, CaseInsensitiveComparisonsAgreeWithToLower) {
  const char* words[] = {"", "H100", "h100", "nvidia-H100-sxm", "NVIDIA", "nvid", "hgx-h100", "Ü100", "h1000"};
  for (const char* a : words) {
    for (const char* b : words) {
      EXPECT_EQ(iequals(a, b), to_lower(a) == to_lower(b)) << a << " / " << b;
      EXPECT_EQ(istarts_with(a, b), to_lower(a).rfind(to_lower(b), 0) == 0) << a << " / " << b;
    }
  }
  EXPECT_TRUE(iequals("Hgx-H100", "hgx-h100"));
  EXPECT_FALSE(iequals("hgx-h100", "hgx-h10"));
  EXPECT_TRUE(istarts_with("Hopper/fp8", "hopper"));
  EXPECT_FALSE(istarts_with("hop", "hopper"));
}

}  // namespace
}  // namespace memwall
