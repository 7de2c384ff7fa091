// The part of AMD's amd-smi library (libamd_smi.so) that memwall uses, declared here so memwall
// builds with no ROCm installed. Each declaration was checked against the real header,
// ROCm/amdsmi include/amd_smi/amdsmi.h at commit 0ceca28f4139dced5e9b5739a3f393780d7add48
// (2024-10-23, library version 24.7.0, after tag rocm-6.2.2). amd-smi changes its major version
// with every ABI change, and the layouts did change: amdsmi_version_t lost its `year` word and
// amdsmi_power_info_t gained a leading 64-bit socket_power in the 26.x header
// (AMDSMI_LIB_VERSION_MAJOR 26), so the source asks amdsmi_get_lib_version which layout it has
// and passes every struct in an oversized buffer. Enumerations are passed as their values (C enums
// are int-sized; amdsmi_status_t holds 0xFFFFFFFF, so it is unsigned). The library is opened at run
// time (amdsmi_source.cc); `Functions` is the table of entry points, which tests fill with fakes.
// Null means "not in this library".
#pragma once

#include <cstdint>

namespace memwall::monitor::amdsmi {

using Status = uint32_t;                            // amdsmi_status_t
inline constexpr Status kSuccess = 0;               // AMDSMI_STATUS_SUCCESS
inline constexpr Status kNotSupported = 2;          // AMDSMI_STATUS_NOT_SUPPORTED
inline constexpr uint64_t kInitAmdGpus = 1u << 1;   // AMDSMI_INIT_AMD_GPUS
inline constexpr uint32_t kMemTypeVram = 0;         // AMDSMI_MEM_TYPE_VRAM
inline constexpr uint32_t kClkTypeGfx = 0;          // AMDSMI_CLK_TYPE_GFX (= SYS)
inline constexpr uint32_t kClkTypeMem = 4;          // AMDSMI_CLK_TYPE_MEM
inline constexpr uint32_t kTemperatureEdge = 0;     // AMDSMI_TEMPERATURE_TYPE_EDGE
inline constexpr uint32_t kTemperatureHotspot = 1;  // AMDSMI_TEMPERATURE_TYPE_HOTSPOT (junction)
inline constexpr uint32_t kTempCurrent = 0;         // AMDSMI_TEMP_CURRENT
inline constexpr unsigned int kGpuUuidSize = 38;    // AMDSMI_GPU_UUID_SIZE
// amdsmi_get_power_info and amdsmi_get_clock_info fill a field the GPU's metrics table lacks
// with 0xFFFF (src/amd_smi/amd_smi.cc at the same commit); the table's own "not available" is
// the field type's maximum (UINT16_MAX / UINT32_MAX).
inline constexpr uint32_t kUnavailable16 = 0xFFFF;
inline constexpr uint32_t kUnavailable32 = 0xFFFFFFFF;

using SocketHandle = void*;     // amdsmi_socket_handle
using ProcessorHandle = void*;  // amdsmi_processor_handle

// amdsmi_engine_usage_t: percent, 0-100 (amdsmi_get_gpu_activity's comment), from the metrics
// table's average_gfx_activity / average_umc_activity / average_mm_activity.
struct EngineUsage {
  uint32_t gfx_activity;
  uint32_t umc_activity;
  uint32_t mm_activity;
  uint32_t reserved[13];
};

// amdsmi_version_t up to 24.x: {year, major, minor, release, build}; from 25.x on: {major,
// minor, release, build}. Read as words: words[0] is the year (24) or, in the newer layout, the
// major version (>= 25).
struct VersionWords {
  uint32_t words[4];
  const char* build;
};

// amdsmi_power_info_t of 24.x: watts and millivolts (amdsmi_get_power_info's comment).
struct PowerInfo {
  uint32_t current_socket_power;
  uint32_t average_socket_power;
  uint32_t gfx_voltage;
  uint32_t soc_voltage;
  uint32_t mem_voltage;
  uint32_t power_limit;
  uint32_t reserved[11];
};

// amdsmi_power_info_t of the 26.x header: socket_power in W on bare-metal Linux, then the
// same current/average socket power in W ("Unsupported struct members are set to UINT32_MAX").
struct PowerInfo26 {
  uint64_t socket_power;
  uint32_t current_socket_power;
  uint32_t average_socket_power;
  uint64_t gfx_voltage;
  uint64_t soc_voltage;
  uint64_t mem_voltage;
  uint32_t power_limit;
  uint64_t reserved[18];
};

// amdsmi_clk_info_t (the same in the 24.x and 26.x headers): MHz, 1 s averages
// (amdsmi_get_clock_info's comment).
struct ClkInfo {
  uint32_t clk;
  uint32_t min_clk;
  uint32_t max_clk;
  uint8_t clk_locked;
  uint8_t clk_deep_sleep;
  uint32_t reserved[4];
};

// amdsmi_asic_info_t (AMDSMI_256_LENGTH, AMDSMI_MAX_STRING_LENGTH 64,
// AMDSMI_NORMAL_STRING_LENGTH 32).
struct AsicInfo {
  char market_name[256];
  uint32_t vendor_id;
  char vendor_name[64];
  uint32_t subvendor_id;
  uint64_t device_id;
  uint32_t rev_id;
  char asic_serial[32];
  uint32_t oam_id;
  uint32_t num_of_compute_units;
  uint64_t target_graphics_version;
  uint32_t reserved[15];
};

// Entry points, named after the amd-smi symbols they are loaded from.
struct Functions {
  // Required.
  Status (*init)(uint64_t init_flags) = nullptr;                     // amdsmi_init
  Status (*shut_down)() = nullptr;                                   // amdsmi_shut_down
  Status (*get_socket_handles)(uint32_t*, SocketHandle*) = nullptr;  // amdsmi_get_socket_handles
  Status (*get_processor_handles)(SocketHandle, uint32_t*, ProcessorHandle*) = nullptr;
  // Optional readings.
  Status (*status_code_to_string)(Status, const char**) = nullptr;
  Status (*get_lib_version)(VersionWords*) = nullptr;  // amdsmi_get_lib_version
  Status (*get_gpu_asic_info)(ProcessorHandle, AsicInfo*) = nullptr;
  Status (*get_gpu_device_uuid)(ProcessorHandle, unsigned int*, char*) = nullptr;
  Status (*get_gpu_activity)(ProcessorHandle, EngineUsage*) = nullptr;
  Status (*get_gpu_memory_total)(ProcessorHandle, uint32_t, uint64_t*) = nullptr;  // bytes
  Status (*get_gpu_memory_usage)(ProcessorHandle, uint32_t, uint64_t*) = nullptr;  // bytes
  // amdsmi_power_info_t*: PowerInfo or PowerInfo26 by the library's version.
  Status (*get_power_info)(ProcessorHandle, void*) = nullptr;
  Status (*get_clock_info)(ProcessorHandle, uint32_t, ClkInfo*) = nullptr;
  // amdsmi_get_temp_metric: degrees C (the header's comment says millidegrees, but
  // src/amd_smi/amd_smi.cc divides rocm-smi's millidegrees by 1000 before returning).
  Status (*get_temp_metric)(ProcessorHandle, uint32_t, uint32_t, int64_t*) = nullptr;
};

}  // namespace memwall::monitor::amdsmi
