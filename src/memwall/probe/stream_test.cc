#include "memwall/probe/stream.h"

#include <gtest/gtest.h>

#include <string>

#include "memwall/core/error.h"

namespace memwall::probe {
namespace {

TEST(Stream, BytesCountedAsStreamDoes) {
  // McCalpin's table: copy and scale 16 bytes per iteration, add and triad 24 (doubles).
  EXPECT_EQ(stream_bytes(StreamKernel::copy, 1000).value(), 2 * 8 * 1000);
  EXPECT_EQ(stream_bytes(StreamKernel::scale, 1000).value(), 2 * 8 * 1000);
  EXPECT_EQ(stream_bytes(StreamKernel::add, 1000).value(), 3 * 8 * 1000);
  EXPECT_EQ(stream_bytes(StreamKernel::triad, 12'500'000).value(), 3.0 * 8 * 12'500'000);
  EXPECT_EQ(stream_flops_per_element(StreamKernel::copy), 0);
  EXPECT_EQ(stream_flops_per_element(StreamKernel::scale), 1);
  EXPECT_EQ(stream_flops_per_element(StreamKernel::add), 1);
  EXPECT_EQ(stream_flops_per_element(StreamKernel::triad), 2);
}

TEST(Stream, SmallRunValidatesAndReportsEachKernel) {
  const StreamResult r = run_stream({2, 100'000, 4});
  EXPECT_TRUE(r.validated);
  EXPECT_EQ(r.options.threads, 2);
  EXPECT_EQ(r.array_bytes.value(), 800'000);
  for (size_t i = 0; i < kStreamKernels.size(); ++i) {
    const auto& k = r.kernels[i];
    EXPECT_EQ(k.kernel, kStreamKernels[i]);
    EXPECT_EQ(k.bytes_per_pass.value(), stream_arrays_touched(k.kernel) * 800'000.0);
    EXPECT_LE(k.best_time, k.mean_time);
    EXPECT_LE(k.best_time, k.median_time);
    EXPECT_LE(k.mean_time, k.worst_time);
    EXPECT_DOUBLE_EQ(k.best_bandwidth().value(), (k.bytes_per_pass / k.best_time).value());
  }
  EXPECT_EQ(r[StreamKernel::triad].kernel, StreamKernel::triad);
}

TEST(Stream, MinTimeAddsPassesUpToTheCap) {
  // An hour of kernels over 4096 doubles would need far more than kMaxStreamPasses: the run makes
  // exactly that many passes, past the 3 asked for (no assertion on speed: a busy machine is slow).
  StreamOptions o{2, 4096, 3, Seconds(600)};
  const StreamResult capped = run_stream(o);
  EXPECT_EQ(capped.options.repetitions, kMaxStreamPasses);
  EXPECT_TRUE(capped.validated);  // 200 passes of a <- 15 a stay finite
  for (const auto& k : capped.kernels) {
    EXPECT_LE(k.best_time, k.median_time);
    EXPECT_LE(k.median_time, k.worst_time);
  }
  // Without min_time exactly the repetitions asked for.
  EXPECT_EQ(run_stream({1, 4096, 4}).options.repetitions, 4);
  EXPECT_THROW(run_stream({1, 4096, 4, Seconds(-1)}), InputError);
}

TEST(Stream, MinSampleRepeatsEachKernelAndCountsPerSweep) {
  // 100k doubles sweep in far less than 1 s: each timing repeats its kernel, at most 64 times, and
  // the arrays still validate (a kernel never reads what it writes).
  StreamOptions o{2, 100'000, 3};
  o.min_sample = Seconds(1.0);
  const StreamResult r = run_stream(o);
  EXPECT_TRUE(r.validated);
  for (const auto& k : r.kernels) {
    EXPECT_GT(k.sweeps_per_timing, 1);
    EXPECT_LE(k.sweeps_per_timing, kMaxSweepsPerTiming);
    EXPECT_EQ(k.bytes_per_pass.value(), stream_arrays_touched(k.kernel) * 800'000.0);
  }
  EXPECT_EQ(run_stream({2, 100'000, 3}).kernels[0].sweeps_per_timing, 1);
  o.min_sample = Seconds(-1);
  EXPECT_THROW(run_stream(o), InputError);
}

TEST(Stream, HugePageBytesReadFromSmaps) {
  const std::string smaps =
      "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
      "Size:               4096 kB\n"
      "AnonHugePages:      4096 kB\n"
      "VmFlags: rd wr mr mw me ac hg\n"
      "7f0000400000-7f0000600000 rw-p 00000000 00:00 0 \n"
      "AnonHugePages:      2048 kB\n"
      "7f1000000000-7f1000021000 r-xp 00000000 08:01 1234    /usr/lib/libfoo.so\n"
      "AnonHugePages:         0 kB\n";
  // Only the first mapping overlaps the array.
  const auto one = smaps_huge_page_bytes(smaps, {{0x7f0000100000, 0x7f0000300000}});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->value(), 4096 * 1024.0);
  const auto both = smaps_huge_page_bytes(
      smaps, {{0x7f0000100000, 0x7f0000300000}, {0x7f00003ff000, 0x7f0000500000}});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->value(), 6144 * 1024.0);
  EXPECT_EQ(smaps_huge_page_bytes(smaps, {{0x1000, 0x2000}})->value(), 0);
  EXPECT_FALSE(smaps_huge_page_bytes("no such field\n", {{0x1000, 0x2000}}));
}

TEST(Stream, ArraysReportTheirHugePages) {
  // 8 MB arrays: four 2 MiB huge pages each where THP is "always" or "madvise"; whatever the
  // kernel grants, never more than the arrays.
  const StreamResult r = run_stream({2, 1'000'000, 2});
  if (r.huge_page_bytes) {
    EXPECT_LE(r.huge_page_bytes->value(), 3 * r.array_bytes.value());
  }
}

TEST(Stream, ThreadsNeverExceedTheWork) {
  // 1024 elements leave 128 per thread at most: 8-element chunks at least.
  EXPECT_EQ(run_stream({4096, 1024, 2}).options.threads, 128);
}

TEST(Stream, BadOptionsAreInputErrors) {
  EXPECT_THROW(run_stream({0, 100'000, 4}), InputError);
  EXPECT_THROW(run_stream({1, 10, 4}), InputError);
  EXPECT_THROW(run_stream({1, 100'000, 1}), InputError);
  EXPECT_THROW(run_stream({1, 100'000, 101}), InputError);
}

}  // namespace
}  // namespace memwall::probe
