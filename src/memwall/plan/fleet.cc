#include "memwall/plan/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include "memwall/core/error.h"
#include "memwall/cost/tco.h"
#include "memwall/perf/efficiency.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/rejections.h"
#include "memwall/plan/verify.h"

namespace memwall::plan {
namespace {

constexpr size_t kMaxHours = 8784;  // a leap year of hours
constexpr double kHoursPerMonth = cost::kHoursPerYear / 12.0;

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    cells.push_back(
        trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

double number_cell(const std::string& cell, const std::string& field, const char* allowed) {
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v))
    throw InputError(field, cell, allowed);
  return v;
}

// Binomial(n, u) upper tail P(X > k), summed in log space (n up to 1e6 devices).
double tail_above(int n, int k, double u) {
  if (u <= 0) return 0;
  if (k >= n) return 0;
  double below = 0;
  const double lu = std::log(u), l1u = std::log1p(-u);
  for (int j = 0; j <= k; ++j)
    below += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) +
                      j * lu + (n - j) * l1u);
  return std::max(0.0, 1.0 - below);
}

// k of N+k: the fewest spare replicas for which all `needed` are up with probability >= target,
// each replica out independently with probability u (Barlow & Proschan, "Mathematical Theory of
// Reliability", 1965: k-out-of-n systems).
int spares_for(int needed, double u, double availability) {
  for (int k = 0; k <= needed + 64; ++k)
    if (tail_above(needed + k, k, u) <= 1 - availability) return k;
  return needed + 64;
}

void check_range(double v, double lo, double hi, const char* field, const char* allowed) {
  if (!std::isfinite(v) || v < lo || v > hi) throw InputError(field, fmt::format("{}", v), allowed);
}

// The replica `unit`'s capacity for one hour's lengths: B* sequences and their e2e(B*), from the
// planner's own search restricted to that replica (so an hour is sized exactly as `plan infer`
// would size it).
struct Capacity {
  Plan plan;                   // the unit at these lengths (replicas to be set per hour)
  InferenceWorkload workload;  // rate to be set per hour
  serve::Dataset lengths;
  double requests_per_s = 0;  // one replica: B* / e2e(B*)
};

}  // namespace

DemandCurve parse_demand_csv(const std::string& text, const std::string& where) {
  DemandCurve d;
  d.source = where;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool header_seen = false, lengths = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string at = fmt::format("{}:{}", where, number);
    if (trim(line).empty()) continue;
    const std::vector<std::string> cells = cells_of(line);
    if (!header_seen) {
      header_seen = true;
      const bool plain = cells == std::vector<std::string>{"hour", "rate_per_s"};
      lengths =
          cells == std::vector<std::string>{"hour", "rate_per_s", "input_tokens", "output_tokens"};
      if (!plain && !lengths)
        throw InputError(at + ": header", trim(line),
                         "hour,rate_per_s or hour,rate_per_s,input_tokens,output_tokens");
      continue;
    }
    const size_t columns = lengths ? 4 : 2;
    if (cells.size() != columns)
      throw InputError(at, trim(line), fmt::format("{} comma-separated values", columns));
    const double hour = number_cell(cells[0], at + ": hour", "the next hour, from 0");
    if (hour != double(d.hours.size()))
      throw InputError(at + ": hour", cells[0],
                       fmt::format("{} (hours run 0, 1, 2 ... without a gap)", d.hours.size()));
    if (d.hours.size() >= kMaxHours)
      throw InputError(at, cells[0], fmt::format("at most {} hours (a year)", kMaxHours));
    DemandHour h;
    h.rate_per_s = number_cell(cells[1], at + ": rate_per_s", "requests per second, 0 to 1e7");
    check_range(h.rate_per_s, 0, 1e7, (at + ": rate_per_s").c_str(),
                "requests per second, 0 to 1e7");
    if (lengths) {
      const char* names[] = {"input_tokens", "output_tokens"};
      for (int c = 0; c < 2; ++c) {
        const std::string field = at + ": " + names[c];
        const double v = number_cell(cells[2 + c], field, "a whole number of tokens, 1 to 1e7");
        if (v < 1 || v > 1e7 || v != std::floor(v))
          throw InputError(field, cells[2 + c], "a whole number of tokens, 1 to 1e7");
        (c == 0 ? h.input_tokens : h.output_tokens) = static_cast<int64_t>(v);
      }
    }
    d.hours.push_back(h);
  }
  if (!header_seen) throw InputError(where, "(empty)", "a CSV with the header hour,rate_per_s");
  if (d.hours.empty()) throw InputError(where, "(no rows)", "at least one hour of demand");
  return d;
}

