// What the host of an offload plan costs (docs/cost.md "Host prices"): its CPUs, the DRAM that
// holds the offloaded weights, experts or KV cache, the NVMe flash that holds what DRAM cannot and,
// when the price book has one, its platform (board, chassis, PSU, cooling); priced as owned
// hardware like an accelerator (capex over the life, energy x PUE, hosting per provisioned kW).
// Unknown parts leave the host's price unknown, never zero.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/cost/prices.h"
#include "memwall/cost/tco.h"
#include "memwall/hw/host.h"

namespace memwall::cost {

struct HostCost {
  DeviceHourCost hour;                               // the whole host for one hour (owned basis)
  std::optional<Dollars> cpu, dram, nvme, platform;  // parts of hour.capex (platform: when priced)
  std::vector<std::string> covers;    // what the price covers ("2 x amd-epyc-9654 CPU", ...)
  std::vector<std::string> excluded;  // what it leaves out, said once
  bool priced() const { return hour.total.has_value(); }
};

// "ddr5-rdimm", "ddr5-udimm", "ddr4-rdimm", "lpddr5x", ... from the catalog's memory_type
// ("DDR5-4800 RDIMM"); empty when it names no DDR generation.
std::string memory_kind(const Host& h);

// The host with h.sockets CPUs, `memory` of DRAM and `nvme` of flash (zero: none), its CPUs busy
// `cpu_utilisation` of the time (power = sockets x TDP at that load on the linear model of
// cost::board_power). Facility figures and --electricity/--pue/--life-years/--hosting-per-kw-month/
// --idle-power-fraction apply as to accelerators; --capex and --price-per-gpu-hour do not.
HostCost host_cost(const Host& h, Bytes memory, Bytes nvme, double cpu_utilisation,
                   const PriceBook& book, const CostOverrides& o);

// A GPU deployment with `hosts` hosts added: $/hour, $ per million tokens, capex and TCO over
// o.tco_years of the sum, each unknown when either part is.
struct WithHost {
  std::optional<Dollars> per_hour, capex, tco;
  std::optional<double> usd_per_million_tokens;
};
WithHost add_host(const DeploymentCost& gpu, const HostCost& host, int hosts = 1);

}  // namespace memwall::cost
