#include "memwall/cost/host_cost.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/text.h"

namespace memwall::cost {

std::string memory_kind(const Host& h) {
  const std::string t = to_lower(h.memory_type);
  std::string generation;
  for (const char* g : {"lpddr5x", "lpddr5", "ddr5", "ddr4"}) {
    if (t.find(g) != std::string::npos) {
      generation = g;
      break;
    }
  }
  if (generation.empty() || generation.rfind("lp", 0) == 0) return generation;
  for (const char* module : {"mrdimm", "lrdimm", "rdimm", "udimm"}) {
    if (t.find(module) != std::string::npos) return generation + "-" + module;
  }
  return generation;
}

HostCost host_cost(const Host& h, Bytes memory, Bytes nvme, double cpu_utilisation,
                   const PriceBook& book, const CostOverrides& o) {
  HostCost out;
  DeviceHourCost& d = out.hour;
  d.basis = PricingBasis::owned;
  const int sockets = std::max(1, h.sockets);
  const std::optional<HostPrices> hp = book.find_host(h.id, h.aliases);
  std::vector<std::string> capex_sources;
  bool capex_known = true;
  // CPUs: sockets x the price of one.
  if (hp && hp->cpu_usd.known()) {
    out.cpu = Dollars(sockets * *hp->cpu_usd.value);
    capex_sources.push_back(cite(fmt::format("CPU of {} (x{})", h.id, sockets), hp->cpu_usd));
  } else {
    d.unknown.push_back("CPU price of " + h.id);
    capex_known = false;
  }
  out.covers.push_back(fmt::format("{} x {} CPU", sockets, h.id));
  // DRAM: installed GB (DIMM labels count binary gigabytes) x $/GB of the memory kind.
  const std::string kind = memory_kind(h);
  const double gb = memory.value() / kGiB;
  if (const auto per_gb = book.memory_usd_per_gb(kind); per_gb && !kind.empty()) {
    out.dram = Dollars(gb * *per_gb->value);
    capex_sources.push_back(cite(fmt::format("{} $/GB", kind), *per_gb));
  } else {
    d.unknown.push_back("DRAM price of " + (kind.empty() ? h.memory_type : kind));
    capex_known = false;
  }
  out.covers.push_back(fmt::format("{:.0f} GB {}", gb, kind.empty() ? h.memory_type : kind));
  // NVMe: the flash the placement uses, per TB.
  if (nvme.value() > 0) {
    const SourcedValue& per_tb = book.storage().nvme_usd_per_tb;
    if (per_tb.known()) {
      out.nvme = Dollars(nvme.value() / 1e12 * *per_tb.value);
      capex_sources.push_back(cite("NVMe $/TB", per_tb));
    } else {
      d.unknown.push_back("NVMe price");
      capex_known = false;
    }
    out.covers.push_back(fmt::format("{:.1f} TB NVMe", nvme.value() / 1e12));
  }
  // Board, chassis, PSU and cooling: only where the price book has a figure for the host's kind.
  if (const auto platform = book.host_platform_usd(h.kind)) {
    out.platform = Dollars(*platform->value);
    capex_sources.push_back(cite(h.kind + " platform", *platform));
    out.covers.push_back(h.kind + " board, chassis, PSU and cooling");
  } else {
    out.excluded.push_back(
        "the " + h.kind +
        "'s board, chassis, PSU and cooling (no sourced price; add prices.host_platforms)");
  }
  if (capex_known) {
    double capex = out.cpu->value() + out.dram->value();
    if (out.nvme) capex += out.nvme->value();
    if (out.platform) capex += out.platform->value();
    d.capex = Dollars(capex);
  }
  // Power: sockets x TDP at the CPUs' load; DRAM, NVMe and fans are not counted.
  double full_w = 0;
  if (hp && hp->tdp_w.known()) {
    full_w = sockets * *hp->tdp_w.value;
    d.power_source = cite(fmt::format("TDP of {} (x{})", h.id, sockets), hp->tdp_w);
  } else {
    d.unknown.push_back("TDP of " + h.id);
  }
  out.excluded.push_back("DRAM, NVMe and fan power (host power = CPU TDP at load)");
  price_power(full_w, cpu_utilisation, book, o, d);
  d.sources.insert(d.sources.end(), capex_sources.begin(), capex_sources.end());
  price_owned(full_w, book, o, d);
  return out;
}

WithHost add_host(const DeploymentCost& gpu, const HostCost& host, int hosts) {
  WithHost out;
  const double n = std::max(1, hosts);
  const double years = gpu.tco_years;
  if (gpu.per_hour && host.hour.total) out.per_hour = *gpu.per_hour + *host.hour.total * n;
  if (out.per_hour && gpu.generated_tokens_per_s > 0)
    out.usd_per_million_tokens =
        out.per_hour->value() / (gpu.generated_tokens_per_s * 3600.0) * 1e6;
  if (gpu.capex_total && host.hour.capex) out.capex = *gpu.capex_total + *host.hour.capex * n;
  if (const auto host_tco = owned_tco(host.hour, years); gpu.tco && host_tco)
    out.tco = *gpu.tco + *host_tco * n;
  return out;
}

}  // namespace memwall::cost
