// STREAM-style sustained memory bandwidth of the host (McCalpin, "Memory Bandwidth and Machine
// Balance in Current High Performance Computers", IEEE TCCA Newsletter 1995): four kernels over
// arrays of doubles far larger than the last-level cache, each timed best-of-N, with the bytes
// counted as STREAM counts them (one read or write per array element touched; write-allocate
// traffic is not counted). Own implementation: multithreaded with std::thread, static partition.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "memwall/core/units.h"

namespace memwall::probe {

enum class StreamKernel { copy, scale, add, triad };
inline constexpr std::array<StreamKernel, 4> kStreamKernels = {
    StreamKernel::copy, StreamKernel::scale, StreamKernel::add, StreamKernel::triad};
std::string_view to_string(StreamKernel k);

// Arrays one kernel touches: copy c=a and scale b=q*c read one and write one (2); add c=a+b and
// triad a=b+q*c read two and write one (3). STREAM's table of "bytes/iter" (McCalpin 1995).
int stream_arrays_touched(StreamKernel k);
// FLOPs per element: copy 0, scale 1, add 1, triad 2 (multiply-add counted as two).
int stream_flops_per_element(StreamKernel k);
// Bytes one pass moves over `elements` doubles: arrays touched x 8 x elements.
Bytes stream_bytes(StreamKernel k, int64_t elements);

// The most passes one run makes, whatever min_time asks for, and the most back-to-back sweeps of
// one kernel in one timing, whatever min_sample asks for.
inline constexpr int kMaxStreamPasses = 200;
inline constexpr int kMaxSweepsPerTiming = 64;

struct StreamOptions {
  int threads = 1;
  int64_t elements = 0;  // per array
  int repetitions = 10;  // passes of the four kernels at least; the first is a warm-up, not timed
  // More passes until the timed kernels add up to this much time (at most kMaxStreamPasses), so
  // that "best of N" samples seconds of the machine, not a fraction of one (see host_probe.h).
  Seconds min_time{0.0};
  // After the warm-up each timing repeats its kernel back-to-back so that it lasts about this long
  // at the fastest sweep seen (at most kMaxSweepsPerTiming sweeps); times and bytes stay per sweep
  // (see host_probe.h).
  Seconds min_sample{0.0};
};

struct StreamKernelResult {
  StreamKernel kernel = StreamKernel::copy;
  Bytes bytes_per_pass;
  // Over the timed passes, per sweep over the arrays (a timing of k sweeps counts as its time / k).
  Seconds best_time, median_time, mean_time, worst_time;
  int sweeps_per_timing = 1;  // in the last pass (it can grow over the first passes)
  BytesPerSecond best_bandwidth() const { return bytes_per_pass / best_time; }
};

struct StreamResult {
  StreamOptions options;  // as run: threads used, repetitions = passes made (warm-up included)
  Bytes array_bytes;  // one array
  std::array<StreamKernelResult, 4> kernels;
  bool validated = false;  // final array contents equal the scalar recurrence
  // Bytes of the three arrays backed by transparent huge pages after the first touch (Linux
  // /proc/self/smaps); nullopt where the system does not say. See run_stream for why it matters.
  std::optional<Bytes> huge_page_bytes;
  const StreamKernelResult& operator[](StreamKernel k) const {
    return kernels[static_cast<size_t>(k)];
  }
};

// InputError for threads < 1, elements < 1024, repetitions < 2; InfeasibleError when the arrays
// cannot be allocated. The arrays are 2 MiB-aligned and advised MADV_HUGEPAGE (Linux).
StreamResult run_stream(const StreamOptions& o);

// Sum of "AnonHugePages" over the mappings of a /proc/PID/smaps text that overlap any of the
// address ranges [first, second); nullopt when the text has no AnonHugePages field at all.
std::optional<Bytes> smaps_huge_page_bytes(
    std::string_view smaps, const std::vector<std::pair<uintptr_t, uintptr_t>>& ranges);

}  // namespace memwall::probe
