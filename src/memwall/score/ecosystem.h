// Software-ecosystem facts: which framework, serving engines, attention kernels and kernel
// compiler run on a vendor's accelerators, each with a source and a date (data/ecosystem/*.json,
// extendable with a user file's "ecosystem" key), and the 0-10 score memwall derives from them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/hw/accelerator.h"

namespace memwall::score {

enum class Support { native, plugin, none };

struct SoftwareFact {
  std::string name;  // PyTorch, vLLM, SGLang, TensorRT-LLM, MindIE, FlashAttention, Triton ...
  std::string kind;  // framework | serving | vendor_engine | kernels | compiler | toolchain
  Support support = Support::none;
  std::string source, date;
};

struct VendorEcosystem {
  std::string vendor;  // matches Accelerator::vendor, case-insensitive
  std::string stack;   // CUDA, ROCm, CANN ...
  std::vector<std::string> accelerators;  // empty: every accelerator of the vendor
  std::vector<SoftwareFact> software;
};

class EcosystemBook {
 public:
  static EcosystemBook builtin();  // data/ecosystem/*.json
  static EcosystemBook with_user_files(const std::vector<std::string>& paths);
  // Reads doc["ecosystem"]["vendors"] when present; other keys are ignored.
  void load(const Json& doc, const std::string& origin);
  // The most specific entry for the accelerator (one naming it beats a vendor-wide one).
  std::optional<VendorEcosystem> find(const Accelerator& a) const;
  const std::vector<VendorEcosystem>& vendors() const { return vendors_; }

 private:
  std::vector<VendorEcosystem> vendors_;
};

// The ecosystem score, 0-10, and the facts behind it. Points per kind of software (weights sum to
// 10): framework 3 (PyTorch or JAX, the better of the two), serving 3 (vLLM 2, SGLang 1), vendor
// engine 1, kernels 2 (FlashAttention-class attention), compiler 0.5 (Triton, XLA or the vendor's
// kernel compiler), toolchain 0.5 (profiler and debugger). Native support earns the full weight, a
// plugin/adapter or vendor bridge 0.75 of it (an extra layer to install, version-pin and debug),
// none 0. Entries may name accelerators (a generation): the most specific entry wins. A
// generation without bf16 matmuls loses one point. docs/compare.md "Ecosystem".
struct EcosystemScore {
  std::optional<double> score;  // nullopt: no sourced facts for this vendor (flagged)
  std::string stack;
  std::vector<SoftwareFact> facts;
  std::vector<std::string> missing;  // kinds with no supported entry
};

EcosystemScore score_ecosystem(const Accelerator& a, const EcosystemBook& book);

}  // namespace memwall::score
