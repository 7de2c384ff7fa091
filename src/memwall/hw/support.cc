#include "memwall/hw/support.h"

#include <algorithm>

#include <fmt/format.h>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall {
namespace {

bool prefix_of(const std::string& text, const std::string& prefix) {
  return to_lower(text).rfind(to_lower(prefix), 0) == 0;
}

std::vector<std::string> strings(const Json& e, const char* key, const std::string& at) {
  std::vector<std::string> out;
  if (!e.contains(key)) return out;
  const Json& v = e.at(key);
  if (!v.is_array()) throw InputError(at + "." + key, v.dump(), "a list of strings");
  for (const auto& s : v) {
    if (!s.is_string()) throw InputError(at + "." + key, s.dump(), "a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::vector<std::pair<std::string, SupportLevel>> levels(const Json& e, const char* key,
                                                         const std::vector<std::string>& allowed,
                                                         const std::string& at) {
  std::vector<std::pair<std::string, SupportLevel>> out;
  if (!e.contains(key)) return out;
  const Json& v = e.at(key);
  const std::string field = at + "." + key;
  if (!v.is_object()) throw InputError(field, v.dump(), "an object of name -> supported|unsupported");
  for (const auto& [name, level] : v.items()) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      throw InputError::unknown_name(field + " key", name, allowed);
    const std::string l = level.is_string() ? level.get<std::string>() : level.dump();
    if (l == "supported") {
      out.emplace_back(name, SupportLevel::supported);
    } else if (l == "unsupported") {
      out.emplace_back(name, SupportLevel::unsupported);
    } else {
      throw InputError(field + "." + name, l, "supported or unsupported (leave unknown out)");
    }
  }
  return out;
}

const std::vector<std::string> kFormats = {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"};

int rank(SupportLevel l) {
  return l == SupportLevel::supported ? 2 : l == SupportLevel::unknown ? 1 : 0;
}

}  // namespace

const char* to_string(SupportLevel l) {
  switch (l) {
    case SupportLevel::supported: return "supported";
    case SupportLevel::unsupported: return "unsupported";
    case SupportLevel::unknown: return "unknown";
  }
  return "unknown";
}

std::string SupportVerdict::describe() const {
  if (level == SupportLevel::unknown)
    return what + ": unknown (no source in the support matrix" +
           (engine.empty() ? std::string(")") : " for " + engine + ")");
  return fmt::format("{}: {} ({}{})", what, to_string(level), source,
                     date.empty() ? "" : ", " + date);
}

void check_engine_id(const std::string& engine) {
  if (std::find(kEngineIds.begin(), kEngineIds.end(), engine) == kEngineIds.end())
    throw InputError::unknown_name("--engine", engine, kEngineIds);
}

bool SupportEntry::matches(const Accelerator& a) const {
  if (!prefix_of(a.vendor, vendor)) return false;
  if (!arch.empty() && std::none_of(arch.begin(), arch.end(),
                                    [&](const std::string& p) { return prefix_of(a.arch, p); }))
    return false;
  if (accelerators.empty()) return true;
  return std::any_of(accelerators.begin(), accelerators.end(), [&](const std::string& id) {
    const std::string l = to_lower(id);
    if (to_lower(a.id) == l) return true;
    return std::any_of(a.aliases.begin(), a.aliases.end(),
                       [&](const std::string& al) { return to_lower(al) == l; });
  });
}

void SupportMatrix::load(const Json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("support")) return;
  const Json& s = doc.at("support");
  const std::string where = origin + ": support";
  if (!s.is_object() || !s.contains("entries") || !s.at("entries").is_array())
    throw InputError(where + ".entries", "missing", "an array of support entries");
  const Json& list = s.at("entries");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& e = list[i];
    const std::string at = fmt::format("{}.entries[{}]", where, i);
    if (!e.is_object()) throw InputError(at, e.dump().substr(0, 40), "an object");
    SupportEntry entry;
    entry.vendor = require_string(e, "vendor", at);
    entry.arch = strings(e, "arch", at);
    entry.accelerators = strings(e, "accelerators", at);
    entry.engine = require_string(e, "engine", at);
    if (std::find(kEngineIds.begin(), kEngineIds.end(), entry.engine) == kEngineIds.end())
      throw InputError::unknown_name(at + ".engine", entry.engine, kEngineIds);
    entry.source = require_string(e, "source", at);
    entry.date = require_string(e, "date", at);
    entry.weights = levels(e, "weights", kFormats, at);
    entry.kv = levels(e, "kv", kFormats, at);
    entry.features = levels(e, "features", kSupportFeatures, at);
    entries_.push_back(std::move(entry));
  }
}

