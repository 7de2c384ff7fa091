#include "memwall/plan/fleet.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"

namespace memwall::plan {
namespace {

std::string refusal(const std::string& csv) {
  try {
    (void)parse_demand_csv(csv, "d.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(DemandCsv, ReadsHoursAndLengthsAndRefusesWhatItCannotMap) {
  const DemandCurve d = parse_demand_csv(
      "hour,rate_per_s,input_tokens,output_tokens\n0,2.5,1024,256\n1, 0 ,512,128\n\n", "d.csv");
  ASSERT_EQ(d.hours.size(), 2u);
  EXPECT_EQ(d.hours[0].rate_per_s, 2.5);
  EXPECT_EQ(*d.hours[0].input_tokens, 1024);
  EXPECT_EQ(*d.hours[1].output_tokens, 128);
  EXPECT_EQ(d.hours[1].rate_per_s, 0);
  EXPECT_NE(refusal("hour,rps\n0,1\n").find("d.csv:1: header: value 'hour,rps'"), std::string::npos);
  EXPECT_NE(refusal("hour,rate_per_s\n0,1\n2,1\n").find("d.csv:3: hour: value '2' is not allowed; allowed: 1"),
            std::string::npos);
  EXPECT_NE(refusal("hour,rate_per_s\n0,-1\n").find("d.csv:2: rate_per_s: value '-1'"), std::string::npos);
  EXPECT_NE(refusal("hour,rate_per_s\n0,nan\n").find("d.csv:2: rate_per_s: value 'nan'"), std::string::npos);
  EXPECT_NE(refusal("hour,rate_per_s\n0,1,2\n").find("2 comma-separated values"), std::string::npos);
  EXPECT_NE(refusal("hour,rate_per_s,input_tokens,output_tokens\n0,1,0.5,3\n").find("input_tokens: value '0.5'"),
            std::string::npos);
  EXPECT_NE(refusal("").find("(empty)"), std::string::npos);
  EXPECT_NE(refusal("hour,rate_per_s\n").find("(no rows)"), std::string::npos);
}

// The inline curve (--rates, the API's and Python's lists) is the CSV's, refused by hour.
TEST(DemandCsv, RatesAreTheSameCurveRefusedByHour) {
  const DemandCurve csv = parse_demand_csv("hour,rate_per_s\n0,6\n1,5.5\n", "d.csv");
  const DemandCurve text = demand_from_rates("6, 5.5", "--rates");
  const DemandCurve list = demand_from_rates(std::vector<double>{6, 5.5}, "demand");
  ASSERT_EQ(text.hours.size(), 2u);
  ASSERT_EQ(list.hours.size(), 2u);
  for (size_t h = 0; h < 2; ++h) {
    EXPECT_EQ(text.hours[h].rate_per_s, csv.hours[h].rate_per_s);
    EXPECT_EQ(list.hours[h].rate_per_s, csv.hours[h].rate_per_s);
  }
  auto refused = [](auto f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refused([] { demand_from_rates("5,x", "--rates"); }).find("--rates[1]: value 'x'"),
            std::string::npos);
  EXPECT_NE(refused([] { demand_from_rates(std::vector<double>{1, -1}, "demand"); })
                .find("demand[1]: value '-1'"),
            std::string::npos);
  EXPECT_NE(refused([] { demand_from_rates(std::vector<double>(9000, 1.0), "demand"); })
                .find("at most 8784 hours"),
            std::string::npos);
  EXPECT_NE(refused([] { demand_from_rates(std::vector<double>{}, "demand"); }).find("(none)"),
            std::string::npos);
}

FleetQuery week_query() {
  FleetQuery q;
  q.base.model = "llama-3.1-70b";
  q.base.input = "1024";
  q.base.output = "256";
  std::ifstream f(memwall::test::source_dir() + "/docs/examples/fleet/diurnal-week.csv");
  std::stringstream s;
  s << f.rdbuf();
  q.demand = parse_demand_csv(s.str(), "diurnal-week.csv");
  return q;
}

// The bar: a week with a 3x peak/trough ratio gives a fleet that meets the SLA in the
// simulator at every hour, with its headroom and lag stated, for less than the peak around the
// clock.
TEST(Fleet, DiurnalWeekMeetsTheSlaEveryHourForLessThanThePeak) {
  const FleetQuery q = week_query();
  const FleetAnswer a = plan_fleet(Catalog::builtin(), cost::PriceBook::builtin(), q);
  ASSERT_EQ(a.hours.size(), 168u);
  EXPECT_TRUE(a.all_hours_meet_sla);
  int lo = a.hours[0].needed, hi = a.hours[0].needed;
  for (const auto& h : a.hours) {
    ASSERT_TRUE(h.meets_sla.has_value()) << h.hour;
    EXPECT_TRUE(*h.meets_sla) << h.hour;
    EXPECT_LE(*h.tpot_p99_s, 0.05) << h.hour;
    EXPECT_LE(*h.ttft_p99_s, 1.0) << h.hour;
    EXPECT_EQ(h.running, h.needed + h.spares);
    EXPECT_EQ(h.owned + h.rented, h.running);
    lo = std::min(lo, h.needed);
    hi = std::max(hi, h.needed);
  }
  EXPECT_GT(hi, lo);  // the fleet follows the curve
  ASSERT_TRUE(a.chosen.total_usd && a.peak_owned.total_usd && a.saving_usd);
  EXPECT_LT(*a.chosen.total_usd, *a.peak_owned.total_usd);
  EXPECT_NEAR(*a.saving_usd, *a.peak_owned.total_usd - *a.chosen.total_usd, 1e-6);
  EXPECT_NEAR(a.horizon_hours, 730, 1e-9);

  // Headroom: one replica of D devices is out x / (1 + x) of the time, x = failures per
  // device-hour x D x repair hours; k is the fewest spares with P(more than k out) <= 0.1 %.
  const double x = kInterruptionsPerDeviceYear / 8760 * a.devices_per_replica * 24;
  EXPECT_NEAR(a.replica_unavailability, x / (1 + x), 1e-12);
  for (const auto& h : a.hours) {
    const int n = h.running;
    const double u = a.replica_unavailability;
    // P(X > k) for X ~ Binomial(n, u), and the same with one spare fewer.
    auto tail = [&](int total, int k) {
      double below = 0;
      for (int j = 0; j <= k; ++j)
        below += std::exp(std::lgamma(total + 1.0) - std::lgamma(j + 1.0) -
                          std::lgamma(total - j + 1.0) + j * std::log(u) +
                          (total - j) * std::log1p(-u));
      return 1 - below;
    };
    EXPECT_LE(tail(n, h.spares), 0.001 + 1e-12) << h.hour;
    if (h.spares > 0) {
      EXPECT_GT(tail(n - 1, h.spares - 1), 0.001) << h.hour;
    }
  }
  // Lag: an hour before a step up pays the new replicas' start-up (600 s) too.
  for (size_t i = 0; i + 1 < a.hours.size(); ++i) {
    const int up = std::max(0, a.hours[i + 1].running - a.hours[i].running);
    EXPECT_NEAR(a.hours[i].billed, a.hours[i].running + up * 600.0 / 3600.0, 1e-9) << i;
  }
  // Owned base + rented peaks is priced on both bases the answer states.
  ASSERT_TRUE(a.owned_usd_per_device_hour && a.rent_usd_per_device_hour);
  EXPECT_NEAR(*a.chosen.owned_usd,
              a.chosen.owned_servers * a.devices_per_server * *a.owned_usd_per_device_hour * 730,
              1e-6);
  EXPECT_NEAR(*a.chosen.rented_usd, a.chosen.rented_device_hours * *a.rent_usd_per_device_hour,
              1e-6);
}

TEST(Fleet, GrowthScalesTheLastMonthAndRefusesBadValues) {
  FleetQuery q = week_query();
  q.months = 3;
  q.growth_per_month = 0.5;
  q.check_requests = 0;
  const FleetAnswer a = plan_fleet(Catalog::builtin(), cost::PriceBook::builtin(), q);
  ASSERT_EQ(a.monthly_scale.size(), 3u);
  EXPECT_NEAR(a.monthly_scale[2], 2.25, 1e-12);
  EXPECT_NEAR(a.hours[16].rate_per_s, 2.25 * q.demand.hours[16].rate_per_s, 1e-9);
  EXPECT_FALSE(a.all_hours_meet_sla);  // nothing was checked
  EXPECT_FALSE(a.hours[16].meets_sla.has_value());
  EXPECT_NEAR(a.horizon_hours, 3 * 730, 1e-9);

  FleetQuery bad = week_query();
  bad.availability = 1.0;
  EXPECT_THROW(plan_fleet(Catalog::builtin(), cost::PriceBook::builtin(), bad), InputError);
  bad = week_query();
  bad.base.cost.basis = cost::PricingBasis::cloud;
  EXPECT_THROW(plan_fleet(Catalog::builtin(), cost::PriceBook::builtin(), bad), InputError);
  bad = week_query();
  bad.base.sla = "ttft_p99=1ms,tpot_p99=1ms";
  EXPECT_THROW(plan_fleet(Catalog::builtin(), cost::PriceBook::builtin(), bad), InfeasibleError);
}

}  // namespace
}  // namespace memwall::plan
