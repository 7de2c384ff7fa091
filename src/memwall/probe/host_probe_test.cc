#include "memwall/probe/host_probe.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::probe {
namespace {

constexpr double kMB = 1e6;

double array_bytes(const HostProbeSizes& s) { return double(s.stream_elements) * sizeof(double); }

TEST(HostProbeSizes, FollowStreamsRuleBelowTheCap) {
  // 32 MB L3 (this project's VM): 4 x 32 = 128 MB per array, no note.
  const HostProbeSizes s = choose_host_sizes(2, std::nullopt, false, Bytes(32 * 1024 * 1024.0));
  EXPECT_NEAR(array_bytes(s), 4 * 32 * 1024 * 1024.0, 8);
  EXPECT_TRUE(s.sizing_note.empty());
  // A tiny cache still gets 64 MB arrays.
  EXPECT_NEAR(array_bytes(choose_host_sizes(1, std::nullopt, false, Bytes(1 * kMB))), 64 * kMB, 8);
}

TEST(HostProbeSizes, CapALargeReportedCacheAndSayWhy) {
  // A VM that reports a 512 MB L3 would get 2 GB arrays (6 GB resident) under the plain rule.
  const HostProbeSizes s = choose_host_sizes(2, std::nullopt, false, Bytes(512 * kMB));
  EXPECT_NEAR(array_bytes(s), kDefaultArrayCapBytes, 8);
  EXPECT_LE(4.0 * double(s.sweep_rows * s.sweep_depth), kDefaultArrayCapBytes);
  EXPECT_NE(s.sizing_note.find("capped at 256 MB"), std::string::npos) << s.sizing_note;
  EXPECT_NE(s.sizing_note.find("--size-mb 2048"), std::string::npos) << s.sizing_note;
  EXPECT_NE(s.sizing_note.find("still exceed the cache"), std::string::npos) << s.sizing_note;
  // A cache as large as the three capped arrays: the note says the figures may be cache bandwidth.
  const HostProbeSizes huge = choose_host_sizes(2, std::nullopt, false, Bytes(1152 * kMB));
  EXPECT_NE(huge.sizing_note.find("may be cache bandwidth"), std::string::npos);
}

TEST(HostProbeSizes, StreamRunsForAMinimumTimeExceptQuick) {
  // The default and --size-mb runs sample the same few seconds as the long run; --quick does not.
  EXPECT_EQ(choose_host_sizes(2, std::nullopt, false, Bytes(32 * kMB)).stream_min_time.value(),
            kDefaultStreamMinTimeS);
  EXPECT_EQ(choose_host_sizes(2, 2048.0, false, std::nullopt).stream_min_time.value(),
            kDefaultStreamMinTimeS);
  EXPECT_EQ(choose_host_sizes(2, 2048.0, false, std::nullopt).stream_min_sample.value(),
            kDefaultStreamMinSampleS);
  const HostProbeSizes quick = choose_host_sizes(2, std::nullopt, true, std::nullopt);
  EXPECT_EQ(quick.stream_min_time.value(), 0);
  EXPECT_EQ(quick.stream_min_sample.value(), 0);
  EXPECT_EQ(quick.stream_repetitions, 3);
}

TEST(HostProbeSizes, SizeMbOverridesTheCap) {
  const HostProbeSizes s = choose_host_sizes(2, 2048.0, false, Bytes(512 * kMB));
  EXPECT_NEAR(array_bytes(s), 2048 * kMB, 8);
  EXPECT_TRUE(s.sizing_note.empty());
  EXPECT_THROW(choose_host_sizes(2, 0.5, false, std::nullopt), InputError);
  EXPECT_THROW(choose_host_sizes(0, std::nullopt, false, std::nullopt), InputError);
}

}  // namespace
}  // namespace memwall::probe
