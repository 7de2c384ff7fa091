#include "memwall/probe/stream.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "memwall/core/error.h"

namespace memwall::probe {

std::string_view to_string(StreamKernel k) {
  switch (k) {
    case StreamKernel::copy: return "copy";
    case StreamKernel::scale: return "scale";
    case StreamKernel::add: return "add";
    case StreamKernel::triad: return "triad";
  }
  return "?";
}

int stream_arrays_touched(StreamKernel k) {
  return k == StreamKernel::copy || k == StreamKernel::scale ? 2 : 3;
}

int stream_flops_per_element(StreamKernel k) {
  switch (k) {
    case StreamKernel::copy: return 0;
    case StreamKernel::scale: return 1;
    case StreamKernel::add: return 1;
    case StreamKernel::triad: return 2;
  }
  return 0;
}

Bytes stream_bytes(StreamKernel k, int64_t elements) {
  return Bytes(static_cast<double>(stream_arrays_touched(k)) * sizeof(double) *
               static_cast<double>(elements));
}

namespace {

constexpr double kScalar = 3.0;  // q in scale and triad
using Clock = std::chrono::steady_clock;

// One kernel over the half-open element range [lo, hi).
void run_kernel(StreamKernel k, double* a, double* b, double* c, int64_t lo, int64_t hi) {
  switch (k) {
    case StreamKernel::copy:
      for (int64_t j = lo; j < hi; ++j) c[j] = a[j];
      break;
    case StreamKernel::scale:
      for (int64_t j = lo; j < hi; ++j) b[j] = kScalar * c[j];
      break;
    case StreamKernel::add:
      for (int64_t j = lo; j < hi; ++j) c[j] = a[j] + b[j];
      break;
    case StreamKernel::triad:
      for (int64_t j = lo; j < hi; ++j) a[j] = b[j] + kScalar * c[j];
      break;
  }
}

bool close(double got, double want) {
  return std::abs(got - want) <= 1e-12 * std::abs(want);
}

}  // namespace

StreamResult run_stream(const StreamOptions& o) {
  if (o.threads < 1 || o.threads > 4096)
    throw InputError("--threads", std::to_string(o.threads), "an integer in [1, 4096]");
  if (o.elements < 1024)
    throw InputError("stream elements", std::to_string(o.elements), "at least 1024 per array");
  // The values grow 15x per pass (a <- 15 a); 100 passes stay far below the double range.
  if (o.repetitions < 2 || o.repetitions > 100)
    throw InputError("stream repetitions", std::to_string(o.repetitions), "an integer in [2, 100]");

  const int64_t n = o.elements;
  std::unique_ptr<double[]> a, b, c;
  try {
    // Default-initialised: the pages are first touched by the thread that will stream them.
    a.reset(new double[static_cast<size_t>(n)]);
    b.reset(new double[static_cast<size_t>(n)]);
    c.reset(new double[static_cast<size_t>(n)]);
  } catch (const std::bad_alloc&) {
    throw InfeasibleError("cannot allocate three arrays of " + std::to_string(n) +
                          " doubles for the STREAM kernels; use a smaller --size-mb");
  }

  const int threads = static_cast<int>(std::min<int64_t>(o.threads, n / 8));
  const int64_t chunk = (n + threads - 1) / threads;
  // times[pass][kernel], written by thread 0 between two barriers.
  std::vector<std::array<double, 4>> times(static_cast<size_t>(o.repetitions));
  std::barrier sync(threads);
  auto worker = [&](int t) {
    const int64_t lo = std::min<int64_t>(n, t * chunk), hi = std::min<int64_t>(n, lo + chunk);
    for (int64_t j = lo; j < hi; ++j) {
      a[j] = 1.0;
      b[j] = 2.0;
      c[j] = 0.0;
    }
    for (int pass = 0; pass < o.repetitions; ++pass) {
      for (size_t ki = 0; ki < kStreamKernels.size(); ++ki) {
        sync.arrive_and_wait();
        const auto start = Clock::now();
        run_kernel(kStreamKernels[ki], a.get(), b.get(), c.get(), lo, hi);
        sync.arrive_and_wait();
        if (t == 0)
          times[static_cast<size_t>(pass)][ki] =
              std::chrono::duration<double>(Clock::now() - start).count();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();

  StreamResult r;
  r.options = o;
  r.options.threads = threads;
  r.array_bytes = Bytes(static_cast<double>(n) * sizeof(double));
  for (size_t ki = 0; ki < kStreamKernels.size(); ++ki) {
    double best = std::numeric_limits<double>::infinity(), worst = 0, sum = 0;
    for (int pass = 1; pass < o.repetitions; ++pass) {  // pass 0 is the warm-up
      const double s = times[static_cast<size_t>(pass)][ki];
      best = std::min(best, s);
      worst = std::max(worst, s);
      sum += s;
    }
    // A timer tick of 0 would give an infinite rate; the clock resolution is the floor.
    best = std::max(best, 1e-9);
    auto& k = r.kernels[ki];
    k.kernel = kStreamKernels[ki];
    k.bytes_per_pass = stream_bytes(k.kernel, n);
    k.best_time = Seconds(best);
    k.mean_time = Seconds(sum / (o.repetitions - 1));
    k.worst_time = Seconds(worst);
  }

  // The same recurrence on scalars: every element must end with these values.
  double ea = 1.0, eb = 2.0, ec = 0.0;
  for (int pass = 0; pass < o.repetitions; ++pass) {
    ec = ea;
    eb = kScalar * ec;
    ec = ea + eb;
    ea = eb + kScalar * ec;
  }
  r.validated = true;
  for (int64_t j = 0; j < n && r.validated; ++j)
    r.validated = close(a[j], ea) && close(b[j], eb) && close(c[j], ec);
  return r;
}

}  // namespace memwall::probe
