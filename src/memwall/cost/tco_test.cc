#include "memwall/cost/tco.h"

#include <gtest/gtest.h>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"

namespace memwall::cost {
namespace {

Accelerator device(const std::string& id, double tdp_w) {
  Accelerator a;
  a.id = id;
  a.aliases = {"short-" + id};
  a.tdp = Watts(tdp_w);
  return a;
}

PriceBook book_with(double capex, double cloud) {
  PriceBook b;
  b.load(Json::parse(R"({"prices": {"facility": {
      "electricity_usd_per_kwh": {"value": 0.10, "source": "t", "date": "d"},
      "pue": {"value": 1.5, "source": "t", "date": "d"},
      "hosting_usd_per_kw_month": {"value": 150, "source": "t", "date": "d"},
      "life_years": {"value": 3, "source": "t", "date": "d"},
      "idle_power_fraction": {"value": 0.3, "source": "t", "date": "d"}}}})"),
         "test");
  Json acc = {{"prices",
               {{"accelerators",
                 Json::array({{{"accelerator", "gpu-x"},
                               {"capex_usd", {{"value", capex}, {"source", "s"}, {"date", "d"}}},
                               {"cloud_usd_per_gpu_hour", cloud}}})}}}};
  b.load(acc, "test");
  return b;
}

TEST(Cost, BoardPowerIsLinearBetweenIdleFloorAndTdp) {
  EXPECT_DOUBLE_EQ(board_power(Watts(700), 0.5, 0.3).value(), 455.0);
  EXPECT_DOUBLE_EQ(board_power(Watts(700), 0.0, 0.3).value(), 210.0);
  EXPECT_DOUBLE_EQ(board_power(Watts(700), 1.0, 0.3).value(), 700.0);
}

TEST(Cost, OwnedHourIsCapexShareEnergyAndHosting) {
  const PriceBook b = book_with(27500, 3.0);
  CostOverrides o;
  o.basis = PricingBasis::owned;
  const auto c = device_hour_cost(device("gpu-x", 700), b, o, 1.0);
  ASSERT_TRUE(c.total.has_value());
  EXPECT_NEAR(c.capex_share->value(), 27500.0 / (3 * 8760), 1e-9);   // 1.0464 $/h
  EXPECT_NEAR(c.energy->value(), 0.7 * 1.5 * 0.10, 1e-12);            // 0.105 $/h
  EXPECT_NEAR(c.hosting->value(), 0.7 * 150 * 12 / 8760.0, 1e-12);    // 0.1438 $/h
  EXPECT_NEAR(c.total->value(), 1.046423 + 0.105 + 0.143836, 1e-5);
  EXPECT_TRUE(c.unknown.empty());
}

TEST(Cost, DollarsPerMillionTokensAndTco) {
  const PriceBook b = book_with(27500, 3.0);
  CostOverrides o;
  o.basis = PricingBasis::cloud;
  const auto d = deployment_cost(device("gpu-x", 700), 8, 1000.0, 1.0, b, o);
  ASSERT_TRUE(d.usd_per_million_tokens.has_value());
  EXPECT_DOUBLE_EQ(d.per_hour->value(), 24.0);
  // 24 $/h over 3.6 M tokens/h -> 6.667 $/M tokens.
  EXPECT_NEAR(*d.usd_per_million_tokens, 24.0 / 3.6, 1e-12);
  EXPECT_NEAR(d.tco->value(), 24.0 * 3 * 8760, 1e-6);
  // 1000 tokens/s over 8 x 700 W of board power.
  EXPECT_NEAR(*d.tokens_per_joule, 1000.0 / 5600.0, 1e-12);

  o.basis = PricingBasis::owned;
  const auto owned = deployment_cost(device("gpu-x", 700), 8, 1000.0, 1.0, b, o);
  EXPECT_DOUBLE_EQ(owned.capex_total->value(), 8 * 27500.0);
  EXPECT_NEAR(owned.tco->value(), 8 * 27500.0 + 8 * (0.105 + 0.7 * 150 * 12 / 8760.0) * 3 * 8760, 1e-6);
}

