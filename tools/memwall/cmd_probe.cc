// memwall probe: measures this machine (STREAM-style memory bandwidth, BLAS GEMM ceilings, the
// GEMV -> GEMM roofline sweep, and on NVIDIA GPUs device/host/peer bandwidth and cuBLAS GEMMs),
// compares memwall's roofline prediction with each measurement, and writes a calibration profile
// that `memwall infer/train --calibration FILE` read.
#include <cmath>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"
#include "memwall/probe/calibration_profile.h"
#include "memwall/probe/gpu_probe.h"
#include "memwall/probe/host_probe.h"
#include "memwall/probe/probe_json.h"

namespace memwall::cli {
namespace {

struct ProbeOptions {
  bool quick = false;
  std::optional<int> threads;
  std::optional<double> size_mb;
  std::string device = "all";
  std::string out;
  std::string gpu;
  std::optional<double> cpu_peak_bandwidth_gb_s, cpu_peak_gflops;
  double sustained_seconds = probe::GpuProbeOptions{}.sustained_seconds;
};

constexpr const char* kDescription =
    "Measure this machine and write a calibration profile.\n"
    "Host: STREAM-style copy/scale/add/triad bandwidth (bytes counted as STREAM does: copy and\n"
    "scale move 2 arrays, add and triad 3; arrays on transparent huge pages; best and median of\n"
    "at least 10 passes and 3 s, each timing >= 50 ms), OpenBLAS sgemm/dgemm (and sbgemm\n"
    "bf16 when the library has it) FLOP/s = 2mnk / best time, and a GEMV->GEMM sweep (one weight\n"
    "matrix times n = 1, 2, 4 ... 512 columns) with arithmetic intensity = FLOPs / compulsory bytes\n"
    "and the ridge point = compute roof / bandwidth roof. GPU (CUDA builds, where a GPU is): device\n"
    "copy, pinned host<->device and peer bandwidth, cuBLAS/cuBLASLt GEMMs per precision (best of\n"
    "10 calls: a burst), and a 16-bit GEMM back to back for --sustained-seconds, whose rate over\n"
    "the run's second half / the burst's is the device's sustained_compute_fraction (the power\n"
    "limit's clock drop under a long load).\n"
    "Predicted = memwall's roofline with datasheet peaks and the default efficiencies.\n"
    "Exit: 0 ok, 2 bad input, 3 --device gpu where no GPU can be measured.";

Json measurement_record(const probe::HostReport* host, const probe::GpuReport& gpu,
                        const std::vector<probe::Comparison>& rows) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"tool", "memwall probe 0.1.0"},
          {"date", date},
          {"host", host ? probe::to_json(*host) : Json(nullptr)},
          {"gpu", probe::to_json(gpu)},
          {"predicted_vs_measured", probe::to_json(rows)}};
}

std::string gb_s(BytesPerSecond b) { return fmt::format("{:.2f} GB/s", b.value() / 1e9); }
std::string gflop_s(FlopsPerSecond f) { return fmt::format("{:.1f} GFLOP/s", f.value() / 1e9); }

void print_host(const probe::HostReport& h) {
  const auto& s = h.stream;
  fmt::print("Host: {} threads; last-level cache {}; BLAS: {}\n\n", h.sizes.threads,
             h.last_level_cache ? fmt::format("{:.1f} MB", h.last_level_cache->value() / 1e6)
                                : "unknown",
             h.blas);
  fmt::print("Memory bandwidth (STREAM-style, 3 arrays of {:.1f} MB{}, best of {} timed passes{})\n",
             s.array_bytes.value() / 1e6,
             s.huge_page_bytes
                 ? fmt::format(", {:.0f} MB of them on huge pages", s.huge_page_bytes->value() / 1e6)
                 : "",
             s.options.repetitions - 1, s.validated ? "" : ", RESULTS NOT VALIDATED");
  fmt::print("  {:<6} {:>7} {:>14} {:>14} {:>12} {:>12}\n", "kernel", "arrays", "best", "median",
             "best s", "mean s");
  for (const auto& k : s.kernels)
    fmt::print("  {:<6} {:>7} {:>14} {:>14} {:>12.6f} {:>12.6f}\n", probe::to_string(k.kernel),
               probe::stream_arrays_touched(k.kernel), gb_s(k.best_bandwidth()),
               gb_s(k.bytes_per_pass / k.median_time), k.best_time.value(), k.mean_time.value());
  if (!h.gemms.empty()) {
    fmt::print("\nGEMM ceilings (C = A B, square, best of {})\n", h.sizes.gemm_repetitions);
    for (const auto& g : h.gemms)
      fmt::print("  {:<5} {}x{}x{}  {:>16}  ({:.4f} s)\n", probe::to_string(g.precision), g.m,
                 g.n, g.k, gflop_s(g.achieved()), g.best_time.value());
  }
  if (h.sweep) {
    const auto& w = *h.sweep;
    fmt::print("\nRoofline sweep (fp32 W[{} x {}] x X[{} x n], best of {})\n", w.rows, w.depth,
               w.depth, h.sizes.sweep_repetitions);
    fmt::print("  {:>5} {:>10} {:>16} {:>14} {:>8}\n", "n", "FLOP/byte", "achieved", "traffic",
               "bound");
    for (const auto& p : w.points)
      fmt::print("  {:>5} {:>10.2f} {:>16} {:>14} {:>8}\n", p.gemm.n, p.gemm.intensity(),
                 gflop_s(p.gemm.achieved()), gb_s(p.gemm.bandwidth()),
                 p.compute_bound ? "compute" : "memory");
    fmt::print("  bandwidth roof {} (n = 1), compute roof {}, ridge {:.2f} FLOP/byte{}\n",
               gb_s(w.bandwidth_roof), gflop_s(w.compute_roof), w.ridge_intensity,
               w.first_compute_bound_columns
                   ? fmt::format(" (compute-bound from n = {})", *w.first_compute_bound_columns)
                   : "");
  }
  if (const auto fp32 = h.best_gemm(probe::BlasPrecision::fp32))
    fmt::print("  ridge of the measured ceilings (best fp32 GEMM / STREAM triad): {:.2f} FLOP/byte\n",
               fp32->value() / h.triad_bandwidth().value());
}

