#include "memwall/core/dynamic_library.h"

#include <dlfcn.h>

namespace memwall {

std::unique_ptr<DynamicLibrary> DynamicLibrary::open(const std::string& path, std::string& why) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    why = "dlopen(" + path + ") failed: " + (err ? err : "unknown error");
    return nullptr;
  }
  std::unique_ptr<DynamicLibrary> lib(new DynamicLibrary());
  lib->handle_ = handle;
  lib->path_ = path;
  return lib;
}

std::unique_ptr<DynamicLibrary> DynamicLibrary::open_first(const std::vector<std::string>& paths,
                                                           std::string& why) {
  std::string all;
  for (const auto& p : paths) {
    std::string one;
    if (auto lib = open(p, one)) return lib;
    all += (all.empty() ? "" : "; ") + one;
  }
  why = all;
  return nullptr;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) dlclose(handle_);
}

void* DynamicLibrary::address(const char* symbol) const {
  return dlsym(handle_, symbol);
}

std::string missing_symbol(const DynamicLibrary& lib,
                           const std::vector<std::pair<const char*, bool>>& required) {
  for (const auto& [symbol, present] : required)
    if (!present) return lib.path() + " has no symbol " + symbol;
  return {};
}

}  // namespace memwall
