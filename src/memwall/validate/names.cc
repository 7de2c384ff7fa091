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

}  // namespace memwall::validate
