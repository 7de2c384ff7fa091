#include "memwall/comm/sizes.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::comm {
namespace {

TEST(Sizes, BinaryPrefixesAndRanges) {
  EXPECT_DOUBLE_EQ(parse_size("1K", "s").value(), 1024);
  EXPECT_DOUBLE_EQ(parse_size("8G", "s").value(), 8.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_size("1.5MiB", "s").value(), 1.5 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_size("4096", "s").value(), 4096);
  const auto r = parse_sizes("1K..8G", "s");
  ASSERT_EQ(r.size(), 24u);  // 2^10 .. 2^33
  EXPECT_DOUBLE_EQ(r.back().value(), 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_sizes("1M, 1G", "s").size(), 2u);
  EXPECT_EQ(format_size(Bytes(1024)), "1K");
  EXPECT_EQ(format_size(Bytes(1.5 * 1024 * 1024)), "1.5M");
  EXPECT_EQ(format_size(Bytes(1000)), "1000");
}

TEST(Sizes, BadSizesAreRejected) {
  for (const char* bad : {"", "0", "-1K", "1X", "K", "1..", "8G..1K", "2T", "1.2.3M", "nan", "1e3"})
    EXPECT_THROW(parse_sizes(bad, "--sizes"), InputError) << bad;
  EXPECT_EQ(parse_sizes("1..1T", "--sizes").size(), 41u);
}

}  // namespace
}  // namespace memwall::comm
