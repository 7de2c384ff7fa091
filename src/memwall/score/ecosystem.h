// Software-ecosystem facts: which framework, serving engines, attention kernels and kernel
// compiler run on a vendor's accelerators, each with a source and a date (data/ecosystem/*.json,
// extendable with a user file's "ecosystem" key), and the 0-10 score memwall derives from them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/hw/accelerator.h"

namespace memwall::score {

enum class Support { native, plugin, none };

// What CUDA kernel source needs on a stack (a "porting" fact's path): nothing (the vendor's own
// CUDA), a rebuild with the vendor's CUDA-compatible compiler, a source-to-source translation tool
// then a rebuild (HIPIFY, musify), or a rewrite in the vendor's own operator language (Ascend C,
// BANG C, Pallas, NKI). Ordered by the share of kernel code a team writes by hand.
enum class PortingPath { as_is, recompile, translate, rewrite };
std::string_view to_string(PortingPath p);

struct SoftwareFact {
  std::string name;  // PyTorch, vLLM, SGLang, TensorRT-LLM, MindIE, FlashAttention, Triton ...
  // framework | serving | vendor_engine | compiler (what exists) | kernels (FlashAttention-class
  // attention) | moe_kernels (MoE grouped GEMM) | fp8_kernels (FP8 GEMM) (operators) | profiler |
  // debugger | toolchain (profiler and debugger in one fact) | porting (the CUDA porting path)
  std::string kind;
  Support support = Support::none;
  std::string source, date;
  std::optional<PortingPath> path;  // kind "porting" only (required there)
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

// One thing the rule looks for (a framework, the attention kernel, the porting path ...), what the
// facts say of it and the points it earns.
struct EcosystemItem {
  std::string id;     // the fact kind it reads: framework, serving, ..., moe_kernels, porting
  std::string label;  // "framework", "MoE grouped GEMM", "CUDA porting path"
  double weight = 0;
  std::optional<double> points;  // nullopt: no sourced fact (unknown, earns nothing, said so)
  std::string found;  // "PyTorch (plugin)", "none (stated)", "no fp8 hardware", "unknown"
};

struct EcosystemPart {
  std::string id;  // coverage | operators | toolchain
  double weight = 0;
  double points = 0;  // of the items with a sourced fact
  std::vector<EcosystemItem> items;
  int unknown = 0;  // items with no sourced fact
};

// What moving CUDA code onto the stack costs, from the three parts (docs/compare.md "Porting
// effort"): the porting path's effort, raised to rewrite when neither PyTorch nor JAX runs (the
// model code itself is rewritten), with the operators that matter and are stated missing (kernels
// to write on top), the formats the hardware lacks and what is unknown.
enum class PortingEffort { as_is, recompile, translate, rewrite, unknown };
std::string_view to_string(PortingEffort e);

struct PortingVerdict {
  PortingEffort effort = PortingEffort::unknown;
  std::string tool;  // the porting fact's name ("HIPIFY (hipify-clang, hipify-perl)", "Ascend C")
  std::vector<std::string> kernels_to_write;  // operators stated none on hardware that has the format
  std::vector<std::string> no_hardware;       // formats the hardware lacks (fp8)
  std::vector<std::string> unknown;           // framework / operators with no sourced fact
  std::string sentence;                       // the verdict in words ("; "-separated clauses)
};

// The ecosystem score, 0-10, and the facts behind it, in three parts that weigh what porting costs
// as well as what exists (weights sum to 10):
//  coverage 4   = framework 1.5 (PyTorch or JAX, the better) + serving 1.5 (vLLM 1, SGLang 0.5)
//                 + vendor engine 0.5 + kernel compiler 0.5 (Triton, XLA or the vendor's own)
//  operators 3  = FlashAttention-class attention 1 + MoE grouped GEMM 1 + FP8 GEMM 1 (0 on
//                 hardware without fp8: the format has no path at all)
//  toolchain 3  = profiler 0.5 + debugger 0.5 + CUDA porting path 2 (as is 2, recompile 1.5,
//                 translate 1, rewrite 0: the share of kernel code that carries over)
// Native support earns the full weight, a plugin/adapter or vendor bridge 0.75 of it (an extra
// layer to install, version-pin and debug), none 0; an item with no sourced fact is unknown and
// earns nothing. Entries may name accelerators (a generation): the most specific entry wins. A
// generation without bf16 matmuls loses one point. The score is unknown when the vendor has no
// facts or none on its framework. docs/compare.md "Ecosystem".
struct EcosystemScore {
  std::optional<double> score;  // nullopt: no sourced facts for this vendor / framework (flagged)
  std::string stack;
  std::vector<SoftwareFact> facts;
  std::vector<std::string> missing;  // items with no supported entry
  EcosystemPart coverage, operators, toolchain;
  PortingVerdict porting;
};

EcosystemScore score_ecosystem(const Accelerator& a, const EcosystemBook& book);

}  // namespace memwall::score
