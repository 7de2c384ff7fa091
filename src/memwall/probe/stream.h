// STREAM-style sustained memory bandwidth of the host (McCalpin, "Memory Bandwidth and Machine
// Balance in Current High Performance Computers", IEEE TCCA Newsletter 1995): four kernels over
// arrays of doubles far larger than the last-level cache, each timed best-of-N, with the bytes
// counted as STREAM counts them (one read or write per array element touched; write-allocate
// traffic is not counted). Own implementation: multithreaded with std::thread, static partition.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

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

struct StreamOptions {
  int threads = 1;
  int64_t elements = 0;   // per array
  int repetitions = 10;   // passes of the four kernels; the first is a warm-up and not timed
};

struct StreamKernelResult {
  StreamKernel kernel = StreamKernel::copy;
  Bytes bytes_per_pass;
  Seconds best_time, mean_time, worst_time;  // over the timed passes
  BytesPerSecond best_bandwidth() const { return bytes_per_pass / best_time; }
};

struct StreamResult {
  StreamOptions options;
  Bytes array_bytes;  // one array
  std::array<StreamKernelResult, 4> kernels;
  bool validated = false;  // final array contents equal the scalar recurrence
  const StreamKernelResult& operator[](StreamKernel k) const {
    return kernels[static_cast<size_t>(k)];
  }
};

// InputError for threads < 1, elements < 1024, repetitions < 2; InfeasibleError when the arrays
// cannot be allocated.
StreamResult run_stream(const StreamOptions& o);

}  // namespace memwall::probe