DemandCurve demand_from_rates(const std::vector<double>& rates, const std::string& field) {
  if (rates.size() > kMaxHours)
    throw InputError(field, fmt::format("{} rates", rates.size()),
                     fmt::format("at most {} hours (a year)", kMaxHours));
  if (rates.empty()) throw InputError(field, "(none)", "at least one hour of demand");
  DemandCurve d;
  d.source = field;
  for (size_t h = 0; h < rates.size(); ++h) {
    const std::string at = fmt::format("{}[{}]", field, h);
    check_range(rates[h], 0, 1e7, at.c_str(), "requests per second, 0 to 1e7");
    d.hours.push_back({rates[h], std::nullopt, std::nullopt});
  }
  return d;
}

DemandCurve demand_from_rates(const std::string& rates, const std::string& field) {
  const std::vector<std::string> cells = cells_of(rates);
  if (cells.size() > kMaxHours)
    throw InputError(field, fmt::format("{} rates", cells.size()),
                     fmt::format("at most {} hours (a year)", kMaxHours));
  std::vector<double> values;
  for (size_t h = 0; h < cells.size(); ++h)
    values.push_back(
        number_cell(cells[h], fmt::format("{}[{}]", field, h), "requests per second, 0 to 1e7"));
  return demand_from_rates(values, field);
}

