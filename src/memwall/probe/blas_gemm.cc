#include "memwall/probe/blas_gemm.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <new>

#include "memwall/core/dynamic_library.h"
#include "memwall/core/error.h"

#if MEMWALL_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace memwall::probe {

std::string to_string(BlasPrecision p) {
  switch (p) {
    case BlasPrecision::fp32: return "fp32";
    case BlasPrecision::fp64: return "fp64";
    case BlasPrecision::bf16: return "bf16";
  }
  return "?";
}

int bytes_per_element(BlasPrecision p) {
  return p == BlasPrecision::fp64 ? 8 : p == BlasPrecision::bf16 ? 2 : 4;
}

int output_bytes_per_element(BlasPrecision p) { return p == BlasPrecision::fp64 ? 8 : 4; }

namespace {

#if MEMWALL_HAVE_OPENBLAS
// OpenBLAS is opened when the probe first needs it, not linked: a linked OpenBLAS starts its
// worker threads when the process loads (its library constructor), which cost every memwall
// command about 18 ms of CPU time (bench/RESULTS.md "OpenBLAS loaded by the probe only") although
// only `memwall probe` multiplies matrices. The prototypes are cblas.h's (Debian libopenblas-dev),
// so a signature change fails the build; the library is Debian's run-time one (SONAME
// libopenblas.so.0), else the one the build found.
struct Blas {
  std::unique_ptr<DynamicLibrary> lib;
  std::string why;  // why it is not there
  decltype(&openblas_get_config) get_config = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_sgemv) sgemv = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_dgemv) dgemv = nullptr;
#if MEMWALL_HAVE_OPENBLAS_BF16
  decltype(&cblas_sbgemm) sbgemm = nullptr;  // only in OpenBLAS built with BUILD_BFLOAT16
#else
  void* sbgemm = nullptr;  // the OpenBLAS the build found had none
#endif
};

const Blas& blas() {
  static const Blas b = [] {
    Blas out;
    out.lib = DynamicLibrary::open_first({"libopenblas.so.0", MEMWALL_OPENBLAS_LIBRARY}, out.why);
    if (!out.lib) return out;
    out.lib->bind("openblas_get_config", out.get_config);
    out.lib->bind("openblas_set_num_threads", out.set_num_threads);
    out.lib->bind("cblas_sgemm", out.sgemm);
    out.lib->bind("cblas_sgemv", out.sgemv);
    out.lib->bind("cblas_dgemm", out.dgemm);
    out.lib->bind("cblas_dgemv", out.dgemv);
#if MEMWALL_HAVE_OPENBLAS_BF16
    out.lib->bind("cblas_sbgemm", out.sbgemm);
#endif
    out.why = missing_symbol(*out.lib, {{"openblas_get_config", out.get_config != nullptr},
                                        {"openblas_set_num_threads", out.set_num_threads != nullptr},
                                        {"cblas_sgemm", out.sgemm != nullptr},
                                        {"cblas_sgemv", out.sgemv != nullptr},
                                        {"cblas_dgemm", out.dgemm != nullptr},
                                        {"cblas_dgemv", out.dgemv != nullptr}});
    if (!out.why.empty()) out.lib.reset();
    return out;
  }();
  return b;
}
#endif

}  // namespace

bool blas_available() {
#if MEMWALL_HAVE_OPENBLAS
  return blas().lib != nullptr;
#else
  return false;
#endif
}

bool blas_has_bf16() {
#if MEMWALL_HAVE_OPENBLAS
  return blas().lib && blas().sbgemm;
#else
  return false;
#endif
}

std::string blas_description() {
#if MEMWALL_HAVE_OPENBLAS
  if (!blas().lib) return "none (OpenBLAS not loaded: " + blas().why + ")";
  return blas().get_config();
#else
  return "none (built without OpenBLAS)";
#endif
}

Flops gemm_flops(int64_t m, int64_t n, int64_t k) {
  return Flops(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
}

Bytes gemm_bytes(int64_t m, int64_t n, int64_t k, BlasPrecision p) {
  const double in = bytes_per_element(p), out = output_bytes_per_element(p);
  const double md = static_cast<double>(m), nd = static_cast<double>(n),
               kd = static_cast<double>(k);
  return Bytes(in * (md * kd + kd * nd) + out * md * nd);
}

double gemm_intensity(int64_t m, int64_t n, int64_t k, BlasPrecision p) {
  return gemm_flops(m, n, k).value() / gemm_bytes(m, n, k, p).value();
}

namespace {

using Clock = std::chrono::steady_clock;

template <class T>
std::unique_ptr<T[]> filled(int64_t count, float value) {
  std::unique_ptr<T[]> v(new T[static_cast<size_t>(count)]);
  std::fill(v.get(), v.get() + count, static_cast<T>(value));
  return v;
}

// Runs `call` once untimed, then `repetitions` times; returns the best wall time.
template <class F>
Seconds best_of(int repetitions, F call) {
  call();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repetitions; ++r) {
    const auto start = Clock::now();
    call();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Seconds(std::max(best, 1e-9));
}

#if MEMWALL_HAVE_OPENBLAS
// C = A B in single or double precision; one column runs as a GEMV.
void real_gemm(blasint m, blasint n, blasint k, const float* a, const float* b, float* c) {
  if (n == 1)
    blas().sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, a, k, b, 1, 0.0f, c, 1);
  else
    blas().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}
void real_gemm(blasint m, blasint n, blasint k, const double* a, const double* b, double* c) {
  if (n == 1)
    blas().dgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0, a, k, b, 1, 0.0, c, 1);
  else
    blas().dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}

