// The part of Huawei's DCMI library (libdcmi.so, the Ascend NPU driver's management interface)
// that memwall uses, declared here so memwall builds with no Ascend driver. Each declaration was
// checked against the real header, dcmi_interface_api.h of the Ascend driver as published in
// verylucky01/driver (a copy of Ascend/driver) src/custom/include/dcmi_interface_api.h at commit
// 999c25d7406900c7c55e747bbc59a8817f8d5650, and the units against the DCMI API reference in the
// same tree (docs/en/Ascend_910B_DCMI_API/*.md). The library is opened at run time
// (dcmi_source.cc); `Functions` is the table of entry points, which tests fill with fakes. Null
// means "not in this library".
#pragma once

namespace memwall::monitor::dcmi {

inline constexpr int kOk = 0;                        // DCMI_OK
inline constexpr int kErrNotSupport = -8000 - 255;   // DCMI_ERR_CODE_NOT_SUPPORT
inline constexpr int kMaxCardNum = 64;               // MAX_CARD_NUM
inline constexpr unsigned int kChipNameLength = 32;  // MAX_CHIP_NAME_LEN

// dcmi_get_device_utilization_rate input_type (DCMI_UTILIZATION_RATE_*), each a percent.
inline constexpr int kUtilAiCore = 2;         // AI Core
inline constexpr int kUtilHbmBandwidth = 10;  // on-chip memory (HBM) bandwidth
inline constexpr int kUtilVectorCore = 12;    // Vector Core
inline constexpr int kUtilNpu = 13;           // overall NPU utilisation
inline constexpr int kUtilAiCube = 14;        // AI Cube (the matrix units)
// dcmi_get_device_frequency input_type (enum dcmi_freq_type), MHz.
inline constexpr int kFreqAiCoreCurrent = 7;  // DCMI_FREQ_AICORE_CURRENT_

// struct dcmi_chip_info
struct ChipInfo {
  unsigned char chip_type[kChipNameLength];
  unsigned char chip_name[kChipNameLength];
  unsigned char chip_ver[kChipNameLength];
  unsigned int aicore_cnt;
};

// struct dcmi_hbm_info: memory_size and memory_usage in MB, freq in MHz, temp in degrees C,
// bandwith_util_rate a percent (dcmi_get_device_hbm_info.md).
struct HbmInfo {
  unsigned long long memory_size;
  unsigned int freq;
  unsigned long long memory_usage;
  int temp;
  unsigned int bandwith_util_rate;
};

// Entry points, named after the DCMI symbols they are loaded from. Every call returns DCMI_OK
// (0) or a negative DCMI_ERR_CODE_*.
struct Functions {
  // Required.
  int (*init)() = nullptr;  // dcmi_init
  int (*get_card_list)(int* card_num, int* card_list, int list_len) = nullptr;
  int (*get_device_id_in_card)(int card, int* device_id_max, int* mcu_id, int* cpu_id) = nullptr;
  // Optional readings.
  int (*get_device_chip_info)(int card, int device, ChipInfo*) = nullptr;
  int (*get_device_utilization_rate)(int card, int device, int input_type,
                                     unsigned int* percent) = nullptr;
  int (*get_device_hbm_info)(int card, int device, HbmInfo*) = nullptr;
  int (*get_device_power_info)(int card, int device, int* tenth_w) = nullptr;  // 0.1 W
  int (*get_device_temperature)(int card, int device, int* celsius) = nullptr;
  int (*get_device_frequency)(int card, int device, int input_type, unsigned int* mhz) = nullptr;
};

}  // namespace memwall::monitor::dcmi
