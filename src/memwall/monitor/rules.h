// Prometheus recording and alerting rules for the advisor's walls, generated from the exporter
// table (data/monitor/exporters.json) and the advisor's thresholds (advisor.h): recording rules
// put every exporter's SM activity, tensor activity, DRAM bandwidth utilisation, coarse util and
// power/thermal clock limits under one name each (memwall:<reading>:ratio), and alerting rules
// name the wall of each GPU over a sustained window, with the advisor's rules:
// memory-bandwidth-bound, compute-bound, starved, clocks. The links' traffic is recorded too
// (memwall:pcie_rx:bytes_per_second ...), and given the accelerator, alerting rules name a PCIe
// or NVLink direction that runs near the catalog's per-direction bandwidth. The text is a rules
// file for `promtool check rules` (tools/prometheus/memwall-rules.yml is this output without an
// accelerator, memwall-rules-h100.yml with --gpu h100).
#pragma once

#include <string>
#include <vector>

#include "memwall/hw/accelerator.h"
#include "memwall/monitor/fleet.h"

namespace memwall::monitor {

// The window of the alerts' averages and their `for:`: 10 minutes is 20 samples at
// dcgm-exporter's default 30 s collect interval (NVIDIA/dcgm-exporter pkg/cmd/app.go), so one
// load step does not raise an alert: the walls are sustained, as kClocksLimitedShare intends.
inline constexpr const char* kRulesWindow = "10m";

// The share of a link's per-direction bandwidth that a sustained window must reach to raise a
// saturation alert: the achievable fraction memwall's offload model times transfers with
// (offload::HostEfficiency::link_fraction, 0.8: pinned host<->device copies reach ~80 % of the
// PCIe link, NVLink-C2C the same), so an alert means the link carries about all it can.
double link_saturation_fraction();

// What the link alerts of `gpu` leave out and why: without an accelerator all of them; with one,
// each link whose per-direction bandwidth the catalog does not give (never a made-up number), or
// whose scale-up fabric is not the NVLink the counters measure. Empty when every alert is there.
// The rules file holds these as comments; the CLI prints them on stderr.
std::vector<std::string> link_alert_notes(const Accelerator* gpu);

// The rules file; with `gpu`, the PCIe and NVLink saturation alerts of that accelerator.
std::string prometheus_rules(const ExporterTable& t, const Accelerator* gpu = nullptr);

}  // namespace memwall::monitor