template <class T>
Seconds time_real_gemm(blasint m, blasint n, blasint k, int repetitions) {
  const auto a = filled<T>(int64_t{m} * k, 0.5f), b = filled<T>(int64_t{k} * n, 0.25f),
             c = filled<T>(int64_t{m} * n, 0.0f);
  return best_of(repetitions, [&] { real_gemm(m, n, k, a.get(), b.get(), c.get()); });
}
#endif

}  // namespace

GemmMeasurement time_gemm(BlasPrecision p, int64_t m, int64_t n, int64_t k, int threads,
                          int repetitions) {
  constexpr int64_t kMaxDim = 1 << 20;
  for (auto [name, v] : {std::pair{"gemm m", m}, {"gemm n", n}, {"gemm k", k}})
    if (v < 1 || v > kMaxDim)
      throw InputError(name, std::to_string(v), "an integer in [1, 1048576]");
  if (threads < 1 || threads > 4096)
    throw InputError("--threads", std::to_string(threads), "an integer in [1, 4096]");
  if (repetitions < 1 || repetitions > 1000)
    throw InputError("gemm repetitions", std::to_string(repetitions), "an integer in [1, 1000]");
  GemmMeasurement g;
  g.precision = p;
  g.m = m;
  g.n = n;
  g.k = k;
  g.flops = gemm_flops(m, n, k);
  g.bytes = gemm_bytes(m, n, k, p);
#if MEMWALL_HAVE_OPENBLAS
  if (!blas().lib)
    throw InfeasibleError("OpenBLAS could not be loaded (" + blas().why +
                          "); install Debian's libopenblas0");
  blas().set_num_threads(threads);
  const auto mi = static_cast<blasint>(m), ni = static_cast<blasint>(n),
             ki = static_cast<blasint>(k);
  try {
    if (p == BlasPrecision::fp32) {
      g.routine = n == 1 ? "sgemv" : "sgemm";
      g.best_time = time_real_gemm<float>(mi, ni, ki, repetitions);
    } else if (p == BlasPrecision::fp64) {
      g.routine = n == 1 ? "dgemv" : "dgemm";
      g.best_time = time_real_gemm<double>(mi, ni, ki, repetitions);
    } else {
      if (!blas().sbgemm)
        throw InfeasibleError(
            "this OpenBLAS has no cblas_sbgemm (bf16 GEMM needs OpenBLAS built with "
            "BUILD_BFLOAT16)");
#if MEMWALL_HAVE_OPENBLAS_BF16
      // bf16 1.0 is 0x3F80 (the upper half of the fp32 bit pattern).
      std::unique_ptr<bfloat16[]> a(new bfloat16[static_cast<size_t>(m * k)]),
          b(new bfloat16[static_cast<size_t>(k * n)]);
      std::fill(a.get(), a.get() + m * k, static_cast<bfloat16>(0x3F80));
      std::fill(b.get(), b.get() + k * n, static_cast<bfloat16>(0x3F80));
      auto c = filled<float>(m * n, 0.0f);
      g.routine = "sbgemm";
      g.best_time = best_of(repetitions, [&] {
        blas().sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mi, ni, ki, 1.0f, a.get(), ki,
                     b.get(), ni, 0.0f, c.get(), ni);
      });
#endif
    }
  } catch (const std::bad_alloc&) {
    throw InfeasibleError("cannot allocate the " + to_string(p) + " GEMM operands (" +
                          std::to_string(g.bytes.value() / 1e6) + " MB); use a smaller --size-mb");
  }
  return g;
#else
  throw InfeasibleError("this build of memwall has no BLAS (install libopenblas-dev and rebuild)");
#endif
}

std::vector<int64_t> sweep_columns(int64_t max_columns) {
  if (max_columns < 1 || max_columns > 65536)
    throw InputError("sweep columns", std::to_string(max_columns), "an integer in [1, 65536]");
  std::vector<int64_t> cols;
  for (int64_t n = 1; n < max_columns; n *= 2) cols.push_back(n);
  cols.push_back(max_columns);
  return cols;
}

RooflineSweep run_roofline_sweep(BlasPrecision p, int64_t rows, int64_t depth,
                                 int64_t max_columns, int threads, int repetitions) {
  RooflineSweep s;
  s.precision = p;
  s.rows = rows;
  s.depth = depth;
  for (int64_t n : sweep_columns(max_columns))
    s.points.push_back({time_gemm(p, rows, n, depth, threads, repetitions), false});
  s.bandwidth_roof = s.points.front().gemm.bandwidth();
  for (const auto& pt : s.points) s.compute_roof = std::max(s.compute_roof, pt.gemm.achieved());
  s.ridge_intensity = s.compute_roof.value() / s.bandwidth_roof.value();
  for (auto& pt : s.points) {
    pt.compute_bound = pt.gemm.intensity() >= s.ridge_intensity;
    if (pt.compute_bound && !s.first_compute_bound_columns)
      s.first_compute_bound_columns = pt.gemm.n;
  }
  return s;
}

}  // namespace memwall::probe