// One basis for every row (docs/cost.md "One boundary per ranking"): owned unless asked; a rental
// price is a cloud figure and is refused on the owned basis rather than switching the row.
TEST(Cost, OneBasisOwnedByDefaultAndARentalPriceNeedsCloud) {
  const PriceBook b = book_with(27500, 3.0);
  CostOverrides o;
  EXPECT_EQ(device_hour_cost(device("gpu-x", 700), b, o, 1).basis, PricingBasis::owned);
  EXPECT_THROW(parse_pricing_basis("auto"), InputError);
  o.price_per_gpu_hour = 2.0;
  EXPECT_THROW(o.validate(), InputError);
  o.basis = PricingBasis::cloud;
  o.validate();
  const auto c = device_hour_cost(device("gpu-x", 700), b, o, 1);
  EXPECT_EQ(c.basis, PricingBasis::cloud);
  EXPECT_DOUBLE_EQ(c.total->value(), 2.0);
}

// Without a node a card has no host: owned $ and power become unknown, a rental keeps its $.
TEST(Cost, WithoutHostOwnedIsUnknownAndCloudKeepsItsRental) {
  const PriceBook b = book_with(27500, 3.0);
  CostOverrides o;
  auto owned = deployment_cost(device("gpu-x", 700), 1, 1000.0, 1.0, b, o);
  ASSERT_TRUE(owned.usd_per_million_tokens.has_value());
  without_host(owned, "gpu-x");
  EXPECT_FALSE(owned.usd_per_million_tokens.has_value());
  EXPECT_FALSE(owned.tokens_per_joule.has_value());
  EXPECT_NE(owned.device.unknown.back().find("no node"), std::string::npos);
  o.basis = PricingBasis::cloud;
  auto cloud = deployment_cost(device("gpu-x", 700), 1, 1000.0, 1.0, b, o);
  without_host(cloud, "gpu-x");
  EXPECT_NEAR(*cloud.usd_per_million_tokens, 3.0 / 3.6, 1e-9);
  EXPECT_FALSE(cloud.facility_power.has_value());
}

TEST(Cost, UnknownPricesStayUnknownAndAreNamed) {
  const PriceBook b = book_with(27500, 3.0);
  const auto c = device_hour_cost(device("gpu-unpriced", 300), b, CostOverrides{}, 1.0);
  EXPECT_FALSE(c.total.has_value());
  ASSERT_FALSE(c.unknown.empty());
  EXPECT_NE(c.unknown.front().find("gpu-unpriced"), std::string::npos);
}

TEST(Cost, AliasEntriesMergeWithIdEntries) {
  PriceBook b = book_with(27500, 3.0);
  b.load(Json::parse(R"({"prices": {"accelerators": [
      {"accelerator": "SHORT-gpu-x", "cloud_usd_per_gpu_hour": 1.25}]}})"),
         "user.json");
  const auto p = b.find(device("gpu-x", 700));
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(*p->capex_usd.value, 27500.0);
  EXPECT_DOUBLE_EQ(*p->cloud_usd_per_gpu_hour.value, 1.25);
  EXPECT_EQ(p->cloud_usd_per_gpu_hour.source, "user file user.json");
}

TEST(Cost, BadInputIsRejected) {
  PriceBook b;
  EXPECT_THROW(b.load(Json::parse(R"({"prices": {"facility": {"pue": 0.5}}})"), "x"), InputError);
  EXPECT_THROW(b.load(Json::parse(R"({"prices": {"facility": {"pues": 1.2}}})"), "x"), InputError);
  EXPECT_THROW(b.load(Json::parse(R"({"prices": {"accelerators": [
      {"accelerator": "a", "capex_usd": -5}]}})"), "x"), InputError);
  CostOverrides o;
  o.electricity_usd_per_kwh = std::nan("");
  EXPECT_THROW(o.validate(), InputError);
  o = CostOverrides{};
  o.life_years = 0;
  EXPECT_THROW(o.validate(), InputError);
  EXPECT_THROW(parse_pricing_basis("lease"), InputError);
}

// Every default figure in data/prices and data/ecosystem names a source and a date.
void expect_sourced(const Json& j, const std::string& where, int& checked) {
  if (j.is_object()) {
    if (j.contains("value") || j.contains("support")) {
      ++checked;
      ASSERT_TRUE(j.contains("source") && j.at("source").is_string()) << where;
      ASSERT_TRUE(j.contains("date") && j.at("date").is_string()) << where;
      EXPECT_GE(j.at("source").get<std::string>().size(), 10u) << where;
      EXPECT_GE(j.at("date").get<std::string>().size(), 4u) << where;
      return;
    }
    for (const auto& [k, v] : j.items()) expect_sourced(v, where + "." + k, checked);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) expect_sourced(j[i], where + "[" + std::to_string(i) + "]", checked);
  } else if (j.is_number()) {
    ADD_FAILURE() << where << ": a bare number without source and date";
  }
}

