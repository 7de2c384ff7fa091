#include "memwall/validate/names.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/validate/case.h"

namespace memwall::validate {
namespace {


bool known_accelerator(const Catalog& c, const std::string& name) {
  try {
    c.accelerator(name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

std::string hardware_id(const std::string& text, const Catalog& catalog, std::string& note) {
  const std::string t = to_lower(text);
  if (has(t, "h100") && !has(t, "gh100")) {
    if (has(t, "pcie")) return "nvidia-h100-pcie";
    if (has(t, "nvl")) return "nvidia-h100-nvl";
    return "nvidia-h100-sxm";
  }
  if (has(t, "h200") && !has(t, "gh200")) return has(t, "nvl") ? "nvidia-h200-nvl" : "nvidia-h200-sxm";
  if (has(t, "a100")) {
    if (has(t, "40gb")) return "nvidia-a100-40gb-sxm";
    if (has(t, "pcie")) return "nvidia-a100-80gb-pcie";
    if (!has(t, "sxm") || !has(t, "80")) note += "A100 form factor/memory not stated: SXM4 80GB assumed. ";
    return "nvidia-a100-80gb-sxm";
  }
  // The catalog's ids and aliases: the whole text, then each word, word pair and joined pair.
  if (known_accelerator(catalog, text)) return catalog.accelerator(text).id;
  std::string cleaned;
  for (char ch : t) cleaned += (ch == '(' || ch == ')' || ch == ',') ? ' ' : ch;
  std::istringstream in(cleaned);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<std::string> candidates;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i + 1 < words.size()) {
      candidates.push_back(words[i] + "-" + words[i + 1]);
      candidates.push_back(words[i] + words[i + 1]);
    }
    candidates.push_back(words[i]);
  }
  for (const auto& c : candidates)
    if (c.size() >= 3 && c != "nvidia" && c != "amd" && c != "intel" && known_accelerator(catalog, c))
      return catalog.accelerator(c).id;
  return catalog.accelerator(text).id;  // InputError with the nearest names
}

std::string model_id(const std::string& text, const Catalog& catalog, std::string& note) {
  std::string t = to_lower(text.substr(0, text.find('(')));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  std::replace(t.begin(), t.end(), ' ', '-');
  auto known = [&](const std::string& id) {
    return std::any_of(catalog.models().begin(), catalog.models().end(),
                       [&](const ModelSpec& m) { return m.id == id; });
  };
  if (known(t)) return t;
  // Llama 3 and Llama 3.1 share every shape that matters here (layers, widths, GQA, vocabulary).
  if (t.rfind("llama-3-", 0) == 0 && known("llama-3.1-" + t.substr(8))) {
    note += "Llama 3 " + t.substr(8) + " modelled with the llama-3.1 shapes (identical). ";
    return "llama-3.1-" + t.substr(8);
  }
  return catalog.model(t).id;  // InputError with the nearest names
}

CasePrecision case_precision(const std::string& text, std::string& note) {
  const std::string t = to_lower(text);
  CasePrecision p;
  if (has(t, "fp4")) {
    // Before "fp8": "NVFP4 weights, FP8 KV" is an FP4 case. OCP MX (MXFP4, OCP Microscaling
    // Formats spec v1.0, 2023, sec. 5): blocks of 32 E2M1 values with one 8-bit E8M0 scale;
    // NVFP4 (precision.cc): blocks of 16 with an fp8 scale, the fp4 default. An "FP8" beside
    // it names the KV cache.
    p.weight = Precision::fp4;
    if (has(t, "mxfp4")) p.group = 32;
    if (has(t, "fp8")) p.kv = Precision::fp8_e4m3;
  } else if (has(t, "q4_0")) {
    // GGUF Q4_0: blocks of 32 4-bit weights with one fp16 scale = 4.5 bits per weight.
    p.weight = Precision::int4;
    p.group = 32;
    p.kv = Precision::fp16;
  } else if (has(t, "fp8")) {
    p.weight = Precision::fp8_e4m3;
    p.kv = Precision::fp8_e4m3;
    note += "FP8 build assumed to use the FP8 KV cache (--fp8_kv_cache, as the doc's example). ";
  } else if (has(t, "bf16")) {
    p.weight = Precision::bf16;
  } else if (has(t, "fp16") || has(t, "f16")) {
    p.weight = Precision::fp16;
  } else {
    p.weight = parse_precision_or_throw(text, "config.precision");
  }
  return p;
}

std::string release_in(const std::string& text, size_t from) {
  const size_t i = from >= text.size() ? std::string::npos : text.find_first_of("0123456789", from);
  if (i == std::string::npos) return {};
  const size_t j = text.find_first_not_of("0123456789.", i);
  std::string v = text.substr(i, j == std::string::npos ? std::string::npos : j - i);
  while (!v.empty() && v.back() == '.') v.pop_back();
  return v;
}

}  // namespace memwall::validate
