#include "memwall/monitor/local_source.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"
#include "memwall/monitor/amdsmi_source.h"
#include "memwall/monitor/dcmi_source.h"
#include "memwall/monitor/hlml_source.h"
#include "memwall/monitor/nvml_source.h"

namespace memwall::monitor {

std::optional<double> percent_ratio(double percent) {
  if (!std::isfinite(percent) || percent < 0 || percent > 100) return std::nullopt;
  return percent / 100;
}

// Install locations: NVML's soname (NVML API reference, "Getting Started"); amd-smi's
// /opt/rocm/lib and its package amd-smi-lib (ROCm/amdsmi CMakeLists.txt, CPACK components);
// DCMI's /usr/local/dcmi (the Ascend driver's packaging list,
// scripts/package/custom/driver/ascend910B/driver_atlas.xml in verylucky01/driver, a copy of
// Ascend/driver); hlml's /usr/lib/habanalabs (HabanaAI/gohlml hlml.go cgo LDFLAGS).
const std::vector<SourceInfo>& source_infos() {
  static const std::vector<SourceInfo> infos = {
      {SourceKind::nvml, "nvml", "NVML", {kNvmlLibrary}, "the NVIDIA driver"},
      {SourceKind::amd,
       "amd",
       "amd-smi library",
       {"libamd_smi.so", "/opt/rocm/lib/libamd_smi.so"},
       "ROCm's amd-smi-lib package"},
      {SourceKind::ascend,
       "ascend",
       "DCMI library",
       {"libdcmi.so", "/usr/local/dcmi/libdcmi.so"},
       "the Ascend NPU driver (Ascend-hdk-<chip>-npu-driver_<version>.run)"},
      {SourceKind::gaudi,
       "gaudi",
       "hlml library",
       {"libhlml.so", "/usr/lib/habanalabs/libhlml.so"},
       "the Intel Gaudi (Habana) driver and hl-smi installation"},
  };
  return infos;
}

const SourceInfo& source_info(SourceKind kind) {
  for (const auto& i : source_infos())
    if (i.kind == kind) return i;
  throw std::logic_error("unknown source kind");
}

SourceKind parse_source_kind(const std::string& text, const std::string& flag) {
  std::vector<std::string> names;
  for (const auto& i : source_infos()) {
    if (text == i.name) return i.kind;
    names.emplace_back(i.name);
  }
  throw InputError(flag, text, fmt::format("one of {}", fmt::join(names, ", ")));
}

std::string no_library_message(SourceKind kind, const std::string& why) {
  const SourceInfo& i = source_info(kind);
  return fmt::format(
      "no {} found ({} is installed by {}; --library PATH names another): {}; `memwall "
      "monitor --replay FILE` works without one",
      i.api, i.paths.back(), i.provided_by, why);
}

std::unique_ptr<Source> open_source(SourceKind kind, const std::string& library) {
  const std::vector<std::string> paths =
      library.empty() ? source_info(kind).paths : std::vector<std::string>{library};
  switch (kind) {
    case SourceKind::nvml:
      return NvmlSource::open(paths.front());
    case SourceKind::amd:
      return AmdSmiSource::open(paths);
    case SourceKind::ascend:
      return DcmiSource::open(paths);
    case SourceKind::gaudi:
      return HlmlSource::open(paths);
  }
  throw std::logic_error("unknown source kind");
}

}  // namespace memwall::monitor
