#include "memwall/probe/probe_json.h"

namespace memwall::probe {

namespace {

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

Json to_json(const StreamResult& s) {
  Json kernels = Json::object();
  for (const auto& k : s.kernels)
    kernels[std::string(to_string(k.kernel))] = {
        {"bytes_per_pass", k.bytes_per_pass.value()},
        {"arrays_touched", stream_arrays_touched(k.kernel)},
        {"best_s", k.best_time.value()},
        {"median_s", k.median_time.value()},
        {"sweeps_per_timing", k.sweeps_per_timing},
        {"mean_s", k.mean_time.value()},
        {"worst_s", k.worst_time.value()},
        {"best_bytes_per_s", k.best_bandwidth().value()},
        {"median_bytes_per_s", (k.bytes_per_pass / k.median_time).value()}};
  return {{"threads", s.options.threads},
          {"elements_per_array", s.options.elements},
          {"array_bytes", s.array_bytes.value()},
          {"timed_passes", s.options.repetitions - 1},
          {"min_time_s", s.options.min_time.value()},
          {"min_sample_s", s.options.min_sample.value()},
          {"validated", s.validated},
          {"huge_page_bytes", s.huge_page_bytes ? Json(s.huge_page_bytes->value()) : Json(nullptr)},
          {"kernels", kernels}};
}

Json to_json(const GemmMeasurement& g) {
  return {{"precision", to_string(g.precision)},
          {"routine", g.routine},
          {"m", g.m},
          {"n", g.n},
          {"k", g.k},
          {"flops", g.flops.value()},
          {"bytes", g.bytes.value()},
          {"intensity_flops_per_byte", g.intensity()},
          {"best_s", g.best_time.value()},
          {"flops_per_s", g.achieved().value()},
          {"bytes_per_s", g.bandwidth().value()}};
}

Json to_json(const RooflineSweep& s) {
  Json points = Json::array();
  for (const auto& p : s.points) {
    Json j = to_json(p.gemm);
    j["compute_bound"] = p.compute_bound;
    points.push_back(j);
  }
  return {{"precision", to_string(s.precision)},
          {"weight_rows", s.rows},
          {"weight_depth", s.depth},
          {"bandwidth_roof_bytes_per_s", s.bandwidth_roof.value()},
          {"compute_roof_flops_per_s", s.compute_roof.value()},
          {"ridge_flops_per_byte", s.ridge_intensity},
          {"first_compute_bound_columns",
           s.first_compute_bound_columns ? Json(*s.first_compute_bound_columns) : Json(nullptr)},
          {"points", points}};
}

Json to_json(const HostReport& h) {
  Json gemms = Json::array();
  for (const auto& g : h.gemms) gemms.push_back(to_json(g));
  const auto fp32 = h.best_gemm(BlasPrecision::fp32);
  Json ridge = nullptr;
  if (fp32 && h.triad_bandwidth().value() > 0) ridge = fp32->value() / h.triad_bandwidth().value();
  return {{"threads", h.sizes.threads},
          {"last_level_cache_bytes",
           h.last_level_cache ? Json(h.last_level_cache->value()) : Json(nullptr)},
          {"blas", h.blas},
          {"stream", to_json(h.stream)},
          {"gemm", gemms},
          {"roofline_sweep", h.sweep ? to_json(*h.sweep) : Json(nullptr)},
          // Ridge of the measured ceilings: best fp32 GEMM FLOP/s / STREAM triad bytes/s.
          {"ridge_flops_per_byte", ridge},
          {"notes", h.notes}};
}

Json to_json(const GpuReport& g) {
  auto transfer = [](const GpuTransfer& t) {
    return Json{{"what", t.what},
                {"bytes", t.bytes},
                {"best_s", t.best_seconds},
                {"bytes_per_s", t.bytes_per_s()}};
  };
  Json devices = Json::array();
  for (const auto& d : g.devices) {
    Json transfers = Json::array(), gemms = Json::array();
    for (const auto& t : d.transfers) transfers.push_back(transfer(t));
    for (const auto& x : d.gemms)
      gemms.push_back({{"precision", x.precision},
                       {"library", x.library},
                       {"m", x.m},
                       {"n", x.n},
                       {"k", x.k},
                       {"flops", x.flops},
                       {"best_s", x.best_seconds},
                       {"sustained_s", x.sustained_seconds},
                       {"flops_per_s", x.flops_per_s()}});
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"compute_capability",
                        std::to_string(d.compute_capability_major) + "." +
                            std::to_string(d.compute_capability_minor)},
                       {"multiprocessors", d.multiprocessors},
                       {"memory_bytes", d.memory_bytes},
                       {"transfers", transfers},
                       {"gemm", gemms},
                       {"notes", d.notes}});
  }
  Json peers = Json::array();
  for (const auto& t : g.peers) peers.push_back(transfer(t));
  return {{"built", g.built}, {"ran", g.ran},       {"reason", g.reason},
          {"runtime", g.runtime}, {"devices", devices}, {"peers", peers}};
}

Json to_json(const std::vector<Comparison>& rows) {
  Json out = Json::array();
  for (const auto& c : rows) {
    out.push_back(
        {{"device", c.device},
         {"what", c.what},
         {"flops", c.flops.value()},
         {"bytes", c.bytes.value()},
         {"measured_s", c.measured.value()},
         {"predicted_s", c.predicted ? Json(c.predicted->value()) : Json(nullptr)},
         {"measured_roofline_s",
          c.measured_roofline ? Json(c.measured_roofline->value()) : Json(nullptr)},
         {"error", optional_number(c.error())},
         {"note", c.note}});
  }
  return out;
}

}  // namespace memwall::probe