const SupportMatrix& SupportMatrix::builtin() {
  static const SupportMatrix m = [] {
    SupportMatrix b;
    for (const auto& f : data::embedded_files()) {
      if (f.path.rfind("support/", 0) != 0) continue;
      b.load(parse_document(f.content, std::string(f.path)), "data/" + std::string(f.path));
    }
    return b;
  }();
  return m;
}

SupportMatrix SupportMatrix::with_user_files(const std::vector<std::string>& paths) {
  SupportMatrix m = builtin();
  for (const auto& p : paths) m.load(load_document(p), p);
  return m;
}

std::vector<std::string> SupportMatrix::engines_for(const Accelerator& a) const {
  std::vector<std::string> out;
  for (const auto& id : kEngineIds) {
    if (std::any_of(entries_.begin(), entries_.end(),
                    [&](const SupportEntry& e) { return e.engine == id && e.matches(a); }))
      out.push_back(id);
  }
  return out;
}

SupportVerdict SupportMatrix::verdict(const Accelerator& a, Kind kind, const std::string& key,
                                      const std::string& engine) const {
  const char* noun = kind == Kind::weights ? " weights" : kind == Kind::kv ? " KV cache" : "";
  // One engine: its latest matching entry that states the key, else the hardware rule.
  auto for_engine = [&](const std::string& eng) {
    SupportVerdict v;
    v.engine = eng;
    v.what = fmt::format("{}{} on {} with {}", key, noun, a.id, eng);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (it->engine != eng || !it->matches(a)) continue;
      const auto& list = kind == Kind::weights ? it->weights : kind == Kind::kv ? it->kv : it->features;
      const auto found = std::find_if(list.begin(), list.end(), [&](const auto& kl) { return kl.first == key; });
      if (found == list.end()) continue;
      v.level = found->second;
      v.source = it->source;
      v.date = it->date;
      return v;
    }
    const bool hw_missing = kind != Kind::feature &&
                            std::find(a.unsupported_precisions.begin(), a.unsupported_precisions.end(),
                                      key) != a.unsupported_precisions.end();
    if (hw_missing) {
      v.level = SupportLevel::unsupported;
      v.source = "the hardware has no " + key + " path (catalog unsupported_precisions of " + a.id + ")";
    }
    return v;
  };
  if (!engine.empty()) return for_engine(engine);
  std::vector<std::string> engines = engines_for(a);
  if (engines.empty()) {
    SupportVerdict v = for_engine("");
    v.what = fmt::format("{}{} on {}", key, noun, a.id);
    return v;
  }
  SupportVerdict best;
  bool first = true;
  for (const auto& eng : engines) {
    SupportVerdict v = for_engine(eng);
    if (first || rank(v.level) > rank(best.level)) best = v;
    first = false;
  }
  return best;
}

SupportVerdict SupportMatrix::weights(const Accelerator& a, Precision p, const std::string& engine) const {
  return verdict(a, Kind::weights, std::string(info(p).peak_key), engine);
}

SupportVerdict SupportMatrix::kv(const Accelerator& a, Precision p, const std::string& engine) const {
  return verdict(a, Kind::kv, std::string(info(p).peak_key), engine);
}

SupportVerdict SupportMatrix::feature(const Accelerator& a, const std::string& feature,
                                      const std::string& engine) const {
  return verdict(a, Kind::feature, feature, engine);
}

}  // namespace memwall
