// Prometheus recording and alerting rules for the advisor's walls, generated from the exporter
// table (data/monitor/exporters.json) and the advisor's thresholds (advisor.h): recording rules
// put every exporter's SM activity, tensor activity, DRAM bandwidth utilisation, coarse util and
// power/thermal clock limits under one name each (memwall:<reading>:ratio), and alerting rules
// name the wall of each GPU over a sustained window, with the advisor's rules:
// memory-bandwidth-bound, compute-bound, starved, clocks. The text is a rules file for
// `promtool check rules` (tools/prometheus/memwall-rules.yml is this output).
#pragma once

#include <string>

#include "memwall/monitor/fleet.h"

namespace memwall::monitor {

// The window of the alerts' averages and their `for:`: 10 minutes is 20 samples at
// dcgm-exporter's default 30 s collect interval (NVIDIA/dcgm-exporter pkg/cmd/app.go), so one
// load step does not raise an alert: the walls are sustained, as kClocksLimitedShare intends.
inline constexpr const char* kRulesWindow = "10m";

std::string prometheus_rules(const ExporterTable& t);

}  // namespace memwall::monitor
