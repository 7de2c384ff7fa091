// The AMD (amd-smi), Ascend (DCMI) and Gaudi (hlml) sources against the fake vendor libraries of
// tools/memwall/testdata, opened with dlopen as the real ones are: the exact readings the fakes
// report, each unit conversion, "not available" values staying unknown, and the named errors of a
// missing library, a missing symbol, a call that fails and no devices.
#include "memwall/monitor/local_source.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "memwall/core/error.h"
#include "memwall/monitor/amdsmi_source.h"
#include "memwall/monitor/dcmi_source.h"
#include "memwall/monitor/fake_libraries.h"
#include "memwall/monitor/hlml_source.h"

namespace memwall::monitor {
namespace {

// Sets MEMWALL_FAKE_* for the fakes for the life of the object.
struct FakeEnv {
  FakeEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~FakeEnv() { unsetenv(name_); }
  const char* name_;
};

std::string infeasible_message(SourceKind kind, const std::string& library) {
  try {
    open_source(kind, library);
  } catch (const InfeasibleError& e) {
    return e.what();
  }
  return "(opened)";
}

TEST(LocalSources, NamesParseAndUnknownNamesAreRefused) {
  EXPECT_EQ(parse_source_kind("amd", "--source"), SourceKind::amd);
  EXPECT_EQ(parse_source_kind("gaudi", "--source"), SourceKind::gaudi);
  try {
    parse_source_kind("rocm", "--source");
    ADD_FAILURE() << "accepted rocm";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("one of nvml, amd, ascend, gaudi"), std::string::npos)
        << e.what();
  }
}

TEST(LocalSources, AmdReadsTheFakeExactly) {
  auto source = open_source(SourceKind::amd, test::fake_source_library("amd"));
  ASSERT_EQ(source->device_count(), 2u);
  const auto s = source->sample();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(*s[0].name, "AMD Instinct MI300X (fake)");
  EXPECT_EQ(*s[0].uuid, "fake-amd-0");
  EXPECT_EQ(*s[1].uuid, "fake-amd-1");
  EXPECT_DOUBLE_EQ(*s[0].gpu_util_ratio, 0.87);                // gfx_activity 87 %
  // umc_activity 41 %: the memory interface's busy share, read as DCGM's DRAM_ACTIVE is
  EXPECT_DOUBLE_EQ(*s[0].dram_bw_util_ratio, 0.41);
  EXPECT_FALSE(s[0].sm_active_ratio.has_value());
  EXPECT_FALSE(s[1].dram_bw_util_ratio.has_value());  // 0xFFFF: not available
  EXPECT_DOUBLE_EQ(*s[0].memory_used_bytes, 64.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(*s[0].memory_total_bytes, 192.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(*s[0].power_w, 650);  // current socket power
  EXPECT_DOUBLE_EQ(*s[1].power_w, 420);  // current 0xFFFF: the average
  EXPECT_DOUBLE_EQ(*s[0].sm_clock_mhz, 2100);
  EXPECT_FALSE(s[1].sm_clock_mhz.has_value());  // 0xFFFF
  EXPECT_DOUBLE_EQ(*s[1].memory_clock_mhz, 1300);
  EXPECT_DOUBLE_EQ(*s[0].temperature_c, 71);  // hotspot
  EXPECT_DOUBLE_EQ(*s[1].temperature_c, 48);  // hotspot refused: edge
  EXPECT_FALSE(s[0].throttle_reasons.has_value());
}

// A 26.x library lays amdsmi_power_info_t out with a leading 64-bit socket_power: the same watts
// come back. A version of unknown layout leaves power, clocks and the name unknown, and says so.
TEST(LocalSources, AmdReadsByTheLibrarysLayout) {
  {
    FakeEnv v26("MEMWALL_FAKE_AMDSMI_VERSION", "26");
    const auto s = open_source(SourceKind::amd, test::fake_source_library("amd"))->sample();
    EXPECT_DOUBLE_EQ(*s[0].power_w, 650);
    EXPECT_DOUBLE_EQ(*s[1].power_w, 420);
    EXPECT_EQ(*s[0].name, "AMD Instinct MI300X (fake)");
  }
  FakeEnv v30("MEMWALL_FAKE_AMDSMI_VERSION", "30");
  auto source = open_source(SourceKind::amd, test::fake_source_library("amd"));
  const auto s = source->sample();
  EXPECT_FALSE(s[0].power_w.has_value());
  EXPECT_FALSE(s[0].sm_clock_mhz.has_value());
  EXPECT_FALSE(s[0].name.has_value());
  EXPECT_DOUBLE_EQ(*s[0].gpu_util_ratio, 0.87);  // engine usage is the same in every layout
  EXPECT_DOUBLE_EQ(*s[0].memory_used_bytes, 64.0 * (1ull << 30));
  ASSERT_FALSE(source->notes().empty());
  EXPECT_NE(source->notes()[0].find("amd-smi library version 30.0 has struct layouts"),
            std::string::npos)
      << source->notes()[0];
}

TEST(LocalSources, AscendReadsTheFakeExactly) {
  auto source = open_source(SourceKind::ascend, test::fake_source_library("ascend"));
  ASSERT_EQ(source->device_count(), 2u);
  const auto s = source->sample();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(*s[0].name, "Ascend 910B3");
  EXPECT_FALSE(s[0].uuid.has_value());
  EXPECT_EQ(s[1].index, 1);
  EXPECT_DOUBLE_EQ(*s[0].sm_active_ratio, 0.62);      // AI Core
  EXPECT_DOUBLE_EQ(*s[0].tensor_active_ratio, 0.55);  // AI Cube
  EXPECT_DOUBLE_EQ(*s[0].dram_bw_util_ratio, 0.71);   // HBM bandwidth (type 10)
  EXPECT_DOUBLE_EQ(*s[0].gpu_util_ratio, 0.80);       // NPU
  EXPECT_DOUBLE_EQ(*s[0].memory_total_bytes, 65536.0 * 1048576);
  EXPECT_DOUBLE_EQ(*s[0].memory_used_bytes, 40960.0 * 1048576);
  EXPECT_DOUBLE_EQ(*s[0].memory_clock_mhz, 1600);
  EXPECT_DOUBLE_EQ(*s[0].power_w, 310.5);  // 0.1 W units
  EXPECT_DOUBLE_EQ(*s[0].temperature_c, 52);
  EXPECT_DOUBLE_EQ(*s[0].sm_clock_mhz, 1800);  // AI Core current frequency
  // Card 5 refuses type 10, AI Cube and power: HBM bandwidth from dcmi_hbm_info, the rest unknown.
  EXPECT_DOUBLE_EQ(*s[1].dram_bw_util_ratio, 0.33);
  EXPECT_FALSE(s[1].tensor_active_ratio.has_value());
  EXPECT_FALSE(s[1].power_w.has_value());
  EXPECT_DOUBLE_EQ(*s[1].sm_active_ratio, 0.30);
  EXPECT_FALSE(s[0].sm_occupancy_ratio.has_value());
}

TEST(LocalSources, GaudiReadsTheFakeExactly) {
  auto source = open_source(SourceKind::gaudi, test::fake_source_library("gaudi"));
  ASSERT_EQ(source->device_count(), 2u);
  const auto s = source->sample();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(*s[0].name, "Fake Gaudi 3");
  EXPECT_EQ(*s[1].uuid, "fake-gaudi-1");
  EXPECT_DOUBLE_EQ(*s[0].gpu_util_ratio, 0.93);
  EXPECT_DOUBLE_EQ(*s[0].memory_total_bytes, 128.0 * (1ull << 30));  // total, not free
  EXPECT_DOUBLE_EQ(*s[0].memory_used_bytes, 96.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(*s[0].power_w, 812.345);  // mW
  EXPECT_FALSE(s[1].power_w.has_value());    // NOT_SUPPORTED
  EXPECT_DOUBLE_EQ(*s[0].temperature_c, 64);
  EXPECT_DOUBLE_EQ(*s[0].sm_clock_mhz, 1600);  // TPC clock
  EXPECT_FALSE(s[1].sm_clock_mhz.has_value());
  EXPECT_FALSE(s[0].dram_bw_util_ratio.has_value());
  EXPECT_FALSE(s[0].tensor_active_ratio.has_value());
}

TEST(LocalSources, AMissingLibraryNamesTheLibraryAndItsPackage) {
  const std::string amd = infeasible_message(SourceKind::amd, "/nonexistent/libamd_smi.so");
  EXPECT_NE(amd.find("no amd-smi library found"), std::string::npos) << amd;
  EXPECT_NE(amd.find("amd-smi-lib"), std::string::npos) << amd;
  EXPECT_NE(amd.find("dlopen(/nonexistent/libamd_smi.so) failed"), std::string::npos) << amd;
  const std::string ascend = infeasible_message(SourceKind::ascend, "/nonexistent/libdcmi.so");
  EXPECT_NE(ascend.find("no DCMI library found (/usr/local/dcmi/libdcmi.so is installed by the "
                        "Ascend NPU driver"),
            std::string::npos)
      << ascend;
  const std::string gaudi = infeasible_message(SourceKind::gaudi, "/nonexistent/libhlml.so");
  EXPECT_NE(gaudi.find("no hlml library found (/usr/lib/habanalabs/libhlml.so"), std::string::npos)
      << gaudi;
}

TEST(LocalSources, ALibraryWithoutTheRequiredSymbolsIsNamed) {
  // A library that opens but is not the vendor's (and the fakes of the other vendors).
  EXPECT_NE(infeasible_message(SourceKind::amd, "libc.so.6").find("has no symbol amdsmi_init"),
            std::string::npos);
  EXPECT_NE(infeasible_message(SourceKind::ascend, test::fake_source_library("gaudi"))
                .find("has no symbol dcmi_init"),
            std::string::npos);
  EXPECT_NE(infeasible_message(SourceKind::gaudi, test::fake_source_library("amd"))
                .find("has no symbol hlml_init"),
            std::string::npos);
}

TEST(LocalSources, AFailingCallIsNamedWithTheVendorsCode) {
  {
    FakeEnv fail("MEMWALL_FAKE_FAIL", "amdsmi_init");
    EXPECT_EQ(infeasible_message(SourceKind::amd, test::fake_source_library("amd")),
              "amdsmi_init failed: AMDSMI_STATUS_DRIVER_NOT_LOADED (amd-smi status 34)");
  }
  {
    FakeEnv fail("MEMWALL_FAKE_FAIL", "amdsmi_get_socket_handles");
    EXPECT_EQ(infeasible_message(SourceKind::amd, test::fake_source_library("amd")),
              "amdsmi_get_socket_handles failed: AMDSMI_STATUS_DRIVER_NOT_LOADED (amd-smi status "
              "34)");
  }
  {
    FakeEnv fail("MEMWALL_FAKE_FAIL", "dcmi_get_card_list");
    EXPECT_EQ(infeasible_message(SourceKind::ascend, test::fake_source_library("ascend")),
              "dcmi_get_card_list failed: DCMI error -8008");
  }
  {
    FakeEnv fail("MEMWALL_FAKE_FAIL", "hlml_init");
    EXPECT_EQ(infeasible_message(SourceKind::gaudi, test::fake_source_library("gaudi")),
              "hlml_init failed: HLML_ERROR_DRIVER_NOT_LOADED (hlml error 9)");
  }
}

TEST(LocalSources, NoDevicesIsInfeasibleNotAnEmptyTable) {
  FakeEnv none("MEMWALL_FAKE_DEVICES", "0");
  EXPECT_NE(infeasible_message(SourceKind::amd, test::fake_source_library("amd"))
                .find("amd-smi found no AMD GPU"),
            std::string::npos);
  EXPECT_EQ(infeasible_message(SourceKind::ascend, test::fake_source_library("ascend")),
            "DCMI found no Ascend NPU (dcmi_get_card_list gave 0 cards with no NPU chip)");
  EXPECT_EQ(infeasible_message(SourceKind::gaudi, test::fake_source_library("gaudi")),
            "hlml found no Gaudi device (hlml_device_get_count gave 0)");
}

// A function table without the required entry points is refused before any call.
TEST(LocalSources, ATableWithoutRequiredEntriesIsRefused) {
  EXPECT_THROW(AmdSmiSource(amdsmi::Functions{}), InfeasibleError);
  EXPECT_THROW(DcmiSource(dcmi::Functions{}), InfeasibleError);
  EXPECT_THROW(HlmlSource(hlml::Functions{}), InfeasibleError);
}

// A source whose start fails after a successful init shuts the library down again; one that
// starts shuts it down when destroyed.
int g_shutdowns = 0;
TEST(LocalSources, AFailedStartShutsTheLibraryDown) {
  hlml::Functions f;
  f.init = [] { return hlml::kSuccess; };
  f.shutdown = [] { return ++g_shutdowns, hlml::kSuccess; };
  f.device_get_count = [](unsigned int* n) { return *n = 0, hlml::kSuccess; };
  f.device_get_handle_by_index = [](unsigned int, hlml::Device*) { return hlml::kSuccess; };
  EXPECT_THROW(HlmlSource{f}, InfeasibleError);
  EXPECT_EQ(g_shutdowns, 1);
  f.device_get_count = [](unsigned int* n) { return *n = 1, hlml::kSuccess; };
  { HlmlSource one(f); }
  EXPECT_EQ(g_shutdowns, 2);
}

}  // namespace
}  // namespace memwall::monitor
