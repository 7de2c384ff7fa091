#include "memwall/probe/stream.h"

#include <gtest/gtest.h>

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
    EXPECT_LE(k.mean_time, k.worst_time);
    EXPECT_DOUBLE_EQ(k.best_bandwidth().value(), (k.bytes_per_pass / k.best_time).value());
  }
  EXPECT_EQ(r[StreamKernel::triad].kernel, StreamKernel::triad);
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
