#include "memwall/probe/calibration_profile.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/precision.h"
#include "memwall/perf/roofline.h"

namespace memwall::probe {

Accelerator host_accelerator(const HostPeaks& peaks) {
  Accelerator a;
  a.id = "cpu";
  a.vendor = "cpu";
  a.name = "this host's CPU";
  a.arch = "cpu";
  a.memory_type = "DRAM";
  a.memory_bandwidth = peaks.memory_bandwidth;
  a.dense_peak["fp32"] = peaks.fp32;
  return a;
}

std::optional<double> Comparison::error() const {
  if (!predicted || measured.value() <= 0) return std::nullopt;
  return *predicted / measured - 1.0;
}

namespace {

perf::OpCost gemm_op(int64_t m, int64_t n, int64_t k, Flops flops, Bytes read, Bytes written) {
  perf::OpCost op;
  op.kind = perf::OpKind::gemm;
  op.flops = flops;
  op.bytes_read = read;
  op.bytes_written = written;
  op.gemm = {m, n, k, 1};
  return op;
}

perf::OpCost streaming_op(Flops flops, Bytes read, Bytes written) {
  perf::OpCost op;
  op.kind = perf::OpKind::elementwise;
  op.flops = flops;
  op.bytes_read = read;
  op.bytes_written = written;
  return op;
}

// perf::time_op, or nullopt with the reason in `note` when the device lacks a peak.
std::optional<Seconds> predict(const perf::OpCost& op, const Accelerator& a, Precision p,
                               const perf::Efficiency& e, std::string& note) {
  try {
    return perf::time_op(op, a, p, e).time;
  } catch (const InputError& x) {
    note = x.what();
  } catch (const InfeasibleError& x) {
    note = x.what();
  }
  return std::nullopt;
}

Comparison host_gemm_row(const GemmMeasurement& g, std::string what, const Accelerator& cpu,
                         const perf::Efficiency& e, BytesPerSecond bw,
                         std::optional<FlopsPerSecond> compute) {
  Comparison c;
  c.device = "host";
  c.what = std::move(what);
  c.flops = g.flops;
  c.bytes = g.bytes;
  c.measured = g.best_time;
  if (g.precision == BlasPrecision::fp32) {
    const Bytes written(static_cast<double>(g.m * g.n) * output_bytes_per_element(g.precision));
    // memwall's GEMM shape is {token rows, output features, input features}: the probe's n
    // right-hand columns are the tokens, its m weight rows the output features.
    c.predicted =
        predict(gemm_op(g.n, g.m, g.k, g.flops, g.bytes - written, written), cpu, Precision::fp32,
                e, c.note);
  } else {
    c.note = "memwall predicts fp32 host GEMMs only (--cpu-peak-flops is the fp32 peak)";
  }
  if (compute && g.precision == BlasPrecision::fp32 && bw.value() > 0)
    c.measured_roofline = std::max(g.flops / *compute, g.bytes / bw);
  return c;
}

}  // namespace

std::vector<Comparison> compare_host(const HostReport& host, const HostPeaks& peaks,
                                     const perf::Efficiency& e) {
  const Accelerator cpu = host_accelerator(peaks);
  std::vector<Comparison> rows;
  const BytesPerSecond bw = host.triad_bandwidth();
  const auto fp32 = host.best_gemm(BlasPrecision::fp32);
  {
    const auto& t = host.stream[StreamKernel::triad];
    const double n = static_cast<double>(host.sizes.stream_elements);
    Comparison c;
    c.device = "host";
    c.what = "STREAM triad";
    c.flops = Flops(2 * n);
    c.bytes = t.bytes_per_pass;
    c.measured = t.best_time;
    c.predicted = predict(streaming_op(c.flops, Bytes(16 * n), Bytes(8 * n)), cpu,
                          Precision::fp32, e, c.note);
    c.measured_roofline = c.bytes / bw;
    rows.push_back(c);
  }
  for (const auto& g : host.gemms)
    rows.push_back(host_gemm_row(g, fmt::format("{} GEMM {}x{}x{}", to_string(g.precision), g.m,
                                                g.n, g.k),
                                 cpu, e, bw, fp32));
  if (host.sweep)
    for (const auto& pt : host.sweep->points)
      rows.push_back(host_gemm_row(pt.gemm, fmt::format("sweep n={}", pt.gemm.n), cpu, e, bw,
                                   fp32));
  return rows;
}

namespace {

// Output element bytes of a GPU GEMM: fp32/tf32 write fp32, the others bf16/fp16 (gpu_probe.cu).
double gpu_output_bytes(Precision p) {
  return p == Precision::fp32 || p == Precision::tf32 ? 4.0 : 2.0;
}

}  // namespace

std::vector<Comparison> compare_gpu(const GpuReport& gpu, const Accelerator& spec,
                                    const perf::Efficiency& e) {
  std::vector<Comparison> rows;
  if (gpu.devices.empty()) return rows;
  const GpuDevice& d = gpu.devices.front();
  for (const auto& t : d.transfers) {
    if (t.what != "device copy") continue;
    Comparison c;
    c.device = spec.id;
    c.what = t.what;
    c.bytes = Bytes(t.bytes);
    c.measured = Seconds(t.best_seconds);
    c.predicted = predict(streaming_op(Flops(0), c.bytes * 0.5, c.bytes * 0.5), spec,
                          Precision::bf16, e, c.note);
    rows.push_back(c);
  }
  // A burst is predicted at the best-shape rate alone; a sustained run at the sustained clock too.
  perf::Efficiency burst = e;
  burst.sustained_compute_fraction = perf::FractionTable{1.0, {}, "burst"};
  for (const auto& g : d.gemms) {
    Comparison c;
    c.device = spec.id;
    c.what = g.sustained_seconds > 0
                 ? fmt::format("{} GEMM {}x{}x{} ({}, sustained {:.0f} s)", g.precision, g.m, g.n,
                               g.k, g.library, g.sustained_seconds)
                 : fmt::format("{} GEMM {}x{}x{} ({})", g.precision, g.m, g.n, g.k, g.library);
    c.flops = Flops(g.flops);
    c.measured = Seconds(g.best_seconds);
    const auto p = parse_precision(g.precision);
    if (!p) {
      c.note = "unknown precision " + g.precision;
      rows.push_back(c);
      continue;
    }
    const double in = bytes_per_element(*p);
    const auto md = static_cast<double>(g.m), nd = static_cast<double>(g.n),
               kd = static_cast<double>(g.k);
    const Bytes read(in * (md * kd + kd * nd)), written(gpu_output_bytes(*p) * md * nd);
    c.bytes = read + written;
    c.predicted = predict(gemm_op(g.m, g.n, g.k, c.flops, read, written), spec, *p,
                          g.sustained_seconds > 0 ? e : burst, c.note);
    rows.push_back(c);
  }
  return rows;
}

namespace {

// measured / peak when it is a valid fraction in [1e-3, 1] (apply_calibration's range); else a
// note and nullopt.
std::optional<double> fraction(double measured, std::optional<double> peak, const std::string& what,
                               const std::string& peak_source, std::vector<std::string>& notes) {
  if (!peak || *peak <= 0) {
    notes.push_back(fmt::format("{}: fraction unknown, no datasheet peak ({})", what, peak_source));
    return std::nullopt;
  }
  const double f = measured / *peak;
  if (f > 1.0 || f < 1e-3) {
    notes.push_back(fmt::format(
        "{}: measured {:.4g} is {:.3g} x the peak {:.4g} ({}); not written (check the peak)", what,
        measured, f, *peak, peak_source));
    return std::nullopt;
  }
  return f;
}

double round4(double x) { return std::round(x * 1e4) / 1e4; }

}  // namespace

CalibrationProfile calibration_profile(const HostReport* host, const HostPeaks& peaks,
                                       const GpuReport* gpu, const Accelerator* gpu_spec,
                                       const Json& measurements) {
  CalibrationProfile p;
  Json bandwidth = Json::object(), gemm = Json::object(), sustained = Json::object();
  auto peak_value = [](const auto& q) -> std::optional<double> {
    if (!q) return std::nullopt;
    return q->value();
  };
  if (host) {
    if (auto f = fraction(host->triad_bandwidth().value(), peak_value(peaks.memory_bandwidth),
                          "host memory bandwidth (STREAM triad)", "--cpu-peak-bandwidth", p.notes))
      bandwidth["cpu"] = round4(*f);
    if (auto best = host->best_gemm(BlasPrecision::fp32))
      if (auto f = fraction(best->value(), peak_value(peaks.fp32), "host fp32 GEMM",
                            "--cpu-peak-flops", p.notes))
        gemm["cpu"] = round4(*f);
  }

  if (gpu && gpu->ran && !gpu->devices.empty()) {
    if (!gpu_spec) {
      p.notes.push_back("GPU fractions unknown: name the catalog device with --gpu");
    } else {
      const GpuDevice& d = gpu->devices.front();
      const std::string src = "catalog " + gpu_spec->id;
      for (const auto& t : d.transfers)
        if (t.what == "device copy")
          if (auto f = fraction(t.bytes_per_s(), peak_value(gpu_spec->memory_bandwidth),
                                gpu_spec->id + " device copy", src, p.notes))
            bandwidth[gpu_spec->id] = round4(*f);
      for (const auto& g : d.gemms) {
        const auto prec = parse_precision(g.precision);
        if (!prec || g.sustained_seconds > 0) continue;
        const std::string key = gpu_spec->arch + "/" + std::string(info(*prec).peak_key);
        if (auto f = fraction(g.flops_per_s(), peak_value(gpu_spec->peak(*prec)),
                              gpu_spec->id + " " + g.precision + " GEMM", src, p.notes))
          if (!gemm.contains(key) || gemm[key].get<double>() < *f) gemm[key] = round4(*f);
      }
      // Sustained / best burst of the same precision: what the power limit leaves of the burst
      // rate under a long load (perf's sustained_compute_fraction, keyed by the device id).
      for (const auto& s : d.gemms) {
        if (s.sustained_seconds <= 0 || s.flops_per_s() <= 0) continue;
        double best = 0;
        for (const auto& g : d.gemms)
          if (g.sustained_seconds <= 0 && g.precision == s.precision)
            best = std::max(best, g.flops_per_s());
        if (best <= 0) {
          p.notes.push_back(gpu_spec->id + " sustained " + s.precision +
                            " GEMM: no burst of the same precision to compare with");
          continue;
        }
        const double f = std::min(1.0, s.flops_per_s() / best);
        if (s.flops_per_s() > best)
          p.notes.push_back(fmt::format("{} sustained {} GEMM ran {:.3g} x the burst: written as 1",
                                        gpu_spec->id, s.precision, s.flops_per_s() / best));
        sustained[gpu_spec->id] = round4(std::max(f, 1e-3));
      }
    }
  }
  p.document = Json::object();
  if (!bandwidth.empty()) p.document["memory_bandwidth_fraction"] = bandwidth;
  if (!gemm.empty()) p.document["gemm_peak_fraction"] = gemm;
  if (!sustained.empty()) p.document["sustained_compute_fraction"] = sustained;
  p.document["probe"] = measurements;
  return p;
}

}  // namespace memwall::probe
