// A fake DCMI library (libdcmi.so) for the tests of `memwall monitor --source ascend`: exports the
// symbols memwall looks up (dcmi_source.cc) and answers for two cards (ids 3 and 5, one NPU chip
// each) with fixed readings, some refused, so a test can run the live path on a machine with no
// NPU. MEMWALL_FAKE_FAIL=<symbol> makes that call fail with DCMI_ERR_CODE_DEVICE_NOT_EXIST
// (-8008); MEMWALL_FAKE_DEVICES=0 reports no card. Not part of memwall.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "memwall/monitor/dcmi_api.h"

namespace dcmi = memwall::monitor::dcmi;

namespace {
constexpr int kDeviceNotExist = -8000 - 8;  // DCMI_ERR_CODE_DEVICE_NOT_EXIST
bool fails(const char* symbol) {
  const char* f = std::getenv("MEMWALL_FAKE_FAIL");
  return f && std::strcmp(f, symbol) == 0;
}
int card_count() {
  const char* n = std::getenv("MEMWALL_FAKE_DEVICES");
  return n ? std::atoi(n) : 2;
}
}  // namespace

extern "C" {
int dcmi_init() {
  return fails("dcmi_init") ? kDeviceNotExist : dcmi::kOk;
}
int dcmi_get_card_list(int* card_num, int* card_list, int list_len) {
  if (fails("dcmi_get_card_list")) return kDeviceNotExist;
  const int ids[2] = {3, 5};
  *card_num = card_count();
  for (int i = 0; i < *card_num && i < list_len && i < 2; ++i) card_list[i] = ids[i];
  return dcmi::kOk;
}
int dcmi_get_device_id_in_card(int, int* device_id_max, int* mcu_id, int* cpu_id) {
  *device_id_max = 1;
  *mcu_id = 1;
  *cpu_id = -1;
  return dcmi::kOk;
}
int dcmi_get_device_chip_info(int, int, dcmi::ChipInfo* info) {
  std::memset(info, 0, sizeof *info);
  std::snprintf(reinterpret_cast<char*>(info->chip_type), sizeof info->chip_type, "Ascend");
  std::snprintf(reinterpret_cast<char*>(info->chip_name), sizeof info->chip_name, "910B3");
  info->aicore_cnt = 20;
  return dcmi::kOk;
}
int dcmi_get_device_utilization_rate(int card, int, int type, unsigned int* percent) {
  if (card == 5 && (type == dcmi::kUtilHbmBandwidth || type == dcmi::kUtilAiCube))
    return dcmi::kErrNotSupport;
  switch (type) {
    case dcmi::kUtilAiCore:
      return *percent = card == 3 ? 62 : 30, dcmi::kOk;
    case dcmi::kUtilAiCube:
      return *percent = 55, dcmi::kOk;
    case dcmi::kUtilHbmBandwidth:
      return *percent = 71, dcmi::kOk;
    case dcmi::kUtilVectorCore:
      return *percent = 20, dcmi::kOk;
    case dcmi::kUtilNpu:
      return *percent = card == 3 ? 80 : 40, dcmi::kOk;
    default:
      return dcmi::kErrNotSupport;
  }
}
int dcmi_get_device_hbm_info(int, int, dcmi::HbmInfo* hbm) {
  *hbm = {65536, 1600, 40960, 45, 33};
  return dcmi::kOk;
}
int dcmi_get_device_power_info(int card, int, int* tenth_w) {
  if (card == 5) return kDeviceNotExist;
  return *tenth_w = 3105, dcmi::kOk;
}
int dcmi_get_device_temperature(int, int, int* celsius) {
  return *celsius = 52, dcmi::kOk;
}
int dcmi_get_device_frequency(int, int, int type, unsigned int* mhz) {
  if (type != dcmi::kFreqAiCoreCurrent) return dcmi::kErrNotSupport;
  return *mhz = 1800, dcmi::kOk;
}
}
