#include "memwall/monitor/dcmi_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "memwall/core/error.h"
#include "memwall/core/units.h"
#include "memwall/monitor/local_source.h"

namespace memwall::monitor {
namespace {

std::string chars(const unsigned char* buf, size_t size) {
  const char* p = reinterpret_cast<const char*>(buf);
  return std::string(p, strnlen(p, size));
}

}  // namespace

DcmiSource::DcmiSource(const dcmi::Functions& f, Clock clock) : f_(f), clock_(std::move(clock)) {
  if (!f_.init || !f_.get_card_list || !f_.get_device_id_in_card)
    throw InfeasibleError("DCMI lacks dcmi_init/dcmi_get_card_list/dcmi_get_device_id_in_card");
  if (const int r = f_.init(); r != dcmi::kOk)
    throw InfeasibleError(fmt::format("dcmi_init failed: DCMI error {}", r));
  int cards = 0;
  int card_list[dcmi::kMaxCardNum] = {};
  if (const int r = f_.get_card_list(&cards, card_list, dcmi::kMaxCardNum); r != dcmi::kOk)
    throw InfeasibleError(fmt::format("dcmi_get_card_list failed: DCMI error {}", r));
  cards = std::clamp(cards, 0, dcmi::kMaxCardNum);
  int index = 0;
  for (int c = 0; c < cards; ++c) {
    int chips = 0, mcu = -1, cpu = -1;
    if (const int r = f_.get_device_id_in_card(card_list[c], &chips, &mcu, &cpu); r != dcmi::kOk) {
      notes_.push_back(
          fmt::format("card {}: skipped, dcmi_get_device_id_in_card failed: DCMI "
                      "error {}",
                      card_list[c], r));
      continue;
    }
    // NPU chips are device ids 0 .. device_id_max - 1 (the MCU and Ctrl CPU ids are apart).
    for (int chip = 0; chip < chips; ++chip) {
      Device d{card_list[c], chip, index++, std::nullopt};
      Padded<dcmi::ChipInfo> info;
      if (f_.get_device_chip_info &&
          f_.get_device_chip_info(d.card, chip, &info.value) == dcmi::kOk) {
        const std::string type = chars(info.value.chip_type, sizeof info.value.chip_type);
        const std::string name = chars(info.value.chip_name, sizeof info.value.chip_name);
        if (!name.empty()) d.name = type.empty() ? name : type + " " + name;
      }
      devices_.push_back(d);
    }
  }
  if (devices_.empty())
    throw InfeasibleError(fmt::format(
        "DCMI found no Ascend NPU (dcmi_get_card_list gave {} cards with no NPU chip)", cards));
  notes_.push_back(
      "DCMI gives no SM occupancy, PCIe/HCCS traffic or clock-event reasons: they are unknown; "
      "AI Core utilisation stands in for SM activity, AI Cube for tensor activity");
}

std::unique_ptr<DcmiSource> DcmiSource::open(const std::vector<std::string>& paths) {
  std::string why;
  auto lib = DynamicLibrary::open_first(paths, why);
  if (!lib) throw InfeasibleError(no_library_message(SourceKind::ascend, why));
  dcmi::Functions f;
  lib->bind("dcmi_init", f.init);
  lib->bind("dcmi_get_card_list", f.get_card_list);
  lib->bind("dcmi_get_device_id_in_card", f.get_device_id_in_card);
  lib->bind("dcmi_get_device_chip_info", f.get_device_chip_info);
  lib->bind("dcmi_get_device_utilization_rate", f.get_device_utilization_rate);
  lib->bind("dcmi_get_device_hbm_info", f.get_device_hbm_info);
  lib->bind("dcmi_get_device_power_info", f.get_device_power_info);
  lib->bind("dcmi_get_device_temperature", f.get_device_temperature);
  lib->bind("dcmi_get_device_frequency", f.get_device_frequency);
  if (const std::string missing = missing_symbol(
          *lib, {{"dcmi_init", f.init != nullptr},
                 {"dcmi_get_card_list", f.get_card_list != nullptr},
                 {"dcmi_get_device_id_in_card", f.get_device_id_in_card != nullptr}});
      !missing.empty())
    throw InfeasibleError(missing + " (not the Ascend driver's DCMI library?)");
  auto source = std::make_unique<DcmiSource>(f);
  source->library_ = std::move(lib);
  return source;
}

std::optional<double> DcmiSource::utilization(const Device& d, int type) const {
  unsigned int percent = 0;
  if (!f_.get_device_utilization_rate ||
      f_.get_device_utilization_rate(d.card, d.chip, type, &percent) != dcmi::kOk)
    return std::nullopt;
  return percent_ratio(percent);
}

std::vector<GpuSample> DcmiSource::sample() {
  const double now_s = clock_();
  std::vector<GpuSample> out;
  for (const auto& d : devices_) {
    GpuSample s;
    s.time_s = now_s;
    s.index = d.index;
    s.name = d.name;
    s.sm_active_ratio = utilization(d, dcmi::kUtilAiCore);
    s.tensor_active_ratio = utilization(d, dcmi::kUtilAiCube);
    s.dram_bw_util_ratio = utilization(d, dcmi::kUtilHbmBandwidth);
    s.gpu_util_ratio = utilization(d, dcmi::kUtilNpu);
    Padded<dcmi::HbmInfo> padded;
    const dcmi::HbmInfo& hbm = padded.value;
    if (f_.get_device_hbm_info &&
        f_.get_device_hbm_info(d.card, d.chip, &padded.value) == dcmi::kOk) {
      // MB, taken as MiB as the npu-exporter mapping does (data/monitor/exporters.json).
      s.memory_total_bytes = static_cast<double>(hbm.memory_size) * kMiB;
      s.memory_used_bytes = static_cast<double>(hbm.memory_usage) * kMiB;
      s.memory_clock_mhz = hbm.freq;
      if (!s.dram_bw_util_ratio) s.dram_bw_util_ratio = percent_ratio(hbm.bandwith_util_rate);
    }
    int tenth_w = 0;
    if (f_.get_device_power_info && f_.get_device_power_info(d.card, d.chip, &tenth_w) == 0 &&
        tenth_w >= 0)
      s.power_w = tenth_w / 10.0;
    int celsius = 0;
    if (f_.get_device_temperature && f_.get_device_temperature(d.card, d.chip, &celsius) == 0 &&
        celsius >= 0)
      s.temperature_c = celsius;
    unsigned int mhz = 0;
    if (f_.get_device_frequency &&
        f_.get_device_frequency(d.card, d.chip, dcmi::kFreqAiCoreCurrent, &mhz) == dcmi::kOk)
      s.sm_clock_mhz = mhz;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace memwall::monitor
