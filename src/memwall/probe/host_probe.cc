#include "memwall/probe/host_probe.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::probe {

std::optional<Bytes> last_level_cache() {
  // sysfs first: glibc's sysconf derives the L3 size from CPUID and misreports it on some VMs
  // (320 MiB for a 32 MiB L3 on this project's AMD EPYC VM).
  std::optional<Bytes> best;
  int best_level = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type");
    int level = 0;
    std::string size, type;
    if (!(level_file >> level) || !(size_file >> size) || !(type_file >> type)) break;
    if (type == "Instruction" || size.empty() || level <= best_level) continue;
    char* end = nullptr;
    const double v = std::strtod(size.c_str(), &end);
    const double unit = *end == 'K' ? kKiB : *end == 'M' ? kMiB : *end == 'G' ? kGiB : 1.0;
    if (v > 0) {
      best = Bytes(v * unit);
      best_level = level;
    }
  }
  if (best) return best;
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0) return Bytes(static_cast<double>(v));
  }
#endif
  return std::nullopt;
}

std::string transparent_huge_pages() {
  // Documentation/admin-guide/mm/transhuge.rst: the mode in use is the bracketed word.
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "THP setting unknown";
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return "THP setting unknown";
  return "THP \"" + line.substr(open + 1, close - open - 1) + "\"";
}

HostProbeSizes choose_host_sizes(int threads, std::optional<double> size_mb, bool quick,
                                 std::optional<Bytes> llc) {
  if (threads < 1 || threads > 4096)
    throw InputError("--threads", std::to_string(threads), "an integer in [1, 4096]");
  if (size_mb && (!std::isfinite(*size_mb) || *size_mb < 1 || *size_mb > 65536))
    throw InputError("--size-mb", std::to_string(*size_mb), "a number of MB in [1, 65536]");
  HostProbeSizes s;
  s.threads = threads;
  double array_bytes;
  if (size_mb)
    array_bytes = *size_mb * 1e6;
  else if (quick)
    array_bytes = 8e6;
  else {
    array_bytes = llc ? std::max(4 * llc->value(), 64e6) : kDefaultArrayCapBytes;
    if (array_bytes > kDefaultArrayCapBytes) {
      // A sequential sweep over a working set larger than an LRU cache misses on every line, so
      // three capped arrays larger together than the cache still measure memory, not cache.
      const double together = 3 * kDefaultArrayCapBytes;
      s.sizing_note = fmt::format(
          "STREAM arrays capped at {:.0f} MB each (STREAM's rule, 4 x the {:.0f} MB last-level "
          "cache, asks for {:.0f} MB); {}; --size-mb {:.0f} follows the rule in full",
          kDefaultArrayCapBytes / 1e6, llc->value() / 1e6, array_bytes / 1e6,
          together > 1.2 * llc->value()
              ? fmt::format("the three arrays together ({:.0f} MB) still exceed the cache",
                            together / 1e6)
              : fmt::format("the three arrays together ({:.0f} MB) fit in the cache, so these "
                            "figures may be cache bandwidth",
                            together / 1e6),
          array_bytes / 1e6);
      array_bytes = kDefaultArrayCapBytes;
    }
  }
  s.stream_elements = std::max<int64_t>(1024, static_cast<int64_t>(array_bytes / sizeof(double)));
  // A square fp32 weight matrix of about the same size, a multiple of 64 on each side.
  const auto side = static_cast<int64_t>(std::sqrt(array_bytes / 4.0)) / 64 * 64;
  s.sweep_rows = s.sweep_depth = std::max<int64_t>(64, side);
  // Many cores finish a 2048^3 GEMM in milliseconds, before they reach their steady rate.
  if (threads > 8) s.gemm_size = 4096;
  if (quick) {
    s.stream_repetitions = 3;
    s.stream_min_time = Seconds(0.0);
    s.stream_min_sample = Seconds(0.0);
    s.gemm_size = 256;
    s.gemm_repetitions = 3;
    s.sweep_max_columns = 64;
    s.sweep_repetitions = 3;
    if (!size_mb) s.sweep_rows = s.sweep_depth = 512;
  }
  return s;
}

BytesPerSecond HostReport::triad_bandwidth() const {
  return stream[StreamKernel::triad].best_bandwidth();
}

std::optional<FlopsPerSecond> HostReport::best_gemm(BlasPrecision p) const {
  std::optional<FlopsPerSecond> best;
  auto consider = [&](const GemmMeasurement& g) {
    if (g.precision == p && (!best || g.achieved() > *best)) best = g.achieved();
  };
  for (const auto& g : gemms) consider(g);
  if (sweep)
    for (const auto& pt : sweep->points) consider(pt.gemm);
  return best;
}

std::optional<Bytes> physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::nullopt;
  return Bytes(static_cast<double>(pages) * static_cast<double>(page));
}

HostReport run_host_probe(const HostProbeSizes& s) {
  // Refuse before allocating: Linux overcommits, so an oversized run would be killed mid-way.
  const double stream_bytes = 3.0 * sizeof(double) * static_cast<double>(s.stream_elements);
  const double sweep_bytes = 4.0 * static_cast<double>(s.sweep_rows * s.sweep_depth +
                                                       (s.sweep_rows + s.sweep_depth) *
                                                           s.sweep_max_columns);
  const double gemm_bytes = 3.0 * 8.0 * static_cast<double>(s.gemm_size * s.gemm_size);
  const double need = std::max({stream_bytes, sweep_bytes, gemm_bytes});
  if (const auto mem = physical_memory(); mem && need > 0.8 * mem->value())
    throw InfeasibleError(fmt::format(
        "the probe needs {:.1f} GB at once but this host has {:.1f} GB of memory (80 % usable); "
        "use a smaller --size-mb",
        need / 1e9, mem->value() / 1e9));
  HostReport r;
  r.sizes = s;
  r.last_level_cache = last_level_cache();
  if (!s.sizing_note.empty()) r.notes.push_back(s.sizing_note);
  r.blas = blas_description();
  r.stream = run_stream(
      {s.threads, s.stream_elements, s.stream_repetitions, s.stream_min_time, s.stream_min_sample});
  if (!r.stream.validated)
    r.notes.push_back("STREAM arrays did not hold the expected values after the run");
  if (const auto& huge = r.stream.huge_page_bytes;
      huge && huge->value() < 0.9 * 3 * r.stream.array_bytes.value())
    r.notes.push_back(fmt::format(
        "only {:.0f} of the STREAM arrays' {:.0f} MB are on transparent huge pages ({}); on 4 KiB "
        "pages the triad can read below the memory's bandwidth, 20-30 % on a VM (docs/probe.md)",
        huge->value() / 1e6, 3 * r.stream.array_bytes.value() / 1e6, transparent_huge_pages()));
  if (!blas_available()) {
    r.notes.push_back("no GEMM ceilings or roofline sweep: " + r.blas);
    return r;
  }
  for (BlasPrecision p : {BlasPrecision::fp32, BlasPrecision::fp64, BlasPrecision::bf16}) {
    if (p == BlasPrecision::bf16 && !blas_has_bf16()) {
      r.notes.push_back("bf16 GEMM not measured: this OpenBLAS has no cblas_sbgemm");
      continue;
    }
    r.gemms.push_back(
        time_gemm(p, s.gemm_size, s.gemm_size, s.gemm_size, s.threads, s.gemm_repetitions));
  }
  r.sweep = run_roofline_sweep(BlasPrecision::fp32, s.sweep_rows, s.sweep_depth,
                               s.sweep_max_columns, s.threads, s.sweep_repetitions);
  return r;
}

}  // namespace memwall::probe
