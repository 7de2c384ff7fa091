#include "memwall/cost/tco.h"

#include <algorithm>
#include <cmath>

#include "memwall/core/error.h"

namespace memwall::cost {
namespace {

std::string cite(const std::string& what, const SourcedValue& v) {
  return what + ": " + v.source + (v.date.empty() ? "" : " (" + v.date + ")");
}

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

std::string to_string(PricingBasis b) {
  switch (b) {
    case PricingBasis::automatic: return "auto";
    case PricingBasis::cloud: return "cloud";
    case PricingBasis::owned: return "owned";
  }
  return "auto";
}

PricingBasis parse_pricing_basis(const std::string& s) {
  if (s == "auto") return PricingBasis::automatic;
  if (s == "cloud") return PricingBasis::cloud;
  if (s == "owned") return PricingBasis::owned;
  throw InputError("--pricing", s, "auto, cloud, owned");
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
}

Watts board_power(Watts tdp, double utilisation, double idle_fraction) {
  const double u = std::clamp(utilisation, 0.0, 1.0);  // a modelled quantity, not user input
  return tdp * (idle_fraction + (1.0 - idle_fraction) * u);
}

DeviceHourCost device_hour_cost(const Accelerator& a, const PriceBook& book,
                                const CostOverrides& o, double utilisation) {
  DeviceHourCost out;
  const auto prices = book.find(a);
  const AcceleratorPrices none;
  const AcceleratorPrices& p = prices ? *prices : none;
  const FacilityPrices& f = book.facility();

  // Resolve the basis: explicit, or owned when it can be priced, else cloud.
  const bool capex_known = o.capex_usd || p.capex_usd.known();
  const bool rental_known = o.price_per_gpu_hour || p.cloud_usd_per_gpu_hour.known();
  PricingBasis basis = o.basis;
  if (basis == PricingBasis::automatic) {
    if (o.price_per_gpu_hour) {
      basis = PricingBasis::cloud;
    } else if (capex_known && a.tdp) {
      basis = PricingBasis::owned;
    } else if (rental_known) {
      basis = PricingBasis::cloud;
    } else {
      basis = PricingBasis::owned;  // reported with its unknowns
    }
  }
  out.basis = basis;

  const double idle = o.idle_power_fraction ? *o.idle_power_fraction
                                            : f.idle_power_fraction.value.value_or(0.0);
  if (!o.idle_power_fraction && f.idle_power_fraction.known()) {
    out.sources.push_back(cite("idle power fraction", f.idle_power_fraction));
  }
  const auto pue = pick(o.pue, f.pue, "PUE", out);
  if (a.tdp) {
    out.board_power = board_power(*a.tdp, utilisation, idle);
    if (pue) out.facility_power = *out.board_power * *pue;
  } else {
    out.unknown.push_back("TDP of " + a.id);
  }
  if (const auto capex = o.capex_usd ? o.capex_usd : p.capex_usd.value) out.capex = Dollars(*capex);

  if (basis == PricingBasis::cloud) {
    if (auto r = pick(o.price_per_gpu_hour, p.cloud_usd_per_gpu_hour, "cloud $/GPU-hour of " + a.id, out)) {
      out.rental = Dollars(*r);
      out.total = out.rental;
    }
    return out;
  }

  // Owned: capex / (life x 8760 h) + board kW x PUE x $/kWh + provisioned (TDP) kW x $/kW-month x 12 / 8760.
  const auto capex = pick(o.capex_usd, p.capex_usd, "capex of " + a.id, out);
  const auto life = pick(o.life_years, f.life_years, "life years", out);
  const auto electricity = pick(o.electricity_usd_per_kwh, f.electricity_usd_per_kwh, "electricity $/kWh", out);
  const auto hosting = pick(o.hosting_usd_per_kw_month, f.hosting_usd_per_kw_month, "hosting $/kW-month", out);
  if (capex && life) out.capex_share = Dollars(*capex / (*life * kHoursPerYear));
  if (out.facility_power && electricity) {
    out.energy = Dollars(out.facility_power->value() / 1000.0 * *electricity);
  }
  if (a.tdp && hosting) out.hosting = Dollars(a.tdp->value() / 1000.0 * *hosting * 12.0 / kHoursPerYear);
  if (out.capex_share && out.energy && out.hosting) {
    out.total = *out.capex_share + *out.energy + *out.hosting;
  }
  return out;
}

DeploymentCost deployment_cost(const Accelerator& a, int devices, double generated_tokens_per_s,
                               double utilisation, const PriceBook& book, const CostOverrides& o) {
  if (devices <= 0) throw InputError("devices", std::to_string(devices), "a positive count");
  require_non_negative(generated_tokens_per_s, "generated tokens per second");
  DeploymentCost out;
  out.devices = devices;
  out.generated_tokens_per_s = generated_tokens_per_s;
  out.tco_years = o.tco_years;
  out.device = device_hour_cost(a, book, o, utilisation);
  const double n = devices;
  if (out.device.total) {
    out.per_hour = *out.device.total * n;
    if (generated_tokens_per_s > 0) {
      out.usd_per_million_tokens = out.per_hour->value() / (generated_tokens_per_s * 3600.0) * 1e6;
    }
  }
  if (out.device.facility_power) out.facility_power = *out.device.facility_power * n;
  if (out.device.board_power && out.device.board_power->value() > 0) {
    out.tokens_per_joule = generated_tokens_per_s / (out.device.board_power->value() * n);
  }
  const double hours = o.tco_years * kHoursPerYear;
  if (out.device.basis == PricingBasis::owned) {
    if (out.device.capex) out.capex_total = *out.device.capex * n;
    // TCO = purchase + running costs over the horizon (the purchase is paid once, not amortised).
    if (out.capex_total && out.device.energy && out.device.hosting) {
      out.tco = *out.capex_total + (*out.device.energy + *out.device.hosting) * (n * hours);
    }
  } else if (out.per_hour) {
    out.tco = *out.per_hour * hours;
  }
  return out;
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
