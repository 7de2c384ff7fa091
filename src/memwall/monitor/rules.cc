#include "memwall/monitor/rules.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "memwall/monitor/advisor.h"
#include "memwall/offload/efficiency.h"

namespace memwall::monitor {
namespace {

// The links' traffic readings (bytes/s per direction, sample.h), each recorded under one name and
// alerted on against one of the accelerator's link bandwidths.
struct LinkReading {
  const char* reading;    // the GpuSample key
  const char* record;     // the recorded name
  const char* alert;      // the alert's name
  const char* link;       // as in the alert's `link` label
  const char* direction;  // rx | tx
  bool host;              // the host link (PCIe), else the scale-up fabric (NVLink)
};
const std::vector<LinkReading>& link_readings() {
  static const std::vector<LinkReading> r = {
      {"pcie_rx_bytes_per_s", "memwall:pcie_rx:bytes_per_second", "MemwallPcieRxSaturated", "pcie",
       "rx", true},
      {"pcie_tx_bytes_per_s", "memwall:pcie_tx:bytes_per_second", "MemwallPcieTxSaturated", "pcie",
       "tx", true},
      {"nvlink_rx_bytes_per_s", "memwall:nvlink_rx:bytes_per_second", "MemwallNvlinkRxSaturated",
       "nvlink", "rx", false},
      {"nvlink_tx_bytes_per_s", "memwall:nvlink_tx:bytes_per_second", "MemwallNvlinkTxSaturated",
       "nvlink", "tx", false}};
  return r;
}

// The readings the walls are decided on and the links' traffic, and the recorded name of each.
const std::map<std::string, std::string>& recorded() {
  static const std::map<std::string, std::string> r = [] {
    std::map<std::string, std::string> m = {{"sm_active_ratio", "memwall:sm_active:ratio"},
                                            {"tensor_active_ratio", "memwall:tensor_active:ratio"},
                                            {"dram_bw_util_ratio", "memwall:dram_bw_util:ratio"},
                                            {"gpu_util_ratio", "memwall:gpu_util:ratio"}};
    for (const auto& l : link_readings()) m[l.reading] = l.record;
    return m;
  }();
  return r;
}
constexpr const char* kClocksLimited = "memwall:clocks_limited:ratio";

std::string selector(const ExporterMetric& m) {
  std::string labels;
  for (const auto& [k, v] : m.match)
    labels += fmt::format("{}{}=\"{}\"", labels.empty() ? "" : ",", k, v);
  return labels.empty() ? m.name : m.name + "{" + labels + "}";
}

std::string avg(const std::string& record) {
  return fmt::format("avg_over_time({}[{}])", record, kRulesWindow);
}

void alert(std::string& out, const std::string& name, const std::string& labels,
           const std::string& expr, const std::string& summary) {
  out += fmt::format(
      "      - alert: {}\n        expr: {}\n        for: {}\n        labels:\n"
      "          severity: info\n{}        annotations:\n"
      "          summary: \"{}\"\n",
      name, expr, kRulesWindow, labels, summary);
}

void alert(std::string& out, const std::string& name, Wall wall, const std::string& expr,
           const std::string& summary) {
  alert(out, name, fmt::format("          wall: {}\n", to_string(wall)), expr, summary);
}

// The catalog's per-direction bandwidth of one of `gpu`'s links; nullopt with the reason in `why`
// where the catalog does not give it, or the scale-up fabric is not the NVLink that the NVLink
// counters (DCGM's NVLINK_RX/TX_BYTES, NVML GPM's NVLINK_TOTAL_RX/TX) measure.
std::optional<BytesPerSecond> link_bandwidth(const Accelerator& gpu, bool host, std::string& why) {
  if (host) {
    if (gpu.host_bandwidth_per_direction) return gpu.host_bandwidth_per_direction;
    why = fmt::format(
        "{}: the catalog gives no host-link bandwidth per direction (host link: {}): no PCIe "
        "saturation alerts",
        gpu.id, gpu.host_link.empty() ? "unknown" : "'" + gpu.host_link + "'");
    return std::nullopt;
  }
  if (gpu.scaleup_interconnect.rfind("NVLink", 0) != 0) {
    why = fmt::format(
        "{}: its scale-up fabric ({}) is not NVLink, the link memwall's NVLink readings measure: "
        "no NVLink saturation alerts",
        gpu.id,
        gpu.scaleup_interconnect.empty() ? "unknown" : "'" + gpu.scaleup_interconnect + "'");
    return std::nullopt;
  }
  if (gpu.scaleup_bandwidth_per_direction) return gpu.scaleup_bandwidth_per_direction;
  why = fmt::format(
      "{}: the catalog gives no NVLink bandwidth per direction ('{}'): no NVLink saturation "
      "alerts",
      gpu.id, gpu.scaleup_interconnect);
  return std::nullopt;
}

// A catalog text inside a YAML double-quoted string or a comment line: one line, quotes escaped.
std::string one_line(const std::string& text, bool quoted) {
  std::string out;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (quoted && (c == '"' || c == '\\')) out += '\\';
    out += c;
  }
  return out;
}

std::string gb_per_s(BytesPerSecond b) {
  return fmt::format("{:g} GB/s", b.value() / kGiga);
}

}  // namespace

