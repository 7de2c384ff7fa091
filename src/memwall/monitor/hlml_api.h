// The part of Intel Gaudi's management library hlml (libhlml.so, installed with the Habana
// driver) that memwall uses, declared here so memwall builds with no Gaudi software. Each
// declaration was checked against the real header, hlml.h as HabanaAI/gohlml ships it (commit
// e31eedda2305a0793f8a4629a489428968ac2f2d; hlml.h last changed in 6b97ee06, 2024-02-28), and
// the units against that repository's hlml.go. The library is opened at run time
// (hlml_source.cc); `Functions` is the table of entry points, which tests fill with fakes. Null
// means "not in this library".
#pragma once

namespace memwall::monitor::hlml {

using Return = int;                                 // hlml_return_t
inline constexpr Return kSuccess = 0;               // HLML_SUCCESS
inline constexpr Return kErrorNotSupported = 3;     // HLML_ERROR_NOT_SUPPORTED
inline constexpr Return kErrorDriverNotLoaded = 9;  // HLML_ERROR_DRIVER_NOT_LOADED
inline constexpr int kClockTpc = 3;                 // HLML_CLOCK_TPC
inline constexpr int kTemperatureOnAip = 0;         // HLML_TEMPERATURE_ON_AIP
// hlml.go reads names and UUIDs into 256-byte buffers (szUUID).
inline constexpr unsigned int kTextBufferSize = 256;

using Device = void*;  // hlml_device_t

// hlml_utilization_t: percent of the last second in which the AIP was busy (HabanaAI/pyhlml's
// hlmlDeviceGetUtilizationRates: "utilization rate over the last second as a percentage").
struct Utilization {
  unsigned int aip;
};

// hlml_memory_t: bytes ("Total installed memory (in bytes)"; note the order: free first).
struct Memory {
  unsigned long long free;
  unsigned long long total;
  unsigned long long used;
};

// Entry points, named after the hlml symbols they are loaded from.
struct Functions {
  // Required.
  Return (*init)() = nullptr;                           // hlml_init
  Return (*shutdown)() = nullptr;                       // hlml_shutdown
  Return (*device_get_count)(unsigned int*) = nullptr;  // hlml_device_get_count
  Return (*device_get_handle_by_index)(unsigned int, Device*) = nullptr;
  // Optional readings.
  Return (*device_get_name)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_uuid)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_utilization_rates)(Device, Utilization*) = nullptr;
  Return (*device_get_memory_info)(Device, Memory*) = nullptr;
  Return (*device_get_power_usage)(Device, unsigned int*) = nullptr;       // milliwatts
  Return (*device_get_temperature)(Device, int, unsigned int*) = nullptr;  // degrees C
  Return (*device_get_clock_info)(Device, int, unsigned int*) = nullptr;   // MHz
};

}  // namespace memwall::monitor::hlml
