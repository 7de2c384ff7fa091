#include "memwall/cost/host_cost.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"

namespace memwall::cost {
namespace {

Host host_of(const std::string& id, int sockets) {
  Host h = Catalog::builtin().host(id);
  h.sockets = sockets;
  return h;
}

TEST(HostCost, MemoryKindFromTheCatalogsMemoryType) {
  EXPECT_EQ(memory_kind(host_of("amd-epyc-9654", 1)), "ddr5-rdimm");
  EXPECT_EQ(memory_kind(host_of("amd-ryzen-9-7950x", 1)), "ddr5-udimm");
  EXPECT_EQ(memory_kind(host_of("intel-xeon-platinum-8168", 1)), "ddr4-rdimm");
  EXPECT_EQ(memory_kind(host_of("nvidia-grace", 1)), "lpddr5x");
}

// The sourced defaults: CPUs x list price + GB x $/GB; owned like an accelerator.
TEST(HostCost, EpycGenoaServerIsPricedFromItsCpuAndDram) {
  const PriceBook book = PriceBook::builtin();
  CostOverrides o;
  const HostCost h =
      host_cost(host_of("amd-epyc-9654", 2), Bytes(1536 * kGiB), Bytes(0), 1.0, book, o);
  ASSERT_TRUE(h.priced()) << (h.hour.unknown.empty() ? "" : h.hour.unknown.front());
  EXPECT_DOUBLE_EQ(h.cpu->value(), 2 * 11805.0);
  EXPECT_NEAR(h.dram->value(), 1536 * 3.838, 1e-6);
  EXPECT_FALSE(h.nvme.has_value());
  EXPECT_FALSE(h.platform.has_value());  // no sourced platform price: said, not zero
  EXPECT_NEAR(h.hour.capex->value(), 2 * 11805.0 + 1536 * 3.838, 1e-6);
  // Power: 2 x 360 W TDP at full load; capex over 3 years + energy x PUE + hosting per kW.
  EXPECT_DOUBLE_EQ(h.hour.board_power->value(), 720.0);
  const double per_hour = h.hour.capex->value() / (3 * kHoursPerYear) + 0.720 * 1.58 * 0.0806 +
                          0.720 * 184.06 * 12 / kHoursPerYear;
  EXPECT_NEAR(h.hour.total->value(), per_hour, 1e-9);
  EXPECT_NE(h.excluded.front().find("server's board, chassis"), std::string::npos);
  EXPECT_EQ(h.covers.front(), "2 x amd-epyc-9654 CPU");
  // A lighter load draws less (the idle floor of the accelerators' linear model).
  const HostCost idle =
      host_cost(host_of("amd-epyc-9654", 2), Bytes(1536 * kGiB), Bytes(0), 0.0, book, o);
  EXPECT_NEAR(idle.hour.board_power->value(), 720.0 * 0.30, 1e-9);
  // NVMe flash in use is priced per TB.
  const HostCost disk =
      host_cost(host_of("amd-epyc-9654", 1), Bytes(768 * kGiB), Bytes(2e12), 1.0, book, o);
  EXPECT_NEAR(disk.nvme->value(), 200.0, 1e-9);
}

// Unknown stays unknown: no CPU price means no host price and no total, never a zero.
TEST(HostCost, UnknownCpuPriceLeavesTheHostUnpriced) {
  const PriceBook book = PriceBook::builtin();
  const HostCost h =
      host_cost(host_of("huawei-kunpeng-920-6426", 4), Bytes(2048 * kGiB), Bytes(0), 1.0, book, {});
  EXPECT_FALSE(h.priced());
  EXPECT_FALSE(h.hour.capex.has_value());
  EXPECT_FALSE(h.cpu.has_value());
  ASSERT_FALSE(h.hour.unknown.empty());
  EXPECT_EQ(h.hour.unknown.front(), "CPU price of huawei-kunpeng-920-6426");
  DeploymentCost gpu;
  gpu.per_hour = Dollars(1.0);
  gpu.generated_tokens_per_s = 10;
  gpu.capex_total = Dollars(1000);
  gpu.tco = Dollars(2000);
  const WithHost total = add_host(gpu, h);
  EXPECT_FALSE(total.per_hour.has_value());
  EXPECT_FALSE(total.usd_per_million_tokens.has_value());
  EXPECT_FALSE(total.capex.has_value());
  EXPECT_FALSE(total.tco.has_value());
}

// A --catalog file's "prices" replaces the CPU price, adds a platform and a DRAM price.
TEST(HostCost, UserPriceFilesOverrideCpuDramAndAddThePlatform) {
  PriceBook book = PriceBook::builtin();
  book.load(Json::parse(R"({"prices": {
      "hosts": [{"host": "genoa", "cpu_usd": 5000}, {"host": "kunpeng-920", "cpu_usd": 3000}],
      "memory": [{"kind": "ddr5-rdimm", "usd_per_gb": 10}, {"kind": "ddr4-rdimm", "usd_per_gb": 2}],
      "host_platforms": [{"kind": "server", "usd": 4000}]}})"),
            "user.json");
  const HostCost h =
      host_cost(host_of("amd-epyc-9654", 1), Bytes(768 * kGiB), Bytes(0), 1.0, book, {});
  ASSERT_TRUE(h.priced());
  EXPECT_DOUBLE_EQ(h.hour.capex->value(), 5000 + 7680 + 4000);
  EXPECT_TRUE(h.platform.has_value());
  EXPECT_TRUE(std::any_of(h.hour.sources.begin(), h.hour.sources.end(), [](const std::string& src) {
    return src.find("user file user.json") != std::string::npos;
  }));
  const HostCost k =
      host_cost(host_of("huawei-kunpeng-920-6426", 1), Bytes(512 * kGiB), Bytes(0), 1.0, book, {});
  EXPECT_TRUE(k.hour.capex.has_value());
  EXPECT_FALSE(k.priced());  // still no TDP for the Kunpeng: its power, hence $/hour, unknown
  EXPECT_THROW(
      book.load(Json::parse(R"({"prices": {"hosts": [{"host": "genoa", "cpu_usd": -1}]}})"),
                "bad.json"),
      InputError);
}

TEST(HostCost, AddingTheHostSumsHourCapexAndTco) {
  const PriceBook book = PriceBook::builtin();
  CostOverrides o;
  const HostCost h =
      host_cost(host_of("amd-epyc-9654", 1), Bytes(768 * kGiB), Bytes(0), 1.0, book, o);
  DeploymentCost gpu;
  gpu.per_hour = Dollars(0.25);
  gpu.generated_tokens_per_s = 20;
  gpu.capex_total = Dollars(1599);
  gpu.tco = Dollars(3000);
  gpu.tco_years = 3;
  const WithHost t = add_host(gpu, h);
  ASSERT_TRUE(t.per_hour && t.usd_per_million_tokens && t.capex && t.tco);
  EXPECT_NEAR(t.per_hour->value(), 0.25 + h.hour.total->value(), 1e-12);
  EXPECT_NEAR(*t.usd_per_million_tokens, t.per_hour->value() / (20 * 3600.0) * 1e6, 1e-9);
  EXPECT_NEAR(t.capex->value(), 1599 + h.hour.capex->value(), 1e-9);
  EXPECT_NEAR(t.tco->value(),
              3000 + h.hour.capex->value() +
                  (h.hour.energy->value() + h.hour.hosting->value()) * 3 * kHoursPerYear,
              1e-6);
}

}  // namespace
}  // namespace memwall::cost
