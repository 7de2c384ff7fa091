// A fake amd-smi library (libamd_smi.so) for the tests of `memwall monitor --source amd`: exports
// the symbols memwall looks up (amdsmi_source.cc) and answers for two GPUs on two sockets with
// fixed readings, some of them amd-smi's "not available" values, so a test can run the live path
// (dlopen, sampling, JSON) on a machine with no GPU. MEMWALL_FAKE_FAIL=<symbol> makes that call
// fail with AMDSMI_STATUS_DRIVER_NOT_LOADED (34); MEMWALL_FAKE_DEVICES=0 reports no GPU;
// MEMWALL_FAKE_AMDSMI_VERSION=26 answers as a 26.x library (its amdsmi_version_t and
// amdsmi_power_info_t layouts), =30 as a version of unknown layout. Not part of memwall.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "memwall/monitor/amdsmi_api.h"

namespace amdsmi = memwall::monitor::amdsmi;

namespace {
int g_sockets[2] = {0, 1};
int g_gpus[2] = {0, 1};
constexpr amdsmi::Status kDriverNotLoaded = 34;  // AMDSMI_STATUS_DRIVER_NOT_LOADED
bool fails(const char* symbol) {
  const char* f = std::getenv("MEMWALL_FAKE_FAIL");
  return f && std::strcmp(f, symbol) == 0;
}
uint32_t major_version() {
  const char* v = std::getenv("MEMWALL_FAKE_AMDSMI_VERSION");
  return v ? static_cast<uint32_t>(std::atoi(v)) : 7;
}
uint32_t device_count() {
  const char* n = std::getenv("MEMWALL_FAKE_DEVICES");
  return n ? static_cast<uint32_t>(std::atoi(n)) : 2;
}
int gpu_of(amdsmi::ProcessorHandle h) {
  return *static_cast<int*>(h);
}
// Fills a count-then-list query: with a null list, only the count.
template <class H>
amdsmi::Status list(uint32_t available, H* items, uint32_t* count, int* storage) {
  if (items)
    for (uint32_t i = 0; i < available && i < *count; ++i) items[i] = &storage[i];
  *count = available;
  return amdsmi::kSuccess;
}
}  // namespace

extern "C" {
amdsmi::Status amdsmi_init(uint64_t flags) {
  if (fails("amdsmi_init")) return kDriverNotLoaded;
  return flags == amdsmi::kInitAmdGpus ? amdsmi::kSuccess : 1;  // AMDSMI_STATUS_INVAL
}
amdsmi::Status amdsmi_shut_down() {
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_status_code_to_string(amdsmi::Status s, const char** text) {
  *text = s == kDriverNotLoaded ? "AMDSMI_STATUS_DRIVER_NOT_LOADED" : "AMDSMI_STATUS_UNKNOWN";
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_lib_version(amdsmi::VersionWords* v) {
  const uint32_t major = major_version();
  if (major < 25)
    *v = {{24, major, 0, 0}, "24.7.0"};  // {year, major, minor, release}
  else
    *v = {{major, 0, 0, 0}, "26.0.0"};  // {major, minor, release, (build)}
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_socket_handles(uint32_t* count, amdsmi::SocketHandle* sockets) {
  if (fails("amdsmi_get_socket_handles")) return kDriverNotLoaded;
  return list(device_count(), sockets, count, g_sockets);
}
amdsmi::Status amdsmi_get_processor_handles(amdsmi::SocketHandle socket, uint32_t* count,
                                            amdsmi::ProcessorHandle* gpus) {
  // One GPU per socket, as on MI300X boards.
  return list(1, gpus, count, &g_gpus[*static_cast<int*>(socket)]);
}
amdsmi::Status amdsmi_get_gpu_asic_info(amdsmi::ProcessorHandle, amdsmi::AsicInfo* info) {
  std::memset(info, 0, sizeof *info);
  std::snprintf(info->market_name, sizeof info->market_name, "AMD Instinct MI300X (fake)");
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_gpu_device_uuid(amdsmi::ProcessorHandle h, unsigned int* length,
                                          char* uuid) {
  if (*length < amdsmi::kGpuUuidSize) return 41;  // AMDSMI_STATUS_INSUFFICIENT_SIZE
  *length = static_cast<unsigned int>(std::snprintf(uuid, *length, "fake-amd-%d", gpu_of(h)));
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_gpu_activity(amdsmi::ProcessorHandle h, amdsmi::EngineUsage* u) {
  *u = {};
  u->gfx_activity = gpu_of(h) == 0 ? 87 : 12;
  u->umc_activity = gpu_of(h) == 0 ? 41 : amdsmi::kUnavailable16;
  u->mm_activity = 3;
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_gpu_memory_total(amdsmi::ProcessorHandle, uint32_t type, uint64_t* b) {
  if (type != amdsmi::kMemTypeVram) return amdsmi::kNotSupported;
  return *b = 192ull << 30, amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_gpu_memory_usage(amdsmi::ProcessorHandle, uint32_t type, uint64_t* b) {
  if (type != amdsmi::kMemTypeVram) return amdsmi::kNotSupported;
  return *b = 64ull << 30, amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_power_info(amdsmi::ProcessorHandle h, void* info) {
  const uint32_t current = gpu_of(h) == 0 ? 650 : amdsmi::kUnavailable16;
  const uint32_t average = gpu_of(h) == 0 ? 600 : 420;
  if (major_version() >= 25) {
    auto* p = static_cast<amdsmi::PowerInfo26*>(info);
    *p = {};
    p->socket_power = current;
    p->current_socket_power = current;
    p->average_socket_power = average;
    p->power_limit = 750;
  } else {
    auto* p = static_cast<amdsmi::PowerInfo*>(info);
    *p = {};
    p->current_socket_power = current;
    p->average_socket_power = average;
    p->power_limit = 750;
  }
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_clock_info(amdsmi::ProcessorHandle h, uint32_t type, amdsmi::ClkInfo* c) {
  *c = {};
  if (type == amdsmi::kClkTypeGfx)
    c->clk = gpu_of(h) == 0 ? 2100 : amdsmi::kUnavailable16;
  else if (type == amdsmi::kClkTypeMem)
    c->clk = 1300;
  else
    return amdsmi::kNotSupported;
  return amdsmi::kSuccess;
}
amdsmi::Status amdsmi_get_temp_metric(amdsmi::ProcessorHandle h, uint32_t sensor, uint32_t metric,
                                      int64_t* c) {
  if (metric != amdsmi::kTempCurrent) return amdsmi::kNotSupported;
  if (sensor == amdsmi::kTemperatureHotspot)
    return gpu_of(h) == 0 ? (*c = 71, amdsmi::kSuccess) : amdsmi::kNotSupported;
  if (sensor == amdsmi::kTemperatureEdge) return *c = 48, amdsmi::kSuccess;
  return amdsmi::kNotSupported;
}
}
