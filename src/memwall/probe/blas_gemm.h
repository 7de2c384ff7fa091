// Compute ceilings of the host through a maintained BLAS (OpenBLAS): the achieved FLOP/s of large
// square GEMMs per precision, and the batched GEMV -> GEMM sweep that walks the roofline from
// bandwidth-bound (one right-hand column) to compute-bound (hundreds of columns).
// FLOPs of C[m,n] = A[m,k] B[k,n]: 2 m n k (one multiply and one add per term).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"

namespace memwall::probe {

// Element types the host BLAS multiplies: sgemm (fp32), dgemm (fp64), sbgemm (bf16 inputs, fp32
// accumulate and output; OpenBLAS only when built with BUILD_BFLOAT16).
enum class BlasPrecision { fp32, fp64, bf16 };
std::string to_string(BlasPrecision p);
int bytes_per_element(BlasPrecision p);  // of the inputs A and B: 4, 8, 2
int output_bytes_per_element(BlasPrecision p);  // of C: 4, 8, 4 (sbgemm writes fp32)

// Whether this build links a BLAS, and whether it has cblas_sbgemm (detected at configure time).
bool blas_available();
bool blas_has_bf16();
std::string blas_description();  // "OpenBLAS 0.3.21 ..." or "none (built without OpenBLAS)"

Flops gemm_flops(int64_t m, int64_t n, int64_t k);
// Compulsory traffic of one GEMM: A and B read once, C written once (beta = 0).
Bytes gemm_bytes(int64_t m, int64_t n, int64_t k, BlasPrecision p);
// FLOPs per byte of that traffic.
double gemm_intensity(int64_t m, int64_t n, int64_t k, BlasPrecision p);

struct GemmMeasurement {
  BlasPrecision precision = BlasPrecision::fp32;
  std::string routine;  // the BLAS call timed: sgemm, dgemm, sbgemm, or sgemv/dgemv when n = 1
  int64_t m = 0, n = 0, k = 0;
  Flops flops;
  Bytes bytes;
  Seconds best_time;  // best of the timed repetitions (one untimed warm-up first)
  FlopsPerSecond achieved() const { return flops / best_time; }
  BytesPerSecond bandwidth() const { return bytes / best_time; }
  double intensity() const { return flops.value() / bytes.value(); }
};

// Times C = A B (row-major, no transposes) with `threads` BLAS threads; a single column (n = 1)
// runs as a GEMV (cblas_sgemv/dgemv), the call a decode step makes. InputError for sizes < 1
// or repetitions < 1; InfeasibleError when the build has no BLAS or no path for `p`.
GemmMeasurement time_gemm(BlasPrecision p, int64_t m, int64_t n, int64_t k, int threads,
                          int repetitions);

// The sweep: one weight matrix W[m, k] times X[k, n] for n = 1, 2, 4 ... max_columns.
struct SweepPoint {
  GemmMeasurement gemm;
  bool compute_bound = false;  // intensity at or above the sweep's ridge point
};
struct RooflineSweep {
  BlasPrecision precision = BlasPrecision::fp32;
  int64_t rows = 0, depth = 0;  // m and k of the weight matrix
  std::vector<SweepPoint> points;
  // The bandwidth roof is the bytes/s of the n = 1 point (a GEMV streams W once), the compute roof
  // the best FLOP/s of the sweep; they meet at ridge = compute roof / bandwidth roof (FLOP/byte)
  // (Williams, Waterman, Patterson, "Roofline", CACM 52(4) 2009, fig. 1).
  BytesPerSecond bandwidth_roof;
  FlopsPerSecond compute_roof;
  double ridge_intensity = 0;
  std::optional<int64_t> first_compute_bound_columns;  // smallest n at or past the ridge
};
// Columns 1, 2, 4 ... up to and including max_columns (a power of two need not end it).
std::vector<int64_t> sweep_columns(int64_t max_columns);
RooflineSweep run_roofline_sweep(BlasPrecision p, int64_t rows, int64_t depth,
                                 int64_t max_columns, int threads, int repetitions);

}  // namespace memwall::probe
