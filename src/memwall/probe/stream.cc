#include "memwall/probe/stream.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
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

// Why the arrays ask for transparent huge pages. With 4 KiB pages a sequential sweep misses the TLB
// every 4 KiB, and in a virtual machine each miss is a two-dimensional (guest x host) page walk
// (Pham, Vesely, Loh, Bhattacharjee, "Large Pages and Lightweight Memory Management in Virtualized
// Environments", MICRO 2015, section 1). How much that costs depends on how scattered the guest's
// free pages are, so the figure moved with the array size and with the machine's history: on this
// project's KVM VM (AMD EPYC, THP "madvise") 134 MB arrays on 4 KiB pages lay on ~237 different
// physical 2 MiB frames per 2 MiB of array, 2 GB arrays on ~72, and in one process the triad ran
// 43 GB/s on the former, 46-49 on 1 GB arrays and 56-64 on either size on huge pages
// (bench/RESULTS.md, "STREAM on 4 KiB and huge pages"). With huge pages the figure is the memory's
// and not the page tables'. Linux grants them only inside MADV_HUGEPAGE ranges when THP is
// "madvise" (Documentation/admin-guide/mm/transhuge.rst), and a huge page needs a 2 MiB-aligned
// range: hence the alignment and the advice. Elsewhere, or with THP "never", this is plain memory.
constexpr size_t kHugePageBytes = size_t{2} << 20;

struct FreeArray {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeArray>;

// Bytes actually reserved for one array of n doubles: a whole number of huge pages.
size_t reserved_bytes(int64_t n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(double);
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

Array allocate_array(int64_t n) {
  const size_t bytes = reserved_bytes(n);
  auto* p = static_cast<double*>(std::aligned_alloc(kHugePageBytes, bytes));
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: EINVAL (a kernel without THP) leaves 4 KiB pages, which huge_page_bytes reports.
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return Array(p);
}

std::optional<Bytes> arrays_huge_page_bytes(const std::vector<std::pair<uintptr_t, uintptr_t>>& r) {
  std::ifstream f("/proc/self/smaps");
  if (!f) return std::nullopt;
  std::ostringstream text;
  text << f.rdbuf();
  return smaps_huge_page_bytes(text.str(), r);
}

}  // namespace

std::optional<Bytes> smaps_huge_page_bytes(
    std::string_view smaps, const std::vector<std::pair<uintptr_t, uintptr_t>>& ranges) {
  // proc(5): each mapping starts with "start-end perms offset dev inode path" (hex addresses),
  // followed by "Field:   value kB" lines; AnonHugePages counts its transparent huge pages.
  bool overlaps = false, any_field = false;
  double total = 0;
  std::istringstream in{std::string(smaps)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("AnonHugePages:", 0) == 0) {
      any_field = true;
      if (overlaps) total += std::strtod(line.c_str() + 14, nullptr) * kKiB;
      continue;
    }
    const size_t dash = line.find('-'), space = line.find(' ');
    if (dash == std::string::npos || space == std::string::npos || dash > space ||
        line.find(':') < space)
      continue;  // another "Field: value" line
    char* end = nullptr;
    const uintptr_t lo = std::strtoull(line.c_str(), &end, 16);
    if (end != line.c_str() + dash) continue;
    const uintptr_t hi = std::strtoull(line.c_str() + dash + 1, &end, 16);
    if (end != line.c_str() + space) continue;
    overlaps = std::any_of(ranges.begin(), ranges.end(),
                           [&](const auto& r) { return r.first < hi && lo < r.second; });
  }
  if (!any_field) return std::nullopt;
  return Bytes(total);
}

