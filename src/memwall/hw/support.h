// The software support matrix: which weight formats, KV-cache formats and kernel features an
// engine runs on an accelerator family, each fact with its source and date (data/support/*.json,
// extendable with a user file's "support" key). The planner asks it before it plans a precision:
// an unsupported combination is never planned, an unknown one is planned only with a warning
// (and dropped under --risk-averse). A format the hardware has no path for (the accelerator's
// unsupported_precisions) is unsupported unless an entry states an engine runs it anyway (e.g. FP8
// KV stored on Ampere and dequantised in the attention kernel), with its source.
#pragma once

#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/core/precision.h"
#include "memwall/hw/accelerator.h"

namespace memwall {

// Engine ids shared with the engine performance profiles (docs/catalog.md "Support matrix").
inline const std::vector<std::string> kEngineIds = {"vllm",      "sglang",   "trtllm",    "mindie",
                                                    "vllm-ascend", "lmdeploy", "llama.cpp", "tgi"};

// Features an entry may state (besides weight and KV formats).
inline const std::vector<std::string> kSupportFeatures = {
    "fp8_kernels", "fp4_kernels", "flash_attention", "paged_kv", "speculative_decoding"};

enum class SupportLevel { supported, unsupported, unknown };
const char* to_string(SupportLevel l);

struct SupportVerdict {
  SupportLevel level = SupportLevel::unknown;
  std::string engine;  // the engine the verdict is about ("" when no entry matched)
  std::string source, date;
  std::string what;  // "int4 weights on intel-gaudi3 with vllm"
  bool known() const { return level != SupportLevel::unknown; }
  // One sentence: "<what>: supported (source, date)" or "<what>: unknown (no source ...)".
  std::string describe() const;
};

struct SupportEntry {
  std::string vendor;                      // prefix of Accelerator::vendor, case-insensitive
  std::vector<std::string> arch;           // prefixes of Accelerator::arch; empty: every one
  std::vector<std::string> accelerators;   // catalog ids or aliases; empty: every one
  std::string engine;                      // one of kEngineIds
  std::string source, date;
  // key -> "supported" | "unsupported"; keys: precision names (bf16, fp16, fp8, int8, int4, fp4)
  // for weights and kv, feature names for features. A key not listed is unknown.
  std::vector<std::pair<std::string, SupportLevel>> weights, kv, features;
  bool matches(const Accelerator& a) const;
};

class SupportMatrix {
 public:
  static const SupportMatrix& builtin();  // data/support/*.json
  static SupportMatrix with_user_files(const std::vector<std::string>& paths);
  // Reads doc["support"]["entries"] when present; other keys are ignored. Later entries win.
  void load(const Json& doc, const std::string& origin);

  // Verdicts for one engine, or for the best engine when `engine` is empty (supported by any
  // engine beats unknown beats unsupported).
  SupportVerdict weights(const Accelerator& a, Precision p, const std::string& engine = "") const;
  SupportVerdict kv(const Accelerator& a, Precision p, const std::string& engine = "") const;
  SupportVerdict feature(const Accelerator& a, const std::string& feature,
                         const std::string& engine = "") const;
  // Engines with an entry for this accelerator, in kEngineIds order.
  std::vector<std::string> engines_for(const Accelerator& a) const;
  const std::vector<SupportEntry>& entries() const { return entries_; }

 private:
  enum class Kind { weights, kv, feature };
  SupportVerdict verdict(const Accelerator& a, Kind kind, const std::string& key,
                         const std::string& engine) const;
  std::vector<SupportEntry> entries_;
};

// InputError naming --engine for an id outside kEngineIds.
void check_engine_id(const std::string& engine);

}  // namespace memwall
