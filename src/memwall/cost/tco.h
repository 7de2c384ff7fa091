// What running a deployment costs: device-hours priced as cloud rental or as owned hardware
// (capex amortised over its life + electricity for the power drawn at the modelled utilisation
// x PUE + colocation rent per provisioned kW), then $ per million generated tokens, tokens per
// joule and total cost of ownership over a horizon. Unknown prices stay unknown and are listed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/cost/prices.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/node.h"

namespace memwall::cost {

// One basis for every row of a ranking (docs/cost.md "One boundary per ranking"): a row that has
// no figure on it is priced unknown, never on the other basis.
enum class PricingBasis {
  cloud,  // on-demand $/GPU-hour (host, power and facility included in the price)
  owned,  // capex of card + host + network / life + energy at the wall x PUE + hosting
};
std::string to_string(PricingBasis b);
PricingBasis parse_pricing_basis(const std::string& s);  // InputError naming --pricing
// The boundary every row of a ranking is priced and powered on, in words, for a table header.
std::string boundary_text(PricingBasis b);

// Command-line overrides; each replaces the price-book figure for every accelerator.
struct CostOverrides {
  PricingBasis basis = PricingBasis::owned;
  std::optional<double> price_per_gpu_hour;  // $/device-hour (with basis = cloud)
  std::optional<double> capex_usd;           // $ per device
  std::optional<double> electricity_usd_per_kwh;
  std::optional<double> pue;
  std::optional<double> life_years;
  std::optional<double> hosting_usd_per_kw_month;
  std::optional<double> idle_power_fraction;
  double tco_years = 3.0;  // horizon of the reported total cost of ownership
  void validate() const;   // InputError for out-of-range values, or a rental price when owned
};

inline constexpr double kHoursPerYear = 8760.0;

// One device for one hour.
struct DeviceHourCost {
  PricingBasis basis = PricingBasis::owned;  // resolved: cloud or owned
  std::optional<Dollars> total;              // nullopt when a needed figure is unknown
  std::optional<Dollars> capex_share, energy, hosting, rental;  // the parts (owned / cloud)
  std::optional<Dollars> capex;                                 // purchase price of the device
  std::optional<Watts> board_power;     // at the modelled utilisation (with the host share of a node)
  std::optional<Watts> facility_power;  // board power x PUE
  std::string power_source;             // where the power figure comes from
  std::vector<std::string> unknown;     // figures that were missing ("capex of nvidia-l4" ...)
  std::vector<std::string> sources;     // "capex: <source> (<date>)" for each figure used
};

// Board power at utilisation u in [0,1]: TDP x (idle + (1 - idle) x u), a linear model between the
// static floor and TDP (TDP is the sustained board power limit in the vendor datasheet).
Watts board_power(Watts tdp, double utilisation, double idle_fraction);

// With a node, one device carries its share of the server it ships in (docs/cost.md "Servers
// bought whole"): the node's whole-server price / devices when known, else the device price plus
// the host platform and one scale-out port (switch share + optics) per NIC, all / devices; power
// is the node's wall power / devices when known, else TDP plus the host's share.
// The purchase price of one device that costs are computed with: a user price file's, else the
// catalog row's price_usd, else the built-in price book's (unknown when none gives one). The
// command line's --capex overrides it in device_hour_cost.
SourcedValue device_capex(const Accelerator& a, const PriceBook& book);
DeviceHourCost device_hour_cost(const Accelerator& a, const PriceBook& book,
                                const CostOverrides& o, double utilisation,
                                const Node* node = nullptr);

// A deployment of `devices` identical devices generating `tokens_per_s` output tokens per second.
struct DeploymentCost {
  int devices = 0;
  double generated_tokens_per_s = 0;
  DeviceHourCost device;
  std::optional<Dollars> per_hour;                  // all devices
  std::optional<double> usd_per_million_tokens;     // per_hour / (tokens per hour) x 1e6
  std::optional<Dollars> capex_total;               // owned: devices x capex
  std::optional<Dollars> tco;                       // over o.tco_years
  double tco_years = 3.0;
  std::optional<Watts> facility_power;              // all devices, with PUE
  std::optional<double> tokens_per_joule;           // generated tokens / board energy
  int servers = 0;                                  // owned with a node: whole servers bought
  int billed_devices = 0;                           // servers x devices per server (>= devices)
};

// Building blocks of the owned price, shared with the host of offload plans (cost/host_cost.h).
// "what: source (date)" for the sources list.
std::string cite(const std::string& what, const SourcedValue& v);
// Sets out.board_power (full_w at `utilisation` with the idle floor) and out.facility_power (x PUE),
// recording sources or unknowns; full_w <= 0 leaves the power unknown.
void price_power(double full_w, double utilisation, const PriceBook& book, const CostOverrides& o,
                 DeviceHourCost& out);
// With out.capex and out.facility_power set: capex share over the life, energy, hosting per
// provisioned kW (full_w) and their total, each unknown when a figure it needs is.
void price_owned(double full_w, const PriceBook& book, const CostOverrides& o, DeviceHourCost& out);
// capex + (energy + hosting) over `years`; nullopt when a part is unknown.
std::optional<Dollars> owned_tco(const DeviceHourCost& d, double years);

// Owned with a node: whole servers are bought (devices rounded up to the node's device count);
// the devices no replica uses idle at the idle power fraction.
DeploymentCost deployment_cost(const Accelerator& a, int devices, double generated_tokens_per_s,
                               double utilisation, const PriceBook& book, const CostOverrides& o,
                               const Node* node = nullptr);

// A card in no catalog node has no host, network or wall power: in a ranking (docs/cost.md "One
// boundary per ranking") its owned $ figures and its power become unknown, naming why; a cloud
// rental (host included in the price) keeps its $ figures. Callers that add a host themselves
// (offload plans, cost/host_cost.h) do not call this.
void without_host(DeploymentCost& c, const std::string& accelerator_id);

// Two pools of one deployment (disaggregated serving: the decode pool `a` generates the tokens,
// the prefill pool `b` only serves prompts): devices, $/hour, capex, TCO and power add; $ per
// million tokens and tokens per joule are recomputed over the sum. A figure is known only when it
// is known for both pools. `device` stays `a`'s, with `b`'s unknowns and sources appended.
DeploymentCost combine(const DeploymentCost& a, const DeploymentCost& b);

}  // namespace memwall::cost
