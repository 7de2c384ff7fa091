// The Prometheus text exposition (format 0.0.4) of the latest GPU samples: one gauge family per
// reading, named memwall_gpu_<what>_<unit> in base units (ratio, bytes, watts, celsius, hertz,
// bytes_per_second) as prometheus.io/docs/practices/naming asks, labelled gpu="<index>" and
// uuid="<uuid>". Unknown readings are left out (no NaN, no zero stand-ins), so a dashboard can tell
// "not reported" from "idle".
#pragma once

#include <string>
#include <vector>

#include "memwall/monitor/sample.h"

namespace memwall::monitor {

// Content type of the exposition, for the HTTP response.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string prometheus_text(const std::vector<GpuSample>& samples);

// Escapes a label value: backslash, double quote and line feed (the exposition format's rules).
std::string escape_label_value(const std::string& v);

}  // namespace memwall::monitor
