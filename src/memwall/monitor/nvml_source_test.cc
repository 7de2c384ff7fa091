// The NVML source against a fake function table (no driver, no GPU): unit conversions, GPM
// sample ordering and the 100 ms rule, readings the driver refuses staying unknown, and the
// loader's answer when the library is missing.
#include "memwall/monitor/nvml_source.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "memwall/core/error.h"
#include "memwall/monitor/nvml_loader.h"

namespace memwall::monitor {
namespace {

// The fake driver: GPU 0 is a Hopper part with GPM; GPU 1 has no GPM and refuses the power query.
struct FakeGpm {
  int device;
  int taken_at_pass = -1;
};
struct FakeDriver {
  int devices = 2;
  int init_calls = 0, shutdown_calls = 0, allocated = 0, freed = 0;
  int pass = 0;  // incremented by the test before each sample()
  nvml::Return init_result = nvml::kSuccess;
  int dev_storage[2] = {0, 1};
  // Arguments of the last nvmlGpmMetricsGet.
  int last_sample1_pass = -1, last_sample2_pass = -1;
  unsigned int last_num_metrics = 0;
};
FakeDriver fake;

int device_index(nvml::Device d) {
  return *reinterpret_cast<int*>(d);
}

nvml::Return fake_init() {
  return ++fake.init_calls, fake.init_result;
}
nvml::Return fake_shutdown() {
  return ++fake.shutdown_calls, nvml::kSuccess;
}
const char* fake_error_string(nvml::Return r) {
  return r == 9 ? "Driver Not Loaded" : "error";
}
nvml::Return fake_count(unsigned int* n) {
  return *n = unsigned(fake.devices), nvml::kSuccess;
}
nvml::Return fake_handle(unsigned int i, nvml::Device* d) {
  *d = reinterpret_cast<nvml::Device>(&fake.dev_storage[i]);
  return nvml::kSuccess;
}
nvml::Return fake_name(nvml::Device d, char* buf, unsigned int size) {
  std::snprintf(buf, size, "%s", device_index(d) == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100");
  return nvml::kSuccess;
}
nvml::Return fake_uuid(nvml::Device d, char* buf, unsigned int size) {
  std::snprintf(buf, size, "GPU-fake-%d", device_index(d));
  return nvml::kSuccess;
}
nvml::Return fake_util(nvml::Device d, nvml::Utilization* u) {
  *u = {device_index(d) == 0 ? 100u : 37u, 55u};
  return nvml::kSuccess;
}
nvml::Return fake_memory(nvml::Device, nvml::Memory* m) {
  *m = {85899345920ull, 21474836480ull, 64424509440ull};
  return nvml::kSuccess;
}
nvml::Return fake_power(nvml::Device d, unsigned int* mw) {
  if (device_index(d) == 1) return nvml::kErrorNotSupported;
  return *mw = 612345, nvml::kSuccess;
}
nvml::Return fake_temperature(nvml::Device, int sensor, unsigned int* t) {
  return sensor == nvml::kTemperatureGpu ? (*t = 61, nvml::kSuccess) : nvml::kErrorNotSupported;
}
nvml::Return fake_clock(nvml::Device, int which, unsigned int* mhz) {
  *mhz = which == nvml::kClockSm ? 1755 : which == nvml::kClockMem ? 2619 : 0;
  return nvml::kSuccess;
}
nvml::Return fake_reasons(nvml::Device, unsigned long long* r) {
  return *r = 0x4 | 0x1, nvml::kSuccess;
}
nvml::Return fake_pcie(nvml::Device, int which, unsigned int* kbps) {
  *kbps = which == nvml::kPcieRxBytes ? 1000 : 2000;
  return nvml::kSuccess;
}
nvml::Return fake_gpm_support(nvml::Device d, nvml::GpmSupport* s) {
  if (s->version != nvml::kGpmSupportVersion) return 2;
  s->is_supported_device = device_index(d) == 0 ? 1 : 0;
  return nvml::kSuccess;
}
nvml::Return fake_gpm_alloc(nvml::GpmSample* s) {
  ++fake.allocated;
  *s = reinterpret_cast<nvml::GpmSample>(new FakeGpm{-1});
  return nvml::kSuccess;
}
nvml::Return fake_gpm_free(nvml::GpmSample s) {
  ++fake.freed;
  delete reinterpret_cast<FakeGpm*>(s);
  return nvml::kSuccess;
}
nvml::Return fake_gpm_get(nvml::Device d, nvml::GpmSample s) {
  auto* g = reinterpret_cast<FakeGpm*>(s);
  g->device = device_index(d);
  g->taken_at_pass = fake.pass;
  return nvml::kSuccess;
}
nvml::Return fake_gpm_metrics(nvml::GpmMetricsGet* m) {
  if (m->version != nvml::kGpmMetricsGetVersion) return 2;
  fake.last_sample1_pass = reinterpret_cast<FakeGpm*>(m->sample1)->taken_at_pass;
  fake.last_sample2_pass = reinterpret_cast<FakeGpm*>(m->sample2)->taken_at_pass;
  fake.last_num_metrics = m->num_metrics;
  for (unsigned int i = 0; i < m->num_metrics; ++i) {
    auto& x = m->metrics[i];
    x.nvml_return = nvml::kSuccess;
    switch (x.metric_id) {
      case nvml::kGpmSmUtil:
        x.value = 42.0;
        break;
      case nvml::kGpmSmOccupancy:
        x.value = std::numeric_limits<double>::quiet_NaN();
        break;
      case nvml::kGpmAnyTensorUtil:
        x.value = 12.5;
        break;
      case nvml::kGpmDramBwUtil:
        x.value = 75.0;
        break;
      case nvml::kGpmPcieTxPerSec:
        x.value = 3.0;
        break;
      case nvml::kGpmPcieRxPerSec:
        x.value = -2.0;  // invalid: the legacy PCIe reading must stay
        break;
      case nvml::kGpmNvlinkTotalRxPerSec:
        x.nvml_return = nvml::kErrorNotSupported;
        break;
      case nvml::kGpmNvlinkTotalTxPerSec:
        x.value = 1024.0;
        break;
      default:
        x.nvml_return = nvml::kErrorNotSupported;
    }
  }
  return nvml::kSuccess;
}

nvml::Functions fake_functions(bool with_gpm = true) {
  nvml::Functions f;
  f.init_v2 = fake_init;
  f.shutdown = fake_shutdown;
  f.error_string = fake_error_string;
  f.device_get_count_v2 = fake_count;
  f.device_get_handle_by_index_v2 = fake_handle;
  f.device_get_name = fake_name;
  f.device_get_uuid = fake_uuid;
  f.device_get_utilization_rates = fake_util;
  f.device_get_memory_info = fake_memory;
  f.device_get_power_usage = fake_power;
  f.device_get_temperature = fake_temperature;
  f.device_get_clock_info = fake_clock;
  f.device_get_current_clocks_event_reasons = fake_reasons;
  f.device_get_pcie_throughput = fake_pcie;
  if (with_gpm) {
    f.gpm_query_device_support = fake_gpm_support;
    f.gpm_sample_alloc = fake_gpm_alloc;
    f.gpm_sample_free = fake_gpm_free;
    f.gpm_sample_get = fake_gpm_get;
    f.gpm_metrics_get = fake_gpm_metrics;
  }
  return f;
}

double fake_now_s = 1000.0;
double fake_clock_s() {
  return fake_now_s;
}

class NvmlSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake = FakeDriver{};
    fake_now_s = 1000.0;
  }
};

TEST_F(NvmlSourceTest, ReadsConvertsAndLeavesRefusedReadingsUnknown) {
  {
    NvmlSource source(fake_functions(), fake_clock_s);
    ASSERT_EQ(source.device_count(), 2u);
    ASSERT_EQ(source.notes().size(), 1u);  // GPU 1 has no GPM
    EXPECT_NE(source.notes()[0].find("GPU 1: GPM not supported"), std::string::npos);

    fake.pass = 1;
    const auto first = source.sample();
    ASSERT_EQ(first.size(), 2u);
    const GpuSample& h = first[0];
    EXPECT_EQ(h.time_s, 1000.0);
    EXPECT_EQ(*h.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(*h.uuid, "GPU-fake-0");
    EXPECT_DOUBLE_EQ(*h.gpu_util_ratio, 1.0);
    EXPECT_DOUBLE_EQ(*h.memory_used_bytes, 64424509440.0);
    EXPECT_DOUBLE_EQ(*h.memory_total_bytes, 85899345920.0);
    EXPECT_DOUBLE_EQ(*h.power_w, 612.345);  // mW -> W
    EXPECT_DOUBLE_EQ(*h.temperature_c, 61);
    EXPECT_DOUBLE_EQ(*h.sm_clock_mhz, 1755);
    EXPECT_DOUBLE_EQ(*h.memory_clock_mhz, 2619);
    EXPECT_EQ(*h.throttle_reasons, 0x5u);
    EXPECT_DOUBLE_EQ(*h.pcie_rx_bytes_per_s, 1000 * 1024.0);  // legacy KB/s until GPM has a pair
    EXPECT_FALSE(h.sm_active_ratio.has_value());  // first pass only opens the GPM interval
    EXPECT_FALSE(first[1].power_w.has_value());   // NOT_SUPPORTED stays unknown
    EXPECT_DOUBLE_EQ(*first[1].gpu_util_ratio, 0.37);

    fake.pass = 2;
    fake_now_s += 0.05;  // sooner than GPM's 100 ms: no GPM readings, interval kept open
    EXPECT_FALSE(source.sample()[0].sm_active_ratio.has_value());
    EXPECT_EQ(fake.last_sample1_pass, -1);

    fake.pass = 3;
    fake_now_s += 0.95;
    const auto third = source.sample();
    EXPECT_EQ(fake.last_sample1_pass, 1);  // older sample first
    EXPECT_EQ(fake.last_sample2_pass, 3);
    EXPECT_EQ(fake.last_num_metrics, 8u);
    const GpuSample& g = third[0];
    EXPECT_DOUBLE_EQ(*g.sm_active_ratio, 0.42);
    EXPECT_FALSE(g.sm_occupancy_ratio.has_value());  // NaN is not a reading
    EXPECT_DOUBLE_EQ(*g.tensor_active_ratio, 0.125);
    EXPECT_DOUBLE_EQ(*g.dram_bw_util_ratio, 0.75);
    EXPECT_DOUBLE_EQ(*g.pcie_tx_bytes_per_s, 3.0 * 1048576);  // GPM MiB/s replaces legacy KB/s
    EXPECT_DOUBLE_EQ(*g.pcie_rx_bytes_per_s, 1000 * 1024.0);  // invalid GPM value: legacy kept
    EXPECT_FALSE(g.nvlink_rx_bytes_per_s.has_value());        // the metric's own status said no
    EXPECT_DOUBLE_EQ(*g.nvlink_tx_bytes_per_s, 1024.0 * 1048576);
    EXPECT_FALSE(third[1].sm_active_ratio.has_value());  // no GPM on GPU 1

    fake.pass = 4;
    fake_now_s += 1;
    source.sample();
    EXPECT_EQ(fake.last_sample1_pass, 3);
    EXPECT_EQ(fake.last_sample2_pass, 4);
  }
  EXPECT_EQ(fake.init_calls, 1);
  EXPECT_EQ(fake.shutdown_calls, 1);
  EXPECT_EQ(fake.allocated, 2);  // two buffers for the one GPM device
  EXPECT_EQ(fake.freed, 2);
}

TEST_F(NvmlSourceTest, DriverWithoutGpmSaysSo) {
  NvmlSource source(fake_functions(/*with_gpm=*/false), fake_clock_s);
  ASSERT_EQ(source.notes().size(), 1u);
  EXPECT_NE(source.notes()[0].find("no GPM API"), std::string::npos);
  source.sample();
  fake_now_s += 1;
  const auto s = source.sample();
  EXPECT_FALSE(s[0].dram_bw_util_ratio.has_value());
  EXPECT_DOUBLE_EQ(*s[0].gpu_util_ratio, 1.0);
}

TEST_F(NvmlSourceTest, InitFailureAndNoDevicesAreInfeasibleWithTheReason) {
  fake.init_result = 9;
  try {
    NvmlSource source(fake_functions(), fake_clock_s);
    ADD_FAILURE() << "init failure accepted";
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("Driver Not Loaded (NVML error 9)"), std::string::npos);
  }
  EXPECT_EQ(fake.shutdown_calls, 0);  // never initialised
  fake = FakeDriver{};
  fake.devices = 0;
  EXPECT_THROW(NvmlSource(fake_functions(), fake_clock_s), InfeasibleError);
  EXPECT_EQ(fake.shutdown_calls, 1);  // initialised, then shut down by the failed constructor
}

TEST(NvmlLoader, MissingLibraryIsReportedNotFatal) {
  std::string why;
  EXPECT_EQ(NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1", why), nullptr);
  EXPECT_NE(why.find("dlopen(/nonexistent/libnvidia-ml.so.1) failed"), std::string::npos) << why;
  try {
    NvmlSource::open("/nonexistent/libnvidia-ml.so.1");
    ADD_FAILURE() << "opened a missing library";
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("no NVML found"), std::string::npos);
  }
  // A library that exists but is not NVML lacks the required symbols.
  EXPECT_EQ(NvmlLibrary::open("libc.so.6", why), nullptr);
  EXPECT_NE(why.find("has no symbol nvmlInit_v2"), std::string::npos) << why;
}

}  // namespace
}  // namespace memwall::monitor
