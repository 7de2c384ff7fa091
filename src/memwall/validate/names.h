// Reading the free-text hardware and model names of published cases ("NVIDIA H100 80GB HBM3",
// "Llama 2 7B ('LLaMA 7B' in table)") into catalog ids, with the assumptions that takes.
#pragma once

#include <optional>
#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/core/precision.h"

namespace memwall::validate {

// Catalog accelerator id for a hardware description. SKU rules: an 80 GB HBM3 H100 is the SXM5
// part (the PCIe card has HBM2e); an A100 without form factor is the SXM4 80GB (stated in `note`).
// Otherwise the catalog's ids and aliases decide, tried on the whole text and on its words.
// InputError when nothing matches.
std::string hardware_id(const std::string& text, const Catalog& catalog, std::string& note);

// Zoo id for a model name ("Llama 2 7B" -> llama-2-7b); Llama 3 sizes map to the llama-3.1
// shapes when only those are built in (stated in `note`). InputError when nothing matches.
std::string model_id(const std::string& text, const Catalog& catalog, std::string& note);

// Weight (and, where the text implies one, KV-cache) precision of a case's precision text
// ("FP8", "GGUF Q4_0", "MXFP4 (weights and activations)", "NVFP4 weights, FP8 KV"), with the
// group size of group-scaled formats. Assumptions taken go to `note`. InputError when unknown.
struct CasePrecision {
  Precision weight = Precision::fp16;
  std::optional<Precision> kv;
  std::optional<int> group;
};
CasePrecision case_precision(const std::string& text, std::string& note);

// The first release number in a case's engine or framework text at or after `from` ("vLLM
// 0.11.0" -> "0.11.0", "TensorRT-LLM v0.6.1" -> "0.6.1"): the first run of digits and dots, its
// trailing dots dropped; empty when there is none (or `from` is npos). engine_of reads the
// release after the engine's name, calibrate-on's group key the first one in the text.
std::string release_in(const std::string& text, size_t from = 0);

}  // namespace memwall::validate
