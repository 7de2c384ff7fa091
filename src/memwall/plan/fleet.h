// Fleet planning (`memwall plan fleet`, docs/plan.md "Fleet"): a demand curve (requests/s per
// hour over a day or a week, optionally with the prompt and output lengths of each hour) and its
// growth per month in; out: the replica the planner picks for the peak, the replicas each hour
// needs at the SLA, N+k headroom for a target availability, the scale-up lag, the fleet to own
// and to rent (an owned base plus rented peaks, whichever split is cheapest) against sizing for
// the peak around the clock, and every hour re-checked in the serving simulator.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/prices.h"
#include "memwall/plan/query.h"

namespace memwall::plan {

// One hour of demand: the mean arrival rate, and the hour's own fixed prompt/output lengths
// where the curve gives them (else the query's --input/--output).
struct DemandHour {
  double rate_per_s = 0;
  std::optional<int64_t> input_tokens, output_tokens;
};

struct DemandCurve {
  std::vector<DemandHour> hours;  // hour 0, 1, ... in order; the curve repeats over the horizon
  std::string source;             // the file it came from
};

// CSV with a header: `hour,rate_per_s` and optionally `input_tokens,output_tokens` (both or
// neither). Hours run 0, 1, 2 ... with no gap; rates are finite and >= 0 (an hour of 0 keeps
// the minimum fleet), lengths whole numbers >= 1. Anything else is an InputError naming the
// line, the column and the value.
DemandCurve parse_demand_csv(const std::string& text, const std::string& where);
// The same curve from requests/s per hour (hours from 0): a list of numbers (the HTTP API's and
// Python's), or a comma list ("6,5.2,4.5", `--rates`). InputError naming `field[hour]` for a value
// that is not a rate in [0, 1e7], and for more than a year of hours.
DemandCurve demand_from_rates(const std::vector<double>& rates, const std::string& field);
DemandCurve demand_from_rates(const std::string& rates, const std::string& field);

// Failure rate of one device in service: the Llama 3 paper's 16,384-GPU H100 cluster had 419
// unexpected interruptions in a 54-day snapshot (Dubey et al. 2024, "The Llama 3 Herd of
// Models", Sec. 3.3.4 and Table 5): 419 / (16,384 x 54 x 24 h) = 1.97e-5 per device-hour,
// 0.173 per device-year. Every interruption takes the replica holding the device out.
inline constexpr double kInterruptionsPerDeviceYear = 419.0 / (16384.0 * 54.0) * 365.0;

// The defaults of FleetQuery's repair and start-up times: assumptions (no published figure for
// serving fleets was found), printed as such in every answer.
inline constexpr double kAssumedRepairHours = 24;
inline constexpr double kAssumedStartupS = 600;

struct FleetQuery {
  InferenceQuery base;  // model, lengths, SLA, accelerators, quality, fabric, owned prices ...
  DemandCurve demand;
  double growth_per_month = 0;  // fractional growth of the whole curve each month
  int months = 1;               // horizon: month m runs the curve x (1 + growth)^m
  double availability = 0.999;  // target share of time the planned replicas are all up
  double failures_per_device_year = kInterruptionsPerDeviceYear;
  // Hours a failed replica stays out (until its device is replaced or the replica is restarted
  // on healthy hardware). No published figure for serving fleets was found: an assumption, shown
  // as such in every answer, and the user's to set.
  std::optional<double> repair_hours;  // nullopt: kAssumedRepairHours, shown as assumed
  // Seconds from asking for a replica to it serving (model load, engine start-up, CUDA graph
  // capture). An assumption unless given (no published start-up figure fits every engine and
  // storage); replicas for the next hour start this long before it.
  std::optional<double> startup_s;          // nullopt: kAssumedStartupS, shown as assumed
  std::optional<double> rent_per_gpu_hour;  // replaces the price book's cloud $/device-hour
  int min_replicas = 1;                     // never fewer running, however quiet the hour
  int64_t check_requests = 1000;            // simulated requests per hour checked; 0: no check
};

struct FleetHour {
  int hour = 0;
  double rate_per_s = 0;  // at the last month of the horizon (the largest)
  int needed = 0;         // replicas at the SLA: ceil(rate x e2e(B*) / B*), at least min_replicas
  int spares = 0;         // k of N+k for the availability target
  int running = 0;        // needed + spares
  double billed = 0;      // running + the next hour's new replicas for the start-up lag
  int owned = 0, rented = 0;  // of `running`, in the cheapest split
  // The simulator's check of `needed` replicas at this hour's load (no failures).
  std::optional<double> ttft_p99_s, tpot_p99_s;
  std::optional<bool> meets_sla;
  int64_t simulated_requests = 0;
};

struct FleetCost {
  std::string label;
  int owned_replicas = 0, owned_servers = 0;
  double rented_device_hours = 0;
  std::optional<double> owned_usd, rented_usd, total_usd;  // over the horizon
};

struct FleetAnswer {
  std::unique_ptr<const InferenceAnswer> peak;  // the planner's answer at the peak hour
  Plan unit;                                    // the replica every hour is built from
  int devices_per_replica = 0, devices_per_server = 0;
  double horizon_hours = 0;
  std::vector<FleetHour> hours;  // at the last month
  std::vector<double> monthly_scale;
  double replica_unavailability = 0;  // share of time one replica is out
  std::optional<double> owned_usd_per_device_hour, rent_usd_per_device_hour;
  std::vector<std::string> unknown;  // prices that were missing, with what they would change
  FleetCost chosen, all_rented, peak_owned;
  std::optional<double> saving_usd;  // peak_owned - chosen
  std::vector<std::string> assumptions;
  bool all_hours_meet_sla = false;
};

// InputError naming the field for a bad value; InfeasibleError (exit 3) when no replica meets the
// SLA at the peak hour (the planner's reasons in numbers).
FleetAnswer plan_fleet(const Catalog& catalog, const cost::PriceBook& prices, const FleetQuery& q);

Json to_json(const FleetAnswer& a);
std::string to_text(const FleetAnswer& a);

}  // namespace memwall::plan
