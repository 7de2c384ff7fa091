// A shared library opened at run time (dlopen) and its symbols looked up by name, for what needs
// no build or load-time dependency on a vendor library: the monitor's driver loaders
// (amdsmi_source.cc, dcmi_source.cc, hlml_source.cc) and the probe's OpenBLAS (blas_gemm.cc).
// A missing library or symbol is an answer, never a link error.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace memwall {

class DynamicLibrary {
 public:
  // dlopen(`path`); nullptr with `why` holding dlerror()'s text when it cannot be opened.
  static std::unique_ptr<DynamicLibrary> open(const std::string& path, std::string& why);
  // The first of `paths` that opens; nullptr with every failure in `why` otherwise.
  static std::unique_ptr<DynamicLibrary> open_first(const std::vector<std::string>& paths,
                                                    std::string& why);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  const std::string& path() const { return path_; }
  // Sets `slot` to the symbol's address, or null when the library lacks it.
  template <class F>
  void bind(const char* symbol, F& slot) const {
    slot = reinterpret_cast<F>(address(symbol));
  }

 private:
  DynamicLibrary() = default;
  void* address(const char* symbol) const;
  void* handle_ = nullptr;
  std::string path_;
};

// A vendor struct inside a zeroed buffer far larger than any header's version of it, handed to a
// library so one whose struct grew cannot write past memwall's memory.
template <class T>
struct Padded {
  T value{};
  unsigned char slack[4096] = {};
};

// The first of `required` (symbol name, whether it was found) that is missing, as "PATH has no
// symbol NAME"; empty when all are present.
std::string missing_symbol(const DynamicLibrary& lib,
                           const std::vector<std::pair<const char*, bool>>& required);

}  // namespace memwall