FleetAnswer plan_fleet(const Catalog& catalog, const cost::PriceBook& prices, const FleetQuery& q) {
  if (q.demand.hours.empty()) throw InputError("demand", "(no hours)", "at least one hour");
  check_range(q.growth_per_month, -0.5, 10, "growth", "-50 % to +1000 % per month");
  if (q.months < 1 || q.months > 120)
    throw InputError("months", std::to_string(q.months), "1 to 120");
  check_range(q.availability, 0.5, 0.999999, "availability", "0.5 to 0.999999");
  check_range(q.failures_per_device_year, 0, 100, "failures_per_device_year", "0 to 100");
  const double repair_hours = q.repair_hours.value_or(kAssumedRepairHours);
  const double startup_s = q.startup_s.value_or(kAssumedStartupS);
  check_range(repair_hours, 0.01, 8760, "repair_hours", "0.01 to 8760 hours");
  check_range(startup_s, 0, 86400, "startup_s", "0 to 86400 seconds");
  if (q.rent_per_gpu_hour)
    check_range(*q.rent_per_gpu_hour, 0, 1e4, "rent_per_gpu_hour", "$0 to $10,000");
  if (q.min_replicas < 1 || q.min_replicas > 100000)
    throw InputError("min_replicas", std::to_string(q.min_replicas), "1 to 100000");
  if (q.check_requests != 0 && (q.check_requests < 10 || q.check_requests > 1'000'000))
    throw InputError("check_requests", std::to_string(q.check_requests),
                     "0 (no check) or 10 to 1000000");
  if (q.base.cost.basis != cost::PricingBasis::owned)
    throw InputError("pricing", cost::to_string(q.base.cost.basis),
                     "owned (the fleet owns its base; rented hours are priced with the rental "
                     "price, --rent-per-gpu-hour)");

  FleetAnswer a;
  for (int m = 0; m < q.months; ++m) a.monthly_scale.push_back(std::pow(1 + q.growth_per_month, m));
  const double top_scale = *std::max_element(a.monthly_scale.begin(), a.monthly_scale.end());
  const double last_scale = a.monthly_scale.back();
  size_t peak_hour = 0;
  for (size_t h = 0; h < q.demand.hours.size(); ++h)
    if (q.demand.hours[h].rate_per_s > q.demand.hours[peak_hour].rate_per_s) peak_hour = h;
  const DemandHour& peak = q.demand.hours[peak_hour];
  if (!(peak.rate_per_s > 0)) throw InputError("demand", "every hour 0 requests/s", "some demand");

  // The replica: the planner's first plan for the peak hour (aggregated serving, no offload).
  InferenceQuery pq = q.base;
  pq.rate = peak.rate_per_s * top_scale;
  pq.concurrency.reset();
  if (peak.input_tokens) pq.input = std::to_string(*peak.input_tokens);
  if (peak.output_tokens) pq.output = std::to_string(*peak.output_tokens);
  pq.serving = "aggregated";
  pq.offload = false;
  pq.verify = 0;
  pq.top = std::max(pq.top, 1);
  a.peak = answer_inference(catalog, prices, pq);
  const InferenceAnswer& pa = *a.peak;
  if (pa.result.plans.empty()) {
    std::string why;
    for (const auto& [id, reason] : binding_rejections(pa.result.rejected))
      why += fmt::format("\n  {}: {}", id, reason);
    throw InfeasibleError(fmt::format(
        "no replica meets the SLA at the peak hour ({} at {:.4g} requests/s){}", peak_hour,
        *pq.rate, why.empty() ? std::string(" (no accelerator was searched)") : why));
  }
  a.unit = pa.result.plans.front();
  const ReplicaShape& shape = a.unit.shape;
  a.devices_per_replica = shape.devices();
  a.devices_per_server = shape.node ? shape.node->devices : shape.devices();

  // Each distinct hour's lengths sized by the planner's search over that one replica.
  const auto factory = estimator_factory(
      pa.fabric, q.base.calibration ? std::make_shared<const perf::Efficiency>(
                                          perf::load_calibration(*q.base.calibration))
                                    : nullptr);
  SearchSpace space = pa.space;
  space.accelerators = {shape.accelerator};
  space.nodes.clear();
  if (shape.node) space.nodes.push_back(shape.node);
  space.tp = {shape.tp};
  space.pp = {shape.pp};
  space.weight_precisions = {shape.weights};
  space.kv_precisions = {shape.kv};
  space.aggregated = true;
  space.disaggregated = false;
  Constraints constraints;
  constraints.engine = q.base.engine;
  std::map<std::pair<int64_t, int64_t>, Capacity> capacities;
  auto capacity = [&](const DemandHour& h, int hour) -> const Capacity& {
    const std::pair<int64_t, int64_t> key{h.input_tokens.value_or(-1),
                                          h.output_tokens.value_or(-1)};
    auto it = capacities.find(key);
    if (it != capacities.end()) return it->second;
    Capacity c;
    c.lengths = h.input_tokens ? parse_lengths(std::to_string(*h.input_tokens),
                                               std::to_string(*h.output_tokens))
                               : pa.lengths;
    c.workload = pa.workload;
    summarize_lengths(c.lengths, c.workload.input, c.workload.output);
    c.workload.load.rate_per_s = 1.0;  // e2e(B*) does not depend on the rate
    const InferenceSearchResult r =
        search_inference(pa.model, c.workload, space, constraints, pa.options, factory, prices);
    const Plan* match = nullptr;
    for (const Plan& p : r.plans)
      if (p.shape.ep == shape.ep && p.shape.engine == shape.engine) {
        match = &p;
        break;
      }
    if (!match)
      throw InfeasibleError(fmt::format(
          "hour {}: the replica {} meets the SLA at the peak hour but not with this hour's "
          "lengths ({} -> {} tokens){}",
          hour, shape.describe(), c.workload.input.description, c.workload.output.description,
          r.rejected.empty() ? std::string() : ": " + r.rejected.front().reason));
    c.plan = *match;
    // concurrency = rate x e2e(B*) at rate 1.
    c.requests_per_s = c.plan.batch_cap / c.plan.concurrency;
    return capacities.emplace(key, std::move(c)).first->second;
  };

  // Availability: a replica is out while any of its devices is (failure rate x devices, each
  // out for the repair time): unavailability x / (1 + x), x = rate x repair (an alternating
  // renewal process, Barlow & Proschan 1965).
  const double x =
      q.failures_per_device_year / cost::kHoursPerYear * a.devices_per_replica * repair_hours;
  a.replica_unavailability = x / (1 + x);
  auto needed_at = [&](const DemandHour& h, int hour, double scale) {
    const double r = h.rate_per_s * scale;
    return std::max(q.min_replicas,
                    static_cast<int>(std::ceil(r / capacity(h, hour).requests_per_s - 1e-9)));
  };
  const size_t n_hours = q.demand.hours.size();
  const double reps_per_month = kHoursPerMonth / double(n_hours);
  a.horizon_hours = kHoursPerMonth * q.months;
  // running and billed replicas per month and hour.
  std::vector<std::vector<int>> running(a.monthly_scale.size(), std::vector<int>(n_hours));
  std::vector<std::vector<double>> billed(a.monthly_scale.size(), std::vector<double>(n_hours));
  std::map<int, int> spares_cache;
  auto spares = [&](int n) {
    auto it = spares_cache.find(n);
    if (it == spares_cache.end())
      it = spares_cache.emplace(n, spares_for(n, a.replica_unavailability, q.availability)).first;
    return it->second;
  };
  int peak_running = 0;
  for (size_t m = 0; m < a.monthly_scale.size(); ++m) {
    for (size_t h = 0; h < n_hours; ++h) {
      const int n = needed_at(q.demand.hours[h], int(h), a.monthly_scale[m]);
      running[m][h] = n + spares(n);
      peak_running = std::max(peak_running, running[m][h]);
    }
    // Replicas the next hour adds start `startup_s` before it (the curve repeats, so the last
    // hour's next is the first).
    for (size_t h = 0; h < n_hours; ++h) {
      const int next = running[m][(h + 1) % n_hours];
      billed[m][h] = running[m][h] + std::max(0, next - running[m][h]) * startup_s / 3600.0;
    }
  }

  // Prices: owned at the plan's own device-hour (card + host + network + energy x PUE +
  // hosting); rented at the cloud $/device-hour.
  if (a.unit.cost.device.total)
    a.owned_usd_per_device_hour = a.unit.cost.device.total->value();
  else
    for (const auto& u : a.unit.cost.device.unknown) a.unknown.push_back("owned: " + u);
  cost::CostOverrides cloud = q.base.cost;
  cloud.basis = cost::PricingBasis::cloud;
  cloud.price_per_gpu_hour = q.rent_per_gpu_hour;
  cloud.capex_usd.reset();
  const cost::DeviceHourCost rent =
      cost::device_hour_cost(*shape.accelerator, prices, cloud, 1.0, shape.node);
  if (rent.total)
    a.rent_usd_per_device_hour = rent.total->value();
  else
    a.unknown.push_back(fmt::format(
        "rented: no cloud $/device-hour for {} (give --rent-per-gpu-hour)", shape.accelerator->id));

  const int dpr = a.devices_per_replica, dps = a.devices_per_server;
  auto servers_for = [&](int replicas) { return (replicas * dpr + dps - 1) / dps; };
  auto cost_of = [&](int owned_replicas, const std::string& label) {
    FleetCost c;
    c.label = label;
    c.owned_replicas = owned_replicas;
    c.owned_servers = servers_for(owned_replicas);
    for (size_t m = 0; m < billed.size(); ++m)
      for (size_t h = 0; h < n_hours; ++h)
        c.rented_device_hours +=
            reps_per_month * std::max(0.0, billed[m][h] - owned_replicas) * dpr;
    const bool owns = c.owned_servers > 0, rents = c.rented_device_hours > 0;
    if (!owns)
      c.owned_usd = 0;
    else if (a.owned_usd_per_device_hour)
      c.owned_usd = c.owned_servers * dps * *a.owned_usd_per_device_hour * a.horizon_hours;
    if (!rents)
      c.rented_usd = 0;
    else if (a.rent_usd_per_device_hour)
      c.rented_usd = c.rented_device_hours * *a.rent_usd_per_device_hour;
    if (c.owned_usd && c.rented_usd) c.total_usd = *c.owned_usd + *c.rented_usd;
    return c;
  };
  a.peak_owned = cost_of(peak_running, "owned, sized for the peak around the clock");
  a.all_rented = cost_of(0, "all rented, scaled every hour");
  a.chosen = a.peak_owned;
  for (int b = 0; b <= peak_running; ++b) {
    FleetCost c = cost_of(b, "owned base + rented peaks");
    if (c.total_usd && (!a.chosen.total_usd || *c.total_usd < *a.chosen.total_usd - 1e-6))
      a.chosen = std::move(c);
  }
  if (a.chosen.owned_replicas == peak_running)
    a.chosen.label = a.peak_owned.label;
  else if (a.chosen.owned_replicas == 0)
    a.chosen.label = a.all_rented.label;
  if (a.chosen.total_usd && a.peak_owned.total_usd)
    a.saving_usd = *a.peak_owned.total_usd - *a.chosen.total_usd;

  // The last month's hours, each re-checked in the simulator with the replicas it needs (hours
  // with the same lengths, replicas and rate, as a week's weekdays often are, are simulated once).
  const size_t last = billed.size() - 1;
  std::map<std::tuple<int64_t, int64_t, int, double>, Verification> checked;
  a.all_hours_meet_sla = q.check_requests > 0;
  for (size_t h = 0; h < n_hours; ++h) {
    const DemandHour& d = q.demand.hours[h];
    FleetHour fh;
    fh.hour = static_cast<int>(h);
    fh.rate_per_s = d.rate_per_s * last_scale;
    fh.needed = needed_at(d, fh.hour, last_scale);
    fh.spares = spares(fh.needed);
    fh.running = running[last][h];
    fh.billed = billed[last][h];
    fh.owned = std::min(fh.running, a.chosen.owned_replicas);
    fh.rented = fh.running - fh.owned;
    if (q.check_requests > 0 && fh.rate_per_s > 0) {
      const Capacity& c = capacity(d, fh.hour);
      Plan p = c.plan;
      p.replicas = fh.needed;
      InferenceWorkload w = c.workload;
      w.load.rate_per_s = fh.rate_per_s;
      const auto key = std::tuple{d.input_tokens.value_or(-1), d.output_tokens.value_or(-1),
                                  fh.needed, fh.rate_per_s};
      auto it = checked.find(key);
      if (it == checked.end())
        it = checked
                 .emplace(key, verify_plan(pa.model, p, w, c.lengths, factory, q.check_requests,
                                           q.base.cancel))
                 .first;
      const Verification& v = it->second;
      fh.simulated_requests = q.check_requests;
      fh.meets_sla = v.meets_sla;
      if (v.simulated.completed > 0) {
        fh.ttft_p99_s = v.simulated.ttft.p99;
        fh.tpot_p99_s = v.simulated.tpot.p99;
      }
      a.all_hours_meet_sla = a.all_hours_meet_sla && v.meets_sla;
    }
    a.hours.push_back(fh);
  }

  a.assumptions.push_back(fmt::format(
      "failures: {:.3g} interruptions per device-year{}", q.failures_per_device_year,
      q.failures_per_device_year == kInterruptionsPerDeviceYear
          ? " (Llama 3 paper, Sec. 3.3.4: 419 unexpected interruptions in 54 days on 16,384 H100s)"
          : " (given)"));
  a.assumptions.push_back(fmt::format(
      "repair: {:.3g} h per failed replica{}", repair_hours,
      q.repair_hours ? " (given)" : " (assumed: no published serving figure; --repair-hours)"));
  a.assumptions.push_back(fmt::format(
      "start-up: {:.0f} s from asking for a replica to it serving{}", startup_s,
      q.startup_s ? " (given)" : " (assumed: measure your engine's cold start; --startup-s)"));
  a.assumptions.push_back(
      "owned hardware is bought whole-server at the horizon's start and drawn at the plan's "
      "power all hours; rented device-hours are billed as used, start-up included");
  return a;
}

