// One measurement of the host: STREAM bandwidth, BLAS GEMM ceilings per precision and the
// GEMV -> GEMM roofline sweep, at sizes chosen from the last-level cache (or --size-mb).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/probe/blas_gemm.h"
#include "memwall/probe/stream.h"

namespace memwall::probe {

// Last-level cache of this CPU (Linux sysfs, else sysconf); nullopt when the system does not say.
std::optional<Bytes> last_level_cache();

// Physical memory of this host; nullopt when the system does not say.
std::optional<Bytes> physical_memory();

// Linux's transparent-huge-page mode, e.g. `THP "madvise"`; "THP setting unknown" elsewhere.
std::string transparent_huge_pages();

// STREAM keeps making passes (past stream_repetitions, at most kMaxStreamPasses) until its timed
// kernels add up to this many seconds. Why: best-of-N takes the pass least disturbed by whatever
// shares the memory system, and on a VM that disturbance comes and goes over seconds: on this
// project's KVM VM the triad on huge pages switched between ~38 and ~65 GB/s, each state lasting
// from under a second to several seconds (bench/RESULTS.md). Ten passes over the default 134 MB
// arrays take 0.2-0.3 s, a sample of one state; ten over 2 GB arrays (the long run) take 3-5 s.
// Three seconds gives the default run about the long run's window, for ~3 s more wall time.
// STREAM's own rule (each timing at least 20 clock ticks, McCalpin's stream.c) is far exceeded
// either way.
inline constexpr double kDefaultStreamMinTimeS = 3.0;
// And each timing repeats its kernel until it lasts at least this long. Why: the best of many
// short timings is the best of many small samples of a fluctuating rate, which reads higher than
// the best of a few long ones: in one process on this VM the triad's best over single 6 ms sweeps
// of 134 MB arrays was 67 GB/s, over 50 ms spans of them 63-65, and over 2 GB arrays (100 ms a
// timing) 64-66 (bench/RESULTS.md). 50 ms is about the long run's own timing, so default and long
// runs report the same kind of sample; a 2 GB run is not changed by it.
inline constexpr double kDefaultStreamMinSampleS = 0.05;

struct HostProbeSizes {
  int threads = 1;
  int64_t stream_elements = 0;  // doubles per STREAM array
  int stream_repetitions = 10;
  Seconds stream_min_time{kDefaultStreamMinTimeS};      // see kDefaultStreamMinTimeS
  Seconds stream_min_sample{kDefaultStreamMinSampleS};  // see kDefaultStreamMinSampleS
  int64_t gemm_size = 2048;     // square m = n = k for the ceilings
  int gemm_repetitions = 3;
  int64_t sweep_rows = 4096, sweep_depth = 4096;  // the fp32 weight matrix
  int64_t sweep_max_columns = 512;
  int sweep_repetitions = 3;
  std::string sizing_note;  // why the default sizes depart from STREAM's rule; empty when they don't
};

// The default STREAM array and sweep-matrix size is capped here, so that `memwall probe` with no
// options stays near 0.8 GB resident (3 arrays) and well under a minute on a small machine.
inline constexpr double kDefaultArrayCapBytes = 256e6;

// STREAM's rule (McCalpin, STREAM FAQ): each array at least 4x the last-level cache, so no kernel
// runs from cache; 64 MB at least; 256 MB when the cache size is unknown; capped at
// kDefaultArrayCapBytes (a VM may report its host's whole L3, e.g. 512 MB, which would make 2 GB
// arrays and 6 GB resident), with the cap stated in `sizing_note`. The sweep's weight matrix has
// the same size. Square GEMMs are 2048 (4096 above 8 threads). `size_mb` (10^6 bytes per
// array) overrides; `quick` uses 8 MB arrays and small GEMMs (cache-resident: a smoke test, not a
// measurement). InputError for threads outside [1, 4096] or size_mb outside [1, 65536].
HostProbeSizes choose_host_sizes(int threads, std::optional<double> size_mb, bool quick,
                                 std::optional<Bytes> llc);

struct HostReport {
  HostProbeSizes sizes;
  std::optional<Bytes> last_level_cache;
  std::string blas;  // the BLAS library and its configuration
  StreamResult stream;
  std::vector<GemmMeasurement> gemms;  // fp32, fp64, and bf16 when the BLAS has it
  std::vector<std::string> notes;      // what was not measured and why
  std::optional<RooflineSweep> sweep;  // fp32; absent without a BLAS
  // Measured ceilings: STREAM triad bandwidth, and the best GEMM FLOP/s of precision `p` over the
  // square GEMMs and the sweep's points (nullopt when none ran).
  BytesPerSecond triad_bandwidth() const;
  std::optional<FlopsPerSecond> best_gemm(BlasPrecision p) const;
};

// InfeasibleError when the sizes need more than 80 % of the physical memory.
HostReport run_host_probe(const HostProbeSizes& s);

}  // namespace memwall::probe
