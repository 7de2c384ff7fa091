#include "memwall/monitor/advisor.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "memwall/monitor/summary.h"

namespace memwall::monitor {
namespace {

std::string pct(const std::optional<double>& r) {
  return r ? fmt::format("{:.0f} %", *r * 100) : "unknown";
}

bool idle(const GpuSample& s) {
  if (!s.sm_active_ratio && !s.gpu_util_ratio) return false;  // cannot tell: counts as busy
  return s.sm_active_ratio.value_or(0) < kIdleRatio && s.gpu_util_ratio.value_or(0) < kIdleRatio;
}

std::optional<double> score(const std::optional<double>& v, double threshold) {
  if (!v) return std::nullopt;
  return *v / threshold;
}

Wall pattern_of(const Advice& a) {
  if (a.busy_samples == 0) return Wall::idle;
  if (!a.sm_active && !a.dram_util && !a.tensor_active) return Wall::unknown;
  const double compute = score(a.tensor_active, kComputeBoundTensorActive).value_or(0);
  const double memory = score(a.dram_util, kMemoryBoundDramUtil).value_or(0);
  if (std::max(compute, memory) >= 1)
    return compute > memory ? Wall::compute : Wall::memory_bandwidth;
  if (a.sm_active && *a.sm_active < kStarvedSmActive) return Wall::starved;
  return Wall::mixed;
}

std::string readings(const Advice& a) {
  return fmt::format("SM activity {}, DRAM bandwidth utilisation {}, tensor activity {}",
                     pct(a.sm_active), pct(a.dram_util), pct(a.tensor_active));
}

std::string verdict_of(Wall w, const Advice& a) {
  switch (w) {
    case Wall::idle:
      return fmt::format(
          "idle: none of the {} samples was busy (SM activity and GPU util below "
          "{:.0f} %)",
          a.samples, kIdleRatio * 100);
    case Wall::unknown:
      return fmt::format(
          "unknown: no SM activity, DRAM bandwidth or tensor readings (NVML GPM, "
          "Hopper or newer); the coarse GPU util of {} only says a kernel ran",
          pct(a.gpu_util));
    case Wall::memory_bandwidth:
      return fmt::format(
          "memory-bandwidth-bound: DRAM bandwidth utilisation {} (>= {:.0f} %) "
          "with SM activity {} and tensor activity {}; as expected for decode at "
          "small batches, where every step reads all weights and the KV cache",
          pct(a.dram_util), kMemoryBoundDramUtil * 100, pct(a.sm_active), pct(a.tensor_active));
    case Wall::compute:
      return fmt::format(
          "compute-bound: tensor activity {} (>= {:.0f} %) with DRAM bandwidth "
          "utilisation {}; the tensor pipes set the pace, as in prefill and "
          "training",
          pct(a.tensor_active), kComputeBoundTensorActive * 100, pct(a.dram_util));
    case Wall::starved:
      return fmt::format(
          "starved: SM activity {} (< {:.0f} %) with DRAM bandwidth utilisation {} "
          "and tensor activity {}; the GPU waits on the host, kernel launches or "
          "communication, or gets batches too small to fill it",
          pct(a.sm_active), kStarvedSmActive * 100, pct(a.dram_util), pct(a.tensor_active));
    case Wall::mixed:
      return fmt::format(
          "no single wall: {}; SMs are busy but neither memory nor the tensor "
          "pipes are near their limits (latency-bound kernels: attention, small "
          "GEMMs, non-tensor work)",
          readings(a));
    case Wall::clocks:
      return fmt::format(
          "clocks are the wall: power or thermal limits held the clocks down in "
          "{} of busy samples (mean SM clock {}); underneath: {}",
          pct(a.clocks_limited_share),
          a.sm_clock_mhz ? fmt::format("{:.0f} MHz", *a.sm_clock_mhz) : "unknown",
          to_string(a.pattern));
  }
  return "";
}

std::vector<std::string> remedies(Wall w) {
  switch (w) {
    case Wall::memory_bandwidth:
      return {
          "more tokens per byte read: raise the batch (continuous batching, more concurrent "
          "requests) while TPOT allows",
          "fewer bytes: fp8/int8/int4 weights, fp8 KV cache, GQA/MLA models",
          "more bandwidth: tensor parallelism over more devices, or HBM3e parts"};
    case Wall::compute:
      return {"faster FLOPs: fp8 matmuls (twice the bf16 dense tensor rate on Hopper)",
              "more devices (tensor/pipeline parallelism) or chunked prefill to spread prefill"};
    case Wall::starved:
      return {
          "launch overhead: CUDA graphs, fused kernels, a compiled engine (TensorRT-LLM, vLLM "
          "with CUDA graphs)",
          "host: tokenisation, scheduling and sampling off the critical path; check CPU use",
          "communication: compare NVLink/PCIe traffic with the link's bandwidth; prefer NVLink "
          "for tensor parallelism",
          "batches: more concurrent requests or a larger max batch"};
    case Wall::mixed:
      return {"profile the kernels (Nsight Systems) to see which ones hold the SMs"};
    case Wall::clocks:
      return {
          "check the power limit (nvidia-smi -q -d POWER), cooling and inlet temperature; a "
          "power-capped GPU runs every wall slower"};
    case Wall::idle:
    case Wall::unknown:
      return {};
  }
  return {};
}

}  // namespace

const char* to_string(Wall w) {
  switch (w) {
    case Wall::idle:
      return "idle";
    case Wall::unknown:
      return "unknown";
    case Wall::clocks:
      return "clocks";
    case Wall::compute:
      return "compute";
    case Wall::memory_bandwidth:
      return "memory-bandwidth";
    case Wall::starved:
      return "starved";
    case Wall::mixed:
      return "mixed";
  }
  return "unknown";
}

Expected expected_from(const infer::Deployment& d, const infer::Estimate& e) {
  Expected x;
  x.deployment = fmt::format("{} on {} x{} (tp {} pp {} dp {}), batch {} x (input {} + output {})",
                             d.model.id, d.gpu.id, d.devices(), d.tp, d.pp, d.dp, e.workload.batch,
                             e.workload.input_tokens, e.workload.output_tokens);
  x.devices = d.devices();
  x.datasheet_bandwidth = d.ceilings.memory_peak;
  const double total = e.prefill.time.value() + e.decode.time.value();
  x.dram_util =
      total > 0
          ? (e.prefill.mbu * e.prefill.time.value() + e.decode.mbu * e.decode.time.value()) / total
          : e.mbu;
  x.bandwidth = x.datasheet_bandwidth * x.dram_util;
  x.mfu = e.mfu;
  x.tokens_per_s = e.throughput_tokens_per_s;
  x.bound = e.bound;
  return x;
}

Expected expect(const Catalog& catalog, const infer::DeploymentOptions& o,
                const infer::Workload& w) {
  const infer::Deployment d = infer::make_deployment(catalog, o);
  return expected_from(d, infer::estimate(d, w));
}

Advice advise(const std::vector<GpuSample>& samples, const std::optional<Expected>& expected) {
  Advice a;
  a.samples = samples.size();
  std::vector<GpuSample> busy;
  std::set<int> gpus;
  for (const auto& s : samples) {
    gpus.insert(s.index);
    if (!idle(s)) busy.push_back(s);
  }
  a.gpus = gpus.size();
  a.busy_samples = busy.size();
  a.sm_active = mean_of(busy, &GpuSample::sm_active_ratio);
  a.sm_occupancy = mean_of(busy, &GpuSample::sm_occupancy_ratio);
  a.tensor_active = mean_of(busy, &GpuSample::tensor_active_ratio);
  a.dram_util = mean_of(busy, &GpuSample::dram_bw_util_ratio);
  a.gpu_util = mean_of(busy, &GpuSample::gpu_util_ratio);
  a.sm_clock_mhz = mean_of(busy, &GpuSample::sm_clock_mhz);
  a.power_w = mean_of(busy, &GpuSample::power_w);
  size_t with_reasons = 0, limited = 0;
  for (const auto& s : busy) {
    if (!s.throttle_reasons) continue;
    ++with_reasons;
    if (clocks_limited(*s.throttle_reasons)) ++limited;
  }
  if (with_reasons > 0)
    a.clocks_limited_share = static_cast<double>(limited) / static_cast<double>(with_reasons);

  a.pattern = pattern_of(a);
  a.wall = a.pattern != Wall::idle && a.clocks_limited_share &&
                   *a.clocks_limited_share >= kClocksLimitedShare
               ? Wall::clocks
               : a.pattern;
  a.verdict = verdict_of(a.wall, a);
  a.details.push_back(fmt::format(
      "{} samples from {} GPU(s), {} busy; means over busy samples: "
      "{}, SM occupancy {}, coarse GPU util {}",
      a.samples, a.gpus, a.busy_samples, readings(a), pct(a.sm_occupancy), pct(a.gpu_util)));
  if (a.gpu_util && *a.gpu_util >= kBusyGpuUtil && a.sm_active && *a.sm_active < kStarvedSmActive)
    a.details.push_back(
        fmt::format("the coarse GPU util of {} counts time with any kernel "
                    "running, not SMs in use: only {} of SM cycles had work",
                    pct(a.gpu_util), pct(a.sm_active)));

  if (expected) {
    a.expected = expected;
    if (a.gpus != 0 && static_cast<int>(a.gpus) != expected->devices)
      a.details.push_back(
          fmt::format("the recording has {} GPU(s), the deployment {}: "
                      "per-device means are compared",
                      a.gpus, expected->devices));
    if (a.dram_util && expected->dram_util > 0) {
      a.measured_bandwidth = expected->datasheet_bandwidth * *a.dram_util;
      a.bandwidth_vs_expected = *a.dram_util / expected->dram_util;
      a.implied_tokens_per_s = expected->tokens_per_s * *a.bandwidth_vs_expected;
      a.details.push_back(fmt::format(
          "measured DRAM bandwidth {:.2f} TB/s per device ({} of the {:.2f} TB/s datasheet) vs "
          "{:.2f} TB/s ({}) memwall estimates for {}: {:.0f} % of the estimate",
          a.measured_bandwidth->value() / kTera, pct(a.dram_util),
          expected->datasheet_bandwidth.value() / kTera, expected->bandwidth.value() / kTera,
          pct(expected->dram_util), expected->deployment, *a.bandwidth_vs_expected * 100));
      a.details.push_back(fmt::format(
          "at that bandwidth, with the estimate's bytes per generated token, the deployment "
          "generates about {:.0f} tokens/s vs {:.0f} estimated (estimate bound: {})",
          *a.implied_tokens_per_s, expected->tokens_per_s, expected->bound));
    } else {
      a.details.push_back(
          "no DRAM bandwidth reading: the measured bandwidth and implied tokens/s "
          "are unknown");
    }
  }
  for (const auto& r : remedies(a.wall)) a.details.push_back("to change: " + r);
  if (a.wall == Wall::clocks)
    for (const auto& r : remedies(a.pattern)) a.details.push_back("to change: " + r);
  return a;
}

Json to_json(const Advice& a) {
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  Json j = {{"wall", to_string(a.wall)},
            {"pattern", to_string(a.pattern)},
            {"verdict", a.verdict},
            {"details", a.details},
            {"samples", a.samples},
            {"busy_samples", a.busy_samples},
            {"gpus", a.gpus},
            {"sm_active_ratio", opt(a.sm_active)},
            {"sm_occupancy_ratio", opt(a.sm_occupancy)},
            {"tensor_active_ratio", opt(a.tensor_active)},
            {"dram_bw_util_ratio", opt(a.dram_util)},
            {"gpu_util_ratio", opt(a.gpu_util)},
            {"sm_clock_mhz", opt(a.sm_clock_mhz)},
            {"power_w", opt(a.power_w)},
            {"clocks_limited_share", opt(a.clocks_limited_share)},
            {"thresholds",
             {{"idle_ratio", kIdleRatio},
              {"compute_bound_tensor_active", kComputeBoundTensorActive},
              {"memory_bound_dram_util", kMemoryBoundDramUtil},
              {"starved_sm_active", kStarvedSmActive},
              {"clocks_limited_share", kClocksLimitedShare}}}};
  if (a.expected) {
    const Expected& x = *a.expected;
    j["expected"] = {{"deployment", x.deployment},
                     {"devices", x.devices},
                     {"datasheet_bandwidth_bytes_per_s", x.datasheet_bandwidth.value()},
                     {"dram_bw_util_ratio", x.dram_util},
                     {"bandwidth_bytes_per_s", x.bandwidth.value()},
                     {"mfu", x.mfu},
                     {"throughput_tokens_per_s", x.tokens_per_s},
                     {"bound", x.bound}};
    j["measured_bandwidth_bytes_per_s"] =
        a.measured_bandwidth ? Json(a.measured_bandwidth->value()) : Json(nullptr);
    j["bandwidth_vs_expected"] = opt(a.bandwidth_vs_expected);
    j["implied_tokens_per_s"] = opt(a.implied_tokens_per_s);
  }
  return j;
}

std::string format_advice(const Advice& a) {
  std::string out = "wall: " + a.verdict + "\n";
  for (const auto& d : a.details) out += "  " + d + "\n";
  return out;
}

}  // namespace memwall::monitor