Json to_json(const FleetAnswer& a) {
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  auto cost_json = [&](const FleetCost& c) {
    return Json{{"label", c.label},
                {"owned_replicas", c.owned_replicas},
                {"owned_servers", c.owned_servers},
                {"rented_device_hours", c.rented_device_hours},
                {"owned_usd", opt(c.owned_usd)},
                {"rented_usd", opt(c.rented_usd)},
                {"total_usd", opt(c.total_usd)}};
  };
  Json hours = Json::array();
  for (const auto& h : a.hours) {
    hours.push_back({{"hour", h.hour},
                     {"rate_per_s", h.rate_per_s},
                     {"needed", h.needed},
                     {"spares", h.spares},
                     {"running", h.running},
                     {"billed_replicas", h.billed},
                     {"owned", h.owned},
                     {"rented", h.rented},
                     {"simulated_requests", h.simulated_requests},
                     {"ttft_p99_s", opt(h.ttft_p99_s)},
                     {"tpot_p99_s", opt(h.tpot_p99_s)},
                     {"meets_sla", h.meets_sla ? Json(*h.meets_sla) : Json(nullptr)}});
  }
  return Json{{"unit",
               {{"describe", a.unit.describe()},
                {"accelerator", a.unit.shape.accelerator->id},
                {"node", a.unit.shape.node ? Json(a.unit.shape.node->id) : Json(nullptr)},
                {"tp", a.unit.shape.tp},
                {"pp", a.unit.shape.pp},
                {"ep", a.unit.shape.ep},
                {"weight_precision", to_string(a.unit.shape.weights)},
                {"kv_precision", to_string(a.unit.shape.kv)},
                {"engine", a.unit.shape.engine},
                {"batch_cap", a.unit.batch_cap},
                {"devices_per_replica", a.devices_per_replica},
                {"devices_per_server", a.devices_per_server}}},
              {"horizon_hours", a.horizon_hours},
              {"monthly_scale", a.monthly_scale},
              {"replica_unavailability", a.replica_unavailability},
              {"owned_usd_per_device_hour", opt(a.owned_usd_per_device_hour)},
              {"rent_usd_per_device_hour", opt(a.rent_usd_per_device_hour)},
              {"chosen", cost_json(a.chosen)},
              {"all_rented", cost_json(a.all_rented)},
              {"peak_owned", cost_json(a.peak_owned)},
              {"saving_usd", opt(a.saving_usd)},
              {"all_hours_meet_sla", a.all_hours_meet_sla},
              {"unknown", a.unknown},
              {"assumptions", a.assumptions},
              {"hours", hours}};
}

