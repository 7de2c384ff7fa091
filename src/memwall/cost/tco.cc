#include "memwall/cost/tco.h"

#include <algorithm>
#include <cmath>

#include "memwall/core/error.h"

namespace memwall::cost {
namespace {

// An override wins; otherwise the price-book figure, recording its source or that it is unknown.
std::optional<double> pick(const std::optional<double>& override_value, const SourcedValue& book,
                           const std::string& what, DeviceHourCost& out) {
  if (override_value) {
    out.sources.push_back(what + ": command line");
    return override_value;
  }
  if (book.known()) {
    out.sources.push_back(cite(what, book));
    return book.value;
  }
  out.unknown.push_back(what);
  return std::nullopt;
}

void check(const std::optional<double>& v, const std::string& field, double lo, double hi) {
  if (!v) return;
  if (!std::isfinite(*v) || *v < lo || *v > hi) {
    throw InputError(field, std::to_string(*v),
                     "a finite number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

}  // namespace

std::string cite(const std::string& what, const SourcedValue& v) {
  return what + ": " + v.source + (v.date.empty() ? "" : " (" + v.date + ")");
}

std::string to_string(PricingBasis b) {
  switch (b) {
    case PricingBasis::cloud: return "cloud";
    case PricingBasis::owned: return "owned";
  }
  return "owned";
}

PricingBasis parse_pricing_basis(const std::string& s) {
  if (s == "cloud") return PricingBasis::cloud;
  if (s == "owned") return PricingBasis::owned;
  throw InputError("--pricing", s, "owned, cloud");
}

std::string boundary_text(PricingBasis b) {
  const std::string price =
      b == PricingBasis::owned
          ? "priced owned (card + host + network + power x PUE + hosting)"
          : "priced cloud (rental $/GPU-hour, host, power and facility in the price)";
  return "Every row " + price +
         "; kW = the node's wall power share x PUE, TOK/J = tokens per joule of that wall power "
         "before PUE; a card in no catalog node has no host: its " +
         (b == PricingBasis::owned ? "$ and power are" : "power is") + " unknown.";
}

void CostOverrides::validate() const {
  check(price_per_gpu_hour, "--price-per-gpu-hour", 1e-4, 1e4);
  check(capex_usd, "--capex", 1.0, 1e8);
  check(electricity_usd_per_kwh, "--electricity", 0.0, 10.0);
  check(pue, "--pue", 1.0, 5.0);
  check(life_years, "--life-years", 0.1, 30.0);
  check(hosting_usd_per_kw_month, "--hosting-per-kw-month", 0.0, 1e5);
  check(idle_power_fraction, "--idle-power-fraction", 0.0, 1.0);
  check(tco_years, "--tco-years", 0.01, 30.0);
  if (price_per_gpu_hour && basis == PricingBasis::owned)
    throw InputError("--price-per-gpu-hour", std::to_string(*price_per_gpu_hour),
                     "a cloud rental price, used with --pricing cloud (the default is owned)");
}

Watts board_power(Watts tdp, double utilisation, double idle_fraction) {
  const double u = std::clamp(utilisation, 0.0, 1.0);  // a modelled quantity, not user input
  return tdp * (idle_fraction + (1.0 - idle_fraction) * u);
}

SourcedValue device_capex(const Accelerator& a, const PriceBook& book) {
  const auto prices = book.find(a);
  SourcedValue out = prices ? prices->capex_usd : SourcedValue{};
  if (!(prices && prices->from_user) && a.price) {
    out.value = a.price->value();
    out.source = a.price_source.empty() ? "catalog price_usd of " + a.id : a.price_source;
    out.date.clear();
  }
  return out;
}

DeviceHourCost device_hour_cost(const Accelerator& a, const PriceBook& book,
                                const CostOverrides& o, double utilisation, const Node* node) {
  DeviceHourCost out;
  const auto prices = book.find(a);
  const AcceleratorPrices none;
  const AcceleratorPrices& p = prices ? *prices : none;
  const PlatformPrices& platform = book.platform();
  const std::optional<NodePrices> np = node ? book.find_node(node->id) : std::nullopt;
  const double per_server = node && node->devices > 0 ? node->devices : 1.0;

  // The device's own price: command line (below), then device_capex's order.
  const SourcedValue device_price = device_capex(a, book);
  // Whole-server price when the node has one, else device + platform + network shares (< 0: unknown).
  double capex = -1;
  std::vector<std::string> capex_sources;
  if (o.capex_usd) {
    capex = *o.capex_usd;
    capex_sources.push_back("capex: command line");
  } else if (np && np->capex_usd.known()) {
    capex = np->capex_usd.value.value_or(0.0) / per_server;
    capex_sources.push_back(cite("server price of " + node->id + " / " + std::to_string(node->devices), np->capex_usd));
  } else if (device_price.known()) {
    capex = device_price.value.value_or(0.0);
    capex_sources.push_back(cite("capex of " + a.id, device_price));
  } else {
    out.unknown.push_back("capex of " + a.id + (node ? " (or server price of " + node->id + ")" : ""));
  }
  if (capex >= 0 && node && !o.capex_usd && !(np && np->capex_usd.known())) {
    const SourcedValue& host = np && np->platform_usd.known() ? np->platform_usd : platform.host_platform_usd;
    if (host.known()) {
      capex += host.value.value_or(0.0) / per_server;
      capex_sources.push_back(cite("host platform of " + node->id + " / " + std::to_string(node->devices), host));
    } else {
      out.unknown.push_back("host platform price of " + node->id);
      capex = -1;
    }
    if (capex >= 0 && node->nics > 0) {
      if (platform.switch_port_usd.known() && platform.optics_per_port_usd.known()) {
        capex += node->nics *
                 (platform.switch_port_usd.value.value_or(0.0) + platform.optics_per_port_usd.value.value_or(0.0)) /
                 per_server;
        capex_sources.push_back(cite("switch port", platform.switch_port_usd));
        capex_sources.push_back(cite("optics per port", platform.optics_per_port_usd));
      } else {
        out.unknown.push_back("network port price");
        capex = -1;
      }
    }
  }

  // Power of one device at full load, with its share of the host (0: unknown).
  double full_w = 0;
  if (np && np->power_w.known()) {
    full_w = np->power_w.value.value_or(0.0) / per_server;
    out.power_source = cite("wall power of " + node->id + " / " + std::to_string(node->devices), np->power_w);
  } else if (a.tdp) {
    out.power_source = "TDP of " + a.id + " (catalog)";
    if (!node) {
      full_w = a.tdp->value();
    } else if (platform.host_power_w.known()) {
      full_w = a.tdp->value() + platform.host_power_w.value.value_or(0.0) / per_server;
      out.power_source += " + " + cite("host power / " + std::to_string(node->devices), platform.host_power_w);
    } else {
      out.unknown.push_back("host power of " + node->id);
    }
  } else {
    out.unknown.push_back("TDP of " + a.id + (node ? " (or wall power of " + node->id + ")" : ""));
  }

  const PricingBasis basis = o.basis;
  out.basis = basis;

  price_power(full_w, utilisation, book, o, out);
  if (capex >= 0) out.capex = Dollars(capex);

  if (basis == PricingBasis::cloud) {
    SourcedValue rental = p.cloud_usd_per_gpu_hour;
    if (!rental.known() && np && np->cloud_usd_per_node_hour.known()) {
      rental = np->cloud_usd_per_node_hour;
      rental.value = *rental.value / per_server;
    }
    if (auto r = pick(o.price_per_gpu_hour, rental, "cloud $/GPU-hour of " + a.id, out)) {
      out.rental = Dollars(*r);
      out.total = out.rental;
    }
    return out;
  }

  out.sources.insert(out.sources.end(), capex_sources.begin(), capex_sources.end());
  price_owned(full_w, book, o, out);
  return out;
}

void price_power(double full_w, double utilisation, const PriceBook& book, const CostOverrides& o,
                 DeviceHourCost& out) {
  const FacilityPrices& f = book.facility();
  const double idle = o.idle_power_fraction ? *o.idle_power_fraction
                                            : f.idle_power_fraction.value.value_or(0.0);
  if (!o.idle_power_fraction && f.idle_power_fraction.known()) {
    out.sources.push_back(cite("idle power fraction", f.idle_power_fraction));
  }
  const auto pue = pick(o.pue, f.pue, "PUE", out);
  if (full_w > 0) {
    out.board_power = board_power(Watts(full_w), utilisation, idle);
    if (pue) out.facility_power = *out.board_power * *pue;
    out.sources.push_back("power: " + out.power_source);
  }
}

void price_owned(double full_w, const PriceBook& book, const CostOverrides& o, DeviceHourCost& out) {
  // Owned: capex / (life x 8760 h) + board kW x PUE x $/kWh + provisioned kW x $/kW-month x 12 / 8760.
  const FacilityPrices& f = book.facility();
  const auto life = pick(o.life_years, f.life_years, "life years", out);
  const auto electricity = pick(o.electricity_usd_per_kwh, f.electricity_usd_per_kwh, "electricity $/kWh", out);
  const auto hosting = pick(o.hosting_usd_per_kw_month, f.hosting_usd_per_kw_month, "hosting $/kW-month", out);
  if (out.capex && life) out.capex_share = Dollars(out.capex->value() / (*life * kHoursPerYear));
  if (out.facility_power && electricity) {
    out.energy = Dollars(out.facility_power->value() / 1000.0 * *electricity);
  }
  // Colocation is rented per provisioned kW: the full-load draw.
  if (full_w > 0 && hosting) out.hosting = Dollars(full_w / 1000.0 * *hosting * 12.0 / kHoursPerYear);
  if (out.capex_share && out.energy && out.hosting) {
    out.total = *out.capex_share + *out.energy + *out.hosting;
  }
}

std::optional<Dollars> owned_tco(const DeviceHourCost& d, double years) {
  // The purchase is paid once; energy and hosting run for the horizon.
  if (!d.capex || !d.energy || !d.hosting) return std::nullopt;
  return *d.capex + (*d.energy + *d.hosting) * (years * kHoursPerYear);
}

DeploymentCost deployment_cost(const Accelerator& a, int devices, double generated_tokens_per_s,
                               double utilisation, const PriceBook& book, const CostOverrides& o,
                               const Node* node) {
  if (devices <= 0) throw InputError("devices", std::to_string(devices), "a positive count");
  require_non_negative(generated_tokens_per_s, "generated tokens per second");
  DeploymentCost out;
  out.devices = devices;
  out.billed_devices = devices;
  out.generated_tokens_per_s = generated_tokens_per_s;
  out.tco_years = o.tco_years;
  out.device = device_hour_cost(a, book, o, utilisation, node);
  const double n = devices;
  // Whole servers: the devices no replica uses still have to be bought, hosted and idle-powered.
  int spare = 0;
  std::optional<DeviceHourCost> idle;
  if (node && node->devices > 1 && out.device.basis == PricingBasis::owned) {
    out.servers = (devices + node->devices - 1) / node->devices;
    out.billed_devices = out.servers * node->devices;
    spare = out.billed_devices - devices;
    if (spare > 0) idle = device_hour_cost(a, book, o, 0.0, node);
  }
  auto plus_spare = [&](const std::optional<Dollars>& active, auto member) -> std::optional<Dollars> {
    if (!active) return std::nullopt;
    if (spare == 0) return *active * n;
    const std::optional<Dollars>& s = (*idle).*member;
    if (!s) return std::nullopt;
    return *active * n + *s * static_cast<double>(spare);
  };
  out.per_hour = plus_spare(out.device.total, &DeviceHourCost::total);
  if (out.per_hour && generated_tokens_per_s > 0) {
    out.usd_per_million_tokens = out.per_hour->value() / (generated_tokens_per_s * 3600.0) * 1e6;
  }
  if (out.device.facility_power) {
    out.facility_power = *out.device.facility_power * n;
    if (spare > 0 && idle->facility_power) *out.facility_power += *idle->facility_power * static_cast<double>(spare);
  }
  if (out.device.board_power && out.device.board_power->value() > 0) {
    double watts = out.device.board_power->value() * n;
    if (spare > 0 && idle->board_power) watts += idle->board_power->value() * spare;
    out.tokens_per_joule = generated_tokens_per_s / watts;
  }
  const double hours = o.tco_years * kHoursPerYear;
  if (out.device.basis == PricingBasis::owned) {
    if (out.device.capex) out.capex_total = *out.device.capex * static_cast<double>(out.billed_devices);
    // TCO = purchase + running costs over the horizon (the purchase is paid once, not amortised).
    const auto running = [&](const DeviceHourCost& d) -> std::optional<Dollars> {
      if (!d.energy || !d.hosting) return std::nullopt;
      return *d.energy + *d.hosting;
    };
    const auto run_active = running(out.device);
    const auto run_idle = spare > 0 ? running(*idle) : std::optional<Dollars>(Dollars(0));
    if (out.capex_total && run_active && run_idle) {
      out.tco = *out.capex_total + (*run_active * n + *run_idle * static_cast<double>(spare)) * hours;
    }
  } else if (out.per_hour) {
    out.tco = *out.per_hour * hours;
  }
  return out;
}

void without_host(DeploymentCost& c, const std::string& accelerator_id) {
  const std::string why = "host, network and wall power of " + accelerator_id +
                          " (the catalog has no node of it; add one with --catalog)";
  c.device.unknown.push_back(why);
  c.device.board_power.reset();
  c.device.facility_power.reset();
  c.facility_power.reset();
  c.tokens_per_joule.reset();
  if (c.device.basis == PricingBasis::cloud) return;
  c.device.total.reset();
  c.per_hour.reset();
  c.usd_per_million_tokens.reset();
  c.capex_total.reset();
  c.tco.reset();
}

namespace {
template <class T>
std::optional<T> sum(const std::optional<T>& x, const std::optional<T>& y) {
  return x && y ? std::optional<T>(*x + *y) : std::nullopt;
}
}  // namespace

DeploymentCost combine(const DeploymentCost& a, const DeploymentCost& b) {
  DeploymentCost out = a;
  out.devices = a.devices + b.devices;
  out.generated_tokens_per_s = a.generated_tokens_per_s + b.generated_tokens_per_s;
  out.per_hour = sum(a.per_hour, b.per_hour);
  out.usd_per_million_tokens.reset();
  if (out.per_hour && out.generated_tokens_per_s > 0) {
    out.usd_per_million_tokens = out.per_hour->value() / (out.generated_tokens_per_s * 3600.0) * 1e6;
  }
  out.capex_total = sum(a.capex_total, b.capex_total);
  out.tco = sum(a.tco, b.tco);
  out.facility_power = sum(a.facility_power, b.facility_power);
  out.tokens_per_joule.reset();
  if (a.device.board_power && b.device.board_power) {
    const double watts = a.device.board_power->value() * a.devices + b.device.board_power->value() * b.devices;
    if (watts > 0) out.tokens_per_joule = out.generated_tokens_per_s / watts;
  }
  for (const auto& u : b.device.unknown) {
    if (std::find(out.device.unknown.begin(), out.device.unknown.end(), u) == out.device.unknown.end())
      out.device.unknown.push_back(u);
  }
  for (const auto& src : b.device.sources) {
    if (std::find(out.device.sources.begin(), out.device.sources.end(), src) == out.device.sources.end())
      out.device.sources.push_back(src);
  }
  return out;
}

}  // namespace memwall::cost
