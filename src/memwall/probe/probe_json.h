// The probe's measurements as JSON (the --json output and the "probe" record of a calibration
// profile). Rates in SI units with the unit in the key: *_bytes_per_s, *_flops_per_s, *_s.
#pragma once

#include <vector>

#include "memwall/core/document.h"
#include "memwall/probe/calibration_profile.h"
#include "memwall/probe/gpu_probe.h"
#include "memwall/probe/host_probe.h"

namespace memwall::probe {

Json to_json(const StreamResult& s);
Json to_json(const GemmMeasurement& g);
Json to_json(const RooflineSweep& s);
Json to_json(const HostReport& h);
Json to_json(const GpuReport& g);
Json to_json(const std::vector<Comparison>& rows);

}  // namespace memwall::probe
