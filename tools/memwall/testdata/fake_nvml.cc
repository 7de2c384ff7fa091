// A fake NVIDIA driver library for the CLI tests of `memwall monitor`: exports the NVML symbols
// memwall looks up (nvml_loader.cc) and answers for two H100s whose GPM readings rise by one
// percentage point per GPM sample, so a test can run the live path (dlopen, sampling, recording,
// JSON) on a machine with no GPU. Not part of memwall.
#include <cstdio>
#include <cstring>

#include "memwall/monitor/nvml_api.h"

namespace nvml = memwall::monitor::nvml;

namespace {
int g_devices[2] = {0, 1};
int g_samples_taken = 0;
struct FakeSample {
  int taken;
};
int index_of(nvml::Device d) {
  return *reinterpret_cast<int*>(d);
}
}  // namespace

extern "C" {
nvml::Return nvmlInit_v2() {
  return nvml::kSuccess;
}
nvml::Return nvmlShutdown() {
  return nvml::kSuccess;
}
const char* nvmlErrorString(nvml::Return) {
  return "fake error";
}
nvml::Return nvmlDeviceGetCount_v2(unsigned int* n) {
  return *n = 2, nvml::kSuccess;
}
nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvml::Device* d) {
  if (i > 1) return 2;
  *d = reinterpret_cast<nvml::Device>(&g_devices[i]);
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetName(nvml::Device, char* buf, unsigned int n) {
  std::snprintf(buf, n, "Fake H100");
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetUUID(nvml::Device d, char* buf, unsigned int n) {
  std::snprintf(buf, n, "GPU-fake-%d", index_of(d));
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetUtilizationRates(nvml::Device, nvml::Utilization* u) {
  *u = {100, 60};
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device, nvml::Memory* m) {
  *m = {80ull << 30, 16ull << 30, 64ull << 30};
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPowerUsage(nvml::Device, unsigned int* mw) {
  return *mw = 500000, 0;
}
nvml::Return nvmlDeviceGetTemperature(nvml::Device, int, unsigned int* t) {
  return *t = 55, 0;
}
nvml::Return nvmlDeviceGetClockInfo(nvml::Device, int which, unsigned int* mhz) {
  return *mhz = which == nvml::kClockSm ? 1980 : 2619, nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCurrentClocksThrottleReasons(nvml::Device, unsigned long long* r) {
  return *r = 0, nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPcieThroughput(nvml::Device, int, unsigned int* kbps) {
  return *kbps = 1000, nvml::kSuccess;
}
nvml::Return nvmlGpmQueryDeviceSupport(nvml::Device, nvml::GpmSupport* s) {
  s->is_supported_device = 1;
  return nvml::kSuccess;
}
nvml::Return nvmlGpmSampleAlloc(nvml::GpmSample* s) {
  *s = reinterpret_cast<nvml::GpmSample>(new FakeSample{0});
  return nvml::kSuccess;
}
nvml::Return nvmlGpmSampleFree(nvml::GpmSample s) {
  delete reinterpret_cast<FakeSample*>(s);
  return nvml::kSuccess;
}
nvml::Return nvmlGpmSampleGet(nvml::Device, nvml::GpmSample s) {
  reinterpret_cast<FakeSample*>(s)->taken = ++g_samples_taken;
  return nvml::kSuccess;
}
nvml::Return nvmlGpmMetricsGet(nvml::GpmMetricsGet* m) {
  const double step = reinterpret_cast<FakeSample*>(m->sample2)->taken;
  for (unsigned int i = 0; i < m->num_metrics; ++i) {
    auto& x = m->metrics[i];
    x.nvml_return = nvml::kSuccess;
    switch (x.metric_id) {
      case nvml::kGpmSmUtil:
        x.value = 50 + step;
        break;
      case nvml::kGpmDramBwUtil:
        x.value = 70 + step;
        break;
      case nvml::kGpmAnyTensorUtil:
        x.value = 5;
        break;
      default:
        x.value = 1;
    }
  }
  return nvml::kSuccess;
}
}