StreamResult run_stream(const StreamOptions& o) {
  if (o.threads < 1 || o.threads > 4096)
    throw InputError("--threads", std::to_string(o.threads), "an integer in [1, 4096]");
  if (o.elements < 1024)
    throw InputError("stream elements", std::to_string(o.elements), "at least 1024 per array");
  // The values grow 15x per pass (a <- 15 a); kMaxStreamPasses = 200 stay below the double range
  // (15^200 ~ 1e235).
  if (o.repetitions < 2 || o.repetitions > 100)
    throw InputError("stream repetitions", std::to_string(o.repetitions), "an integer in [2, 100]");
  for (const auto& [what, v] : {std::pair{"stream minimum time", o.min_time.value()},
                                 std::pair{"stream minimum sample", o.min_sample.value()}})
    if (!std::isfinite(v) || v < 0 || v > 600)
      throw InputError(what, std::to_string(v), "a number of seconds in [0, 600]");

  const int64_t n = o.elements;
  Array a, b, c;
  try {
    // Uninitialised: the pages are first touched by the thread that will stream them.
    a = allocate_array(n);
    b = allocate_array(n);
    c = allocate_array(n);
  } catch (const std::bad_alloc&) {
    throw InfeasibleError("cannot allocate three arrays of " + std::to_string(n) +
                          " doubles for the STREAM kernels; use a smaller --size-mb");
  }

  const int threads = static_cast<int>(std::min<int64_t>(o.threads, n / 8));
  const int64_t chunk = (n + threads - 1) / threads;
  // times[pass][kernel], appended by thread 0 between two barriers; `more` is read by every thread
  // after the next barrier, which orders it after thread 0's write.
  std::vector<std::array<double, 4>> times;
  times.reserve(static_cast<size_t>(kMaxStreamPasses));
  double timed_s = 0;  // kernel time of the timed passes so far (thread 0)
  bool more = true;
  // Sweeps per timing of each kernel: 1 in the warm-up pass, then enough that one timing lasts
  // o.min_sample at the fastest sweep seen so far (set by thread 0 after each pass, read after the
  // next barrier; it only grows, so one slow warm-up sweep cannot leave it too low). A kernel never
  // reads the array it writes, so running it again leaves every array as one run does.
  std::array<int, 4> sweeps = {1, 1, 1, 1}, last_sweeps = sweeps;
  std::array<double, 4> fastest_sweep;
  fastest_sweep.fill(std::numeric_limits<double>::infinity());
  std::barrier sync(threads);
  std::optional<Bytes> huge_bytes;
  auto worker = [&](int t) {
    const int64_t lo = std::min<int64_t>(n, t * chunk), hi = std::min<int64_t>(n, lo + chunk);
    for (int64_t j = lo; j < hi; ++j) {
      a[j] = 1.0;
      b[j] = 2.0;
      c[j] = 0.0;
    }
    sync.arrive_and_wait();  // every page touched: count the huge ones
    if (t == 0) {
      std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
      for (const double* p : {a.get(), b.get(), c.get()}) {
        const auto lo_addr = reinterpret_cast<uintptr_t>(p);
        ranges.emplace_back(lo_addr, lo_addr + reserved_bytes(n));
      }
      huge_bytes = arrays_huge_page_bytes(ranges);
    }
    for (int pass = 0;; ++pass) {
      sync.arrive_and_wait();
      if (!more) break;
      std::array<double, 4> pass_times{};
      for (size_t ki = 0; ki < kStreamKernels.size(); ++ki) {
        if (ki > 0) sync.arrive_and_wait();
        const auto start = Clock::now();
        for (int sweep = 0; sweep < sweeps[ki]; ++sweep)
          run_kernel(kStreamKernels[ki], a.get(), b.get(), c.get(), lo, hi);
        sync.arrive_and_wait();
        if (t == 0) pass_times[ki] = std::chrono::duration<double>(Clock::now() - start).count();
      }
      if (t == 0) {
        std::array<double, 4> per_sweep{};
        for (size_t ki = 0; ki < pass_times.size(); ++ki) {
          per_sweep[ki] = pass_times[ki] / sweeps[ki];
          last_sweeps[ki] = sweeps[ki];
          if (pass > 0) timed_s += pass_times[ki];  // pass 0 is the warm-up
          fastest_sweep[ki] = std::max(std::min(fastest_sweep[ki], per_sweep[ki]), 1e-9);
          const double want = std::ceil(o.min_sample.value() / fastest_sweep[ki]);
          sweeps[ki] = std::max(
              sweeps[ki],
              static_cast<int>(std::min(want, static_cast<double>(kMaxSweepsPerTiming))));
        }
        times.push_back(per_sweep);
        const int done = pass + 1;
        more = done < o.repetitions || (timed_s < o.min_time.value() && done < kMaxStreamPasses);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();

  const int passes = static_cast<int>(times.size());
  StreamResult r;
  r.options = o;
  r.options.threads = threads;
  r.options.repetitions = passes;
  r.array_bytes = Bytes(static_cast<double>(n) * sizeof(double));
  // A huge page may extend past an array's end into its padding: report at most the arrays.
  if (huge_bytes)
    r.huge_page_bytes = Bytes(std::min(huge_bytes->value(), 3 * r.array_bytes.value()));
  for (size_t ki = 0; ki < kStreamKernels.size(); ++ki) {
    std::vector<double> timed;  // pass 0 is the warm-up
    for (int pass = 1; pass < passes; ++pass) timed.push_back(times[static_cast<size_t>(pass)][ki]);
    std::sort(timed.begin(), timed.end());
    double sum = 0;
    for (double s : timed) sum += s;
    const size_t m = timed.size();
    auto& k = r.kernels[ki];
    k.kernel = kStreamKernels[ki];
    k.bytes_per_pass = stream_bytes(k.kernel, n);
    // A timer tick of 0 would give an infinite rate; the clock resolution is the floor.
    k.best_time = Seconds(std::max(timed.front(), 1e-9));
    k.median_time = Seconds(m % 2 ? timed[m / 2] : 0.5 * (timed[m / 2 - 1] + timed[m / 2]));
    k.mean_time = Seconds(sum / static_cast<double>(m));
    k.worst_time = Seconds(timed.back());
    k.sweeps_per_timing = last_sweeps[ki];
  }

  // The same recurrence on scalars: every element must end with these values.
  double ea = 1.0, eb = 2.0, ec = 0.0;
  for (int pass = 0; pass < passes; ++pass) {
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
