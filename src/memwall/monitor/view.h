// The terminal view: one row per GPU with the efficiency signals first (SM activity, occupancy,
// tensor activity, DRAM bandwidth) and the coarse "GPU util" beside them, then memory, power,
// temperature, clocks, traffic and clock-event reasons. Unknown readings print "unknown".
#pragma once

#include <string>
#include <vector>

#include "memwall/monitor/sample.h"

namespace memwall::monitor {

// A table of `rows` (a sampling pass, or per-GPU means) under the line `title`.
std::string format_table(const std::string& title, const std::vector<GpuSample>& rows);

// "2026-11-29 23:40:05 UTC" for a Unix time.
std::string format_utc(double time_s);

}  // namespace memwall::monitor