// A device in a node carries its share of the server (docs/cost.md "Servers bought whole").
TEST(Cost, ServersAreBoughtWholeWithPlatformNetworkAndHostPower) {
  PriceBook b = book_with(10000, 2.0);
  b.load(Json::parse(R"({"prices": {"platform": {"host_platform_usd": 32000, "host_power_w": 1600,
      "switch_port_usd": 500, "optics_per_port_usd": 700}}})"), "test");
  const Accelerator a = device("gpu-x", 700);
  Node n;
  n.id = "box-8";
  n.devices = 8;
  n.nics = 8;
  CostOverrides owned;
  owned.basis = PricingBasis::owned;
  const DeviceHourCost d = device_hour_cost(a, b, owned, 1.0, &n);
  // 10,000 + 32,000 / 8 + 8 x (500 + 700) / 8
  EXPECT_DOUBLE_EQ(d.capex->value(), 10000 + 4000 + 1200);
  EXPECT_DOUBLE_EQ(d.board_power->value(), 700 + 200);  // TDP + host power / 8
  EXPECT_NE(d.power_source.find("host power"), std::string::npos);
  // Three devices in use still buy one whole server; the five spare ones idle.
  const DeploymentCost c = deployment_cost(a, 3, 100.0, 1.0, b, owned, &n);
  EXPECT_EQ(c.servers, 1);
  EXPECT_EQ(c.billed_devices, 8);
  EXPECT_DOUBLE_EQ(c.capex_total->value(), 8 * d.capex->value());
  const DeploymentCost lone = deployment_cost(a, 3, 100.0, 1.0, b, owned);
  EXPECT_LT(lone.tco->value(), c.tco->value());
  // A node's own wall power and whole-server price win over the sum of parts.
  b.load(Json::parse(R"({"prices": {"nodes": [{"node": "box-8", "capex_usd": 200000, "power_w": 8000}]}})"), "test");
  const DeviceHourCost w = device_hour_cost(a, b, owned, 1.0, &n);
  EXPECT_DOUBLE_EQ(w.capex->value(), 25000);
  EXPECT_DOUBLE_EQ(w.board_power->value(), 1000);
  // Without any price the missing figure is named.
  PriceBook empty;
  const DeviceHourCost u = device_hour_cost(a, empty, owned, 1.0, &n);
  ASSERT_FALSE(u.unknown.empty());
  EXPECT_NE(u.unknown.front().find("capex of gpu-x"), std::string::npos);
}

// The catalog's price_usd (e.g. from a user catalog) is used when no user price file says
// otherwise; a user price file wins over it.
TEST(Cost, CatalogPriceIsHonoured) {
  PriceBook b;
  b.load(Json::parse(R"({"prices": {"accelerators": [{"accelerator": "gpu-x", "capex_usd": 9000}]}})"), "data/prices/x.json");
  Accelerator a = device("gpu-x", 700);
  a.price = Dollars(5000);
  CostOverrides owned;
  owned.basis = PricingBasis::owned;
  EXPECT_DOUBLE_EQ(device_hour_cost(a, b, owned, 1.0).capex->value(), 5000);
  b.load(Json::parse(R"({"prices": {"accelerators": [{"accelerator": "gpu-x", "capex_usd": 7000}]}})"), "mine.json");
  EXPECT_DOUBLE_EQ(device_hour_cost(a, b, owned, 1.0).capex->value(), 7000);
}

TEST(Cost, EveryDefaultFigureHasSourceAndDate) {
  int checked = 0;
  for (const auto& f : data::embedded_files()) {
    const std::string path(f.path);
    if (path.rfind("prices/", 0) != 0 && path.rfind("ecosystem/", 0) != 0) continue;
    expect_sourced(parse_document(f.content, path), path, checked);
  }
  EXPECT_GT(checked, 40);
  const PriceBook b = PriceBook::builtin();
  const FacilityPrices& f = b.facility();
  for (const SourcedValue* v : {&f.electricity_usd_per_kwh, &f.pue, &f.hosting_usd_per_kw_month,
                                &f.life_years, &f.idle_power_fraction}) {
    EXPECT_TRUE(v->known());
  }
  EXPECT_DOUBLE_EQ(*f.pue.value, 1.58);
  Accelerator h100 = device("nvidia-h100-sxm", 700);
  EXPECT_DOUBLE_EQ(*b.find(h100)->capex_usd.value, 27500.0);
}

}  // namespace
}  // namespace memwall::cost