double link_saturation_fraction() {
  return offload::default_host_efficiency().link_fraction;
}

std::vector<std::string> link_alert_notes(const Accelerator* gpu) {
  if (!gpu)
    return {
        "PCIe and NVLink saturation alerts need --gpu ID (the accelerator's per-direction "
        "link bandwidths from the catalog; `memwall catalog list` lists the ids): none here"};
  std::vector<std::string> notes;
  for (const bool host : {true, false}) {
    std::string why;
    if (!link_bandwidth(*gpu, host, why)) notes.push_back(why);
  }
  return notes;
}

std::string prometheus_rules(const ExporterTable& t, const Accelerator* gpu) {
  std::string out =
      "# Generated by `memwall monitor --emit-rules FILE` from data/monitor/exporters.json and "
      "the\n"
      "# advisor's thresholds (src/memwall/monitor/advisor.h). Do not edit: regenerate.\n";
  if (gpu)
    out += fmt::format(
        "# Link saturation alerts for {} (--gpu {}): every GPU these rules see is taken to be "
        "one.\n",
        one_line(gpu->id, false), one_line(gpu->id, false));
  for (const auto& note : link_alert_notes(gpu)) out += "# " + one_line(note, false) + ".\n";
  out += "groups:\n  - name: memwall-readings\n    rules:\n";
  // One rule per recorded reading and name set: the set's names for it joined with `or`, and a
  // memwall_source label, so the alerts below match the readings of one exporter with each other.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> exprs;
  std::vector<std::pair<std::string, std::string>> order;
  auto add = [&](const std::string& set, const std::string& record, const std::string& expr) {
    auto& e = exprs[{set, record}];
    if (e.empty()) order.emplace_back(set, record);
    e.push_back(expr);
  };
  // Power and thermal clock-event reasons (sample.cc throttle_reasons(), limits_clocks): 1 while
  // any holds the clocks down.
  std::string reasons;
  for (const auto& r : throttle_reasons())
    if (r.limits_clocks) reasons += fmt::format("{}{}", reasons.empty() ? "" : "|", r.name);
  std::map<std::string, std::vector<std::string>> bitmasks;
  for (const auto& m : t.metrics) {
    if (const auto it = recorded().find(m.reading);
        it != recorded().end() && m.kind == ExporterMetric::Kind::value)
      add(m.set, it->second,
          m.scale == 1 ? selector(m) : fmt::format("{} * {}", selector(m), m.scale));
    if (m.kind == ExporterMetric::Kind::reason_flag)
      add(m.set, kClocksLimited,
          fmt::format("max without (reason) ({}{{reason=~\"{}\"}})", m.name, reasons));
    if (m.kind == ExporterMetric::Kind::bitmask) {
      if (bitmasks[m.set].empty()) order.emplace_back(m.set, kClocksLimited);
      bitmasks[m.set].push_back(m.name);
    }
  }
  for (const auto& [set, names] : bitmasks) {
    const std::string mask = fmt::format("({})", fmt::join(names, " or "));
    std::string sum;
    for (const auto& r : throttle_reasons())
      if (r.limits_clocks)
        sum += fmt::format("{}floor({} / {}) % 2", sum.empty() ? "" : " + ", mask, r.bit);
    exprs[{set, kClocksLimited}].push_back(fmt::format("clamp_max({}, 1)", sum));
  }
  // The job labels under the table's one name each (Ascend's pod_name as pod, AMD's job_id as
  // slurm_job), so alerts and dashboards select a job the same way whatever the exporter.
  std::vector<std::pair<std::string, std::string>> renames;
  for (const auto& [canonical, aliases] : t.job_labels)
    for (const auto& alias : aliases)
      if (alias != canonical) renames.emplace_back(canonical, alias);
  for (const auto& key : order) {
    const auto& e = exprs.at(key);
    std::string expr = fmt::format("{}", fmt::join(e, " or "));
    if (key.first != "memwall")  // memwall's exporter has no job labels
      for (const auto& [canonical, alias] : renames)
        expr = fmt::format("label_replace({}, \"{}\", \"$1\", \"{}\", \"(.+)\")", expr, canonical,
                           alias);
    out += fmt::format(
        "      - record: {}\n        expr: {}\n        labels:\n          memwall_source: {}\n",
        key.second, expr, key.first);
  }

  const std::string sm = avg(recorded().at("sm_active_ratio"));
  const std::string tensor = avg(recorded().at("tensor_active_ratio"));
  const std::string dram = avg(recorded().at("dram_bw_util_ratio"));
  const std::string util = avg(recorded().at("gpu_util_ratio"));
  out += "  - name: memwall-walls\n    rules:\n";
  // The advisor's pattern: the reading further above its threshold names the wall (memory on a
  // tie), starved when SM activity is low with neither, and only busy GPUs are starved.
  alert(out, "MemwallMemoryBandwidthBound", Wall::memory_bandwidth,
        fmt::format("{} >= {} unless {} / {} > {} / {}", dram, kMemoryBoundDramUtil, tensor,
                    kComputeBoundTensorActive, dram, kMemoryBoundDramUtil),
        fmt::format("DRAM bandwidth utilisation {{{{ $value | humanizePercentage }}}} over {} "
                    "(>= {:.0f} %): memory-bandwidth-bound",
                    kRulesWindow, kMemoryBoundDramUtil * 100));
  alert(out, "MemwallComputeBound", Wall::compute,
        fmt::format("{} >= {} unless {} / {} >= {} / {}", tensor, kComputeBoundTensorActive, dram,
                    kMemoryBoundDramUtil, tensor, kComputeBoundTensorActive),
        fmt::format("tensor activity {{{{ $value | humanizePercentage }}}} over {} (>= {:.0f} %): "
                    "compute-bound",
                    kRulesWindow, kComputeBoundTensorActive * 100));
  alert(out, "MemwallStarved", Wall::starved,
        fmt::format("{} < {} and ({} >= {} or {} >= {}) unless {} >= {} unless {} >= {}", sm,
                    kStarvedSmActive, sm, kIdleRatio, util, kIdleRatio, dram, kMemoryBoundDramUtil,
                    tensor, kComputeBoundTensorActive),
        fmt::format("SM activity {{{{ $value | humanizePercentage }}}} over {} (< {:.0f} %) with "
                    "neither memory nor tensor pipes busy: starved (host, launches, "
                    "communication or small batches)",
                    kRulesWindow, kStarvedSmActive * 100));
  alert(out, "MemwallClocksLimited", Wall::clocks,
        fmt::format("{} >= {}", avg(kClocksLimited), kClocksLimitedShare),
        fmt::format("power or thermal limits held the clocks down {{{{ $value | "
                    "humanizePercentage }}}} of {} (>= {:.0f} %)",
                    kRulesWindow, kClocksLimitedShare * 100));
  if (!gpu) return out;
  // A link direction whose window average holds at or above the achievable fraction of its
  // per-direction bandwidth carries about all the link can: transfers wait on it. (DCGM's PCIe
  // counters count protocol headers with the payload, its NVLink counters payload only: DCGM
  // user guide, profiling metrics.)
  std::string links;
  for (const auto& l : link_readings()) {
    std::string why;
    const auto bandwidth = link_bandwidth(*gpu, l.host, why);
    if (!bandwidth) continue;
    const double fraction = link_saturation_fraction();
    const std::string described = l.host ? gpu->host_link : gpu->scaleup_interconnect;
    alert(links, l.alert,
          fmt::format("          link: {}\n          direction: {}\n          accelerator: {}\n",
                      l.link, l.direction, gpu->id),
          fmt::format("{} >= {} * {:.0f}", avg(l.record), fraction, bandwidth->value()),
          fmt::format("{} {} {{{{ $value | humanize }}}}B/s over {} (>= {:.0f} % of {}'s {} per "
                      "direction, {}): the link is saturated",
                      l.host ? "PCIe" : "NVLink", l.direction, kRulesWindow, fraction * 100,
                      gpu->id, gb_per_s(*bandwidth), one_line(described, true)));
  }
  if (!links.empty()) out += "  - name: memwall-links\n    rules:\n" + links;
  return out;
}

}  // namespace memwall::monitor
