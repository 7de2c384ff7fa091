// A fake hlml library (libhlml.so) for the tests of `memwall monitor --source gaudi`: exports the
// symbols memwall looks up (hlml_source.cc) and answers for two Gaudi devices with fixed readings,
// some refused, so a test can run the live path on a machine with no Gaudi.
// MEMWALL_FAKE_FAIL=<symbol> makes that call fail with HLML_ERROR_DRIVER_NOT_LOADED (9);
// MEMWALL_FAKE_DEVICES=0 reports no device. Not part of memwall.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "memwall/monitor/hlml_api.h"

namespace hlml = memwall::monitor::hlml;

namespace {
int g_devices[2] = {0, 1};
bool fails(const char* symbol) {
  const char* f = std::getenv("MEMWALL_FAKE_FAIL");
  return f && std::strcmp(f, symbol) == 0;
}
int index_of(hlml::Device d) {
  return *static_cast<int*>(d);
}
}  // namespace

extern "C" {
hlml::Return hlml_init() {
  return fails("hlml_init") ? hlml::kErrorDriverNotLoaded : hlml::kSuccess;
}
hlml::Return hlml_shutdown() {
  return hlml::kSuccess;
}
hlml::Return hlml_device_get_count(unsigned int* n) {
  if (fails("hlml_device_get_count")) return hlml::kErrorDriverNotLoaded;
  const char* count = std::getenv("MEMWALL_FAKE_DEVICES");
  return *n = count ? static_cast<unsigned int>(std::atoi(count)) : 2, hlml::kSuccess;
}
hlml::Return hlml_device_get_handle_by_index(unsigned int i, hlml::Device* d) {
  if (i > 1) return 2;  // HLML_ERROR_INVALID_ARGUMENT
  *d = &g_devices[i];
  return hlml::kSuccess;
}
hlml::Return hlml_device_get_name(hlml::Device, char* buf, unsigned int n) {
  std::snprintf(buf, n, "Fake Gaudi 3");
  return hlml::kSuccess;
}
hlml::Return hlml_device_get_uuid(hlml::Device d, char* buf, unsigned int n) {
  std::snprintf(buf, n, "fake-gaudi-%d", index_of(d));
  return hlml::kSuccess;
}
hlml::Return hlml_device_get_utilization_rates(hlml::Device d, hlml::Utilization* u) {
  u->aip = index_of(d) == 0 ? 93 : 7;
  return hlml::kSuccess;
}
hlml::Return hlml_device_get_memory_info(hlml::Device, hlml::Memory* m) {
  *m = {32ull << 30, 128ull << 30, 96ull << 30};  // free, total, used
  return hlml::kSuccess;
}
hlml::Return hlml_device_get_power_usage(hlml::Device d, unsigned int* mw) {
  if (index_of(d) == 1) return hlml::kErrorNotSupported;
  return *mw = 812345, hlml::kSuccess;
}
hlml::Return hlml_device_get_temperature(hlml::Device, int sensor, unsigned int* c) {
  if (sensor != hlml::kTemperatureOnAip) return hlml::kErrorNotSupported;
  return *c = 64, hlml::kSuccess;
}
hlml::Return hlml_device_get_clock_info(hlml::Device d, int type, unsigned int* mhz) {
  if (type != hlml::kClockTpc || index_of(d) == 1) return hlml::kErrorNotSupported;
  return *mhz = 1600, hlml::kSuccess;
}
}