void print_gpu(const probe::GpuReport& g) {
  if (!g.ran) {
    fmt::print("\nGPU: not measured: {}\n", g.reason);
    return;
  }
  fmt::print("\nGPU ({})\n", g.runtime);
  for (const auto& d : g.devices) {
    fmt::print("  [{}] {} (sm_{}{}, {} SMs, {:.1f} GB)\n", d.index, d.name,
               d.compute_capability_major, d.compute_capability_minor, d.multiprocessors,
               d.memory_bytes / 1e9);
    for (const auto& t : d.transfers)
      fmt::print("    {:<28} {:>14}\n", t.what, gb_s(BytesPerSecond(t.bytes_per_s())));
    for (const auto& x : d.gemms)
      fmt::print("    {:<9} GEMM {}x{}x{} ({:<8}) {:>18}{}\n", x.precision, x.m, x.n, x.k,
                 x.library, fmt::format("{:.1f} TFLOP/s", x.flops_per_s() / 1e12),
                 x.sustained_seconds > 0
                     ? fmt::format("  sustained: mean of the last half of {:.0f} s",
                                   x.sustained_seconds)
                     : "");
    for (const auto& n : d.notes) fmt::print("    note: {}\n", n);
  }
  for (const auto& t : g.peers)
    fmt::print("  {:<30} {:>14}\n", t.what, gb_s(BytesPerSecond(t.bytes_per_s())));
}

void print_comparisons(const std::vector<probe::Comparison>& rows) {
  if (rows.empty()) return;
  fmt::print("\nPredicted (memwall roofline, datasheet peak x default efficiency) vs measured\n");
  fmt::print("  {:<14} {:<34} {:>12} {:>12} {:>8} {:>14}\n", "device", "kernel", "measured s",
             "predicted s", "error", "ideal roof s");
  bool unknown_peak = false;
  for (const auto& c : rows) {
    unknown_peak = unknown_peak || (!c.predicted && c.device == "host" && c.measured_roofline);
    fmt::print("  {:<14} {:<34} {:>12.6f} {:>12} {:>8} {:>14}\n", c.device, c.what,
               c.measured.value(),
               c.predicted ? fmt::format("{:.6f}", c.predicted->value()) : "unknown",
               c.error() ? fmt::format("{:+.0f}%", *c.error() * 100) : "unknown",
               c.measured_roofline ? fmt::format("{:.6f}", c.measured_roofline->value()) : "-");
  }
  fmt::print("  (ideal roof: max(FLOPs / best fp32 GEMM, bytes / STREAM triad) of this run)\n");
  if (unknown_peak)
    fmt::print("  predicted unknown for the host: give --cpu-peak-bandwidth and "
               "--cpu-peak-flops (datasheet values)\n");
}

