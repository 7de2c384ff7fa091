// The NVIDIA driver's management library opened at run time (dlopen), so memwall builds and runs
// on machines with no driver: a missing library or symbol means "not available", never a link
// error. The versioned symbols are the ones the NVML header maps its plain names to.
#pragma once

#include <memory>
#include <string>

#include "memwall/core/dynamic_library.h"
#include "memwall/monitor/nvml_api.h"

namespace memwall::monitor {

// The soname the driver installs (NVML API reference, "Getting Started": libnvidia-ml.so.1).
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

class NvmlLibrary {
 public:
  // dlopen(`path`) and look up the entry points. nullptr when the library cannot be opened or
  // lacks a required symbol; `why` then says which, with dlerror()'s text.
  static std::unique_ptr<NvmlLibrary> open(const std::string& path, std::string& why);
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const nvml::Functions& functions() const { return functions_; }

 private:
  NvmlLibrary() = default;
  std::unique_ptr<DynamicLibrary> library_;
  nvml::Functions functions_;
};

}  // namespace memwall::monitor