std::string to_text(const FleetAnswer& a) {
  auto money = [](const std::optional<double>& v) {
    return v ? fmt::format("${:.0f}", *v) : std::string("unknown");
  };
  std::string out =
      fmt::format("fleet of {} (B* {} sequences per replica, {} device(s) each, {} per server)\n",
                  a.unit.describe(), a.unit.batch_cap, a.devices_per_replica, a.devices_per_server);
  out += fmt::format(
      "horizon {:.0f} h ({} month(s), demand x {:.3g} in the last); one replica "
      "out {:.3g} % of the time\n",
      a.horizon_hours, a.monthly_scale.size(), a.monthly_scale.back(),
      100 * a.replica_unavailability);
  for (const auto& s : a.assumptions) out += "  assumption: " + s + "\n";
  for (const auto& u : a.unknown) out += "  unknown: " + u + "\n";
  out += fmt::format(
      "prices: owned {} per device-hour, rented {} per device-hour\n",
      a.owned_usd_per_device_hour ? fmt::format("${:.3f}", *a.owned_usd_per_device_hour)
                                  : "unknown",
      a.rent_usd_per_device_hour ? fmt::format("${:.3f}", *a.rent_usd_per_device_hour) : "unknown");
  out +=
      "\n  STRATEGY                                        OWNED REPL  SERVERS  RENTED DEV-H"
      "        OWNED $       RENTED $        TOTAL $\n";
  std::vector<const FleetCost*> rows = {&a.all_rented, &a.peak_owned};
  if (a.chosen.owned_replicas != a.all_rented.owned_replicas &&
      a.chosen.owned_replicas != a.peak_owned.owned_replicas)
    rows.insert(rows.begin(), &a.chosen);
  for (const FleetCost* c : rows)
    out += fmt::format("  {:<46}{:>11}{:>9}{:>14.0f}{:>15}{:>15}{:>15}\n",
                       (c->owned_replicas == a.chosen.owned_replicas ? "* " : "  ") + c->label,
                       c->owned_replicas, c->owned_servers, c->rented_device_hours,
                       money(c->owned_usd), money(c->rented_usd), money(c->total_usd));
  if (a.saving_usd)
    out += fmt::format("saving against sizing for the peak around the clock: ${:.0f} ({:.1f} %)\n",
                       *a.saving_usd,
                       a.peak_owned.total_usd && *a.peak_owned.total_usd > 0
                           ? 100 * *a.saving_usd / *a.peak_owned.total_usd
                           : 0.0);
  out +=
      "\n  HOUR   REQ/S  NEEDED  SPARES  RUNNING  OWNED  RENTED  SIM TTFT p99  SIM TPOT p99  SLA\n";
  for (const auto& h : a.hours)
    out += fmt::format("  {:>4}{:>8.3g}{:>8}{:>8}{:>9}{:>7}{:>8}{:>14}{:>14}  {}\n", h.hour,
                       h.rate_per_s, h.needed, h.spares, h.running, h.owned, h.rented,
                       h.ttft_p99_s ? fmt::format("{:.3f} s", *h.ttft_p99_s) : "-",
                       h.tpot_p99_s ? fmt::format("{:.1f} ms", 1e3 * *h.tpot_p99_s) : "-",
                       !h.meets_sla   ? "-"
                       : *h.meets_sla ? "met"
                                      : "MISSED");
  out += a.all_hours_meet_sla ? "every hour meets the SLA in the simulator\n"
                              : "not every hour was checked or met the SLA (see the table)\n";
  return out;
}

}  // namespace memwall::plan