int run_probe(const ProbeOptions& o, const GlobalOptions& g) {
  if (o.device != "all" && o.device != "host" && o.device != "gpu")
    throw InputError::unknown_name("--device", o.device, {"all", "host", "gpu"});
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads < 1) threads = 1;
  if (o.threads) threads = *o.threads;
  probe::HostPeaks peaks;
  if (o.cpu_peak_bandwidth_gb_s)
    peaks.memory_bandwidth =
        gb_per_s(require_positive(*o.cpu_peak_bandwidth_gb_s, "--cpu-peak-bandwidth"));
  if (o.cpu_peak_gflops)
    peaks.fp32 = FlopsPerSecond(require_positive(*o.cpu_peak_gflops, "--cpu-peak-flops") * 1e9);
  const auto sizes =
      probe::choose_host_sizes(threads, o.size_mb, o.quick, probe::last_level_cache());
  std::optional<Accelerator> gpu_spec;
  if (!o.gpu.empty()) {
    const Catalog catalog = g.catalog_files.empty() ? Catalog::builtin()
                                                    : Catalog::with_user_files(g.catalog_files);
    gpu_spec = catalog.accelerator(o.gpu);
  }

  std::optional<probe::HostReport> host;
  if (o.device != "gpu") host = probe::run_host_probe(sizes);
  probe::GpuReport gpu;
  if (o.device != "host") {
    probe::GpuProbeOptions go;
    go.quick = o.quick;
    go.sustained_seconds = o.sustained_seconds;
    if (o.quick) {
      go.sustained_seconds = 0;
      go.buffer_bytes = 256e6;
      go.gemm_size = 4096;
      go.repetitions = 3;
    }
    gpu = probe::run_gpu_probe(go);
    if (o.device == "gpu" && !gpu.ran) throw InfeasibleError("no GPU measured: " + gpu.reason);
  } else {
    gpu.reason = "--device host (the host alone was asked for)";
  }
  if (gpu_spec && !gpu.ran)
    std::cerr << "memwall probe: --gpu " << o.gpu << " is unused: no GPU was measured\n";

  const perf::Efficiency& e = perf::default_efficiency();
  std::vector<probe::Comparison> rows;
  if (host) rows = probe::compare_host(*host, peaks, e);
  if (gpu.ran && gpu_spec) {
    auto more = probe::compare_gpu(gpu, *gpu_spec, e);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  const Json record = measurement_record(host ? &*host : nullptr, gpu, rows);
  std::optional<probe::CalibrationProfile> profile;
  if (!o.out.empty()) {
    profile = probe::calibration_profile(host ? &*host : nullptr, peaks, &gpu,
                                         gpu_spec ? &*gpu_spec : nullptr, record);
    // The profile must be one `--calibration` accepts.
    (void)perf::apply_calibration(e, profile->document, o.out);
    write_output_file("--out", o.out, profile->document.dump(2) + "\n");
  }

  if (g.json) {
    Json j = record;
    if (profile) {
      j["profile_file"] = o.out;
      j["profile"] = profile->document;
      j["profile"].erase("probe");
      j["profile_notes"] = profile->notes;
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (host) print_host(*host);
  print_gpu(gpu);
  print_comparisons(rows);
  if (host)
    for (const auto& n : host->notes) fmt::print("note: {}\n", n);
  if (profile) {
    fmt::print("\nCalibration profile written to {} (use: memwall infer ... --calibration {})\n",
               o.out, o.out);
    Json keys = profile->document;
    keys.erase("probe");
    fmt::print("  {}\n", keys.empty() ? "(no fractions: every datasheet peak is unknown)"
                                      : keys.dump());
    for (const auto& n : profile->notes) fmt::print("  note: {}\n", n);
  }
  if (o.quick)
    fmt::print("\n--quick: small, cache-resident sizes; a smoke test, not a measurement\n");
  return 0;
}

}  // namespace

void register_probe(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto o = std::make_shared<ProbeOptions>();
  auto* sub = app.add_subcommand("probe", "Measure this machine and write a calibration profile");
  sub->description(kDescription);
  add_global_options(*sub, g);
  sub->add_flag("--quick", o->quick, "Small sizes (under 3 s): a smoke test, not a measurement");
  sub->add_option("--threads", o->threads, "Host threads (default: hardware concurrency)");
  sub->add_option("--size-mb", o->size_mb,
                  "MB (10^6 bytes) per STREAM array and of the sweep's weight matrix "
                  "(default: 4 x last-level cache, at least 64, capped at 256 with a note)");
  sub->add_option("--device", o->device, "What to measure: all, host, gpu")->capture_default_str();
  sub->add_option("--out", o->out, "Write the calibration profile (JSON) to FILE");
  sub->add_option("--gpu", o->gpu,
                  "Catalog id of the GPU being measured (its datasheet peaks give the fractions)");
  sub->add_option("--sustained-seconds", o->sustained_seconds,
                  "GPU: seconds of back-to-back 16-bit GEMM for the sustained rate (0: skip; "
                  "--quick skips it)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  sub->add_option("--cpu-peak-bandwidth", o->cpu_peak_bandwidth_gb_s,
                  "Datasheet memory bandwidth of this host, GB/s (e.g. channels x MT/s x 8 B)");
  sub->add_option("--cpu-peak-flops", o->cpu_peak_gflops,
                  "Datasheet fp32 peak of this host, GFLOP/s (cores x GHz x FLOPs/cycle)");
  sub->callback([&run, &g, o] { run = [&g, o] { return run_probe(*o, g); }; });
}

}  // namespace memwall::cli
