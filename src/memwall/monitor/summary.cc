#include "memwall/monitor/summary.h"

#include <map>

namespace memwall::monitor {

std::optional<double> mean_of(const std::vector<GpuSample>& samples,
                              std::optional<double> GpuSample::*member) {
  double sum = 0;
  size_t n = 0;
  for (const auto& s : samples)
    if (s.*member) sum += *(s.*member), ++n;
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

std::vector<GpuSummary> summarise(const std::vector<GpuSample>& samples) {
  std::map<int, std::vector<GpuSample>> by_gpu;
  for (const auto& s : samples) by_gpu[s.index].push_back(s);
  std::vector<GpuSummary> out;
  for (const auto& [index, list] : by_gpu) {
    GpuSummary g;
    g.samples = list.size();
    g.mean.index = index;
    g.first_time_s = list.front().time_s;
    g.last_time_s = list.front().time_s;
    size_t with_reasons = 0, limited = 0;
    for (const auto& s : list) {
      if (s.name) g.mean.name = s.name;
      if (s.uuid) g.mean.uuid = s.uuid;
      g.first_time_s = std::min(g.first_time_s, s.time_s);
      g.last_time_s = std::max(g.last_time_s, s.time_s);
      if (s.throttle_reasons) {
        ++with_reasons;
        g.throttle_reasons_seen |= *s.throttle_reasons;
        if (clocks_limited(*s.throttle_reasons)) ++limited;
      }
    }
    g.mean.time_s = g.last_time_s;
    for (const auto& f : numeric_fields()) g.mean.*f.member = mean_of(list, f.member);
    if (with_reasons > 0) g.mean.throttle_reasons = g.throttle_reasons_seen;
    if (with_reasons > 0)
      g.clocks_limited_share = static_cast<double>(limited) / static_cast<double>(with_reasons);
    out.push_back(std::move(g));
  }
  return out;
}

Json to_json(const GpuSummary& s) {
  Json j = to_json(s.mean);
  j.erase("time_s");
  j["samples"] = s.samples;
  j["first_time_s"] = s.first_time_s;
  j["last_time_s"] = s.last_time_s;
  j["clocks_limited_share"] =
      s.clocks_limited_share ? Json(*s.clocks_limited_share) : Json(nullptr);
  j["throttle_reasons_seen"] = throttle_reason_names(s.throttle_reasons_seen);
  return j;
}

}  // namespace memwall::monitor
