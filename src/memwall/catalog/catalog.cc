#include "memwall/catalog/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <set>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/hw/host_io.h"
#include "memwall/hw/hw_io.h"
#include "memwall/model/zoo.h"

namespace memwall {
namespace {

constexpr std::array<std::string_view, 5> kEntryKinds = {"accelerators", "nodes", "fabrics",
                                                         "models", "hosts"};
// Top-level keys a user file may carry that this loader does not read: a free-text description
// the price list read by the cost module and the software facts read by the scorecard.
constexpr std::array<std::string_view, 5> kOtherKeys = {"description", "prices", "ecosystem",
                                                         "support", "engine"};

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix;
}

template <class T>
std::vector<std::string> ids(const std::vector<T>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.id);
  return out;
}

// Every name of an entry: its id, and its aliases where the kind has them.
template <class T>
std::vector<std::string> names_of(const T& x) {
  std::vector<std::string> names{x.id};
  if constexpr (requires { x.aliases; })
    names.insert(names.end(), x.aliases.begin(), x.aliases.end());
  return names;
}

template <class T>
const T* find_named(const std::vector<T>& v, const std::unordered_map<std::string, size_t>& index,
                    std::string_view name) {
  const auto it = index.find(to_lower(name));
  return it == index.end() ? nullptr : &v[it->second];
}

// Adds `x`, or replaces the entry with its id (keeping that entry's aliases when `x` gives none).
// Every id and alias must name exactly one entry.
template <class T>
void add_named(std::vector<T>& v, std::unordered_map<std::string, size_t>& index, T x,
               const char* what) {
  const auto found = index.find(to_lower(x.id));
  const bool replaces = found != index.end() && same_name(v[found->second].id, x.id);
  const size_t pos = replaces ? found->second : v.size();
  if constexpr (requires { x.aliases; })
    if (replaces && x.aliases.empty()) x.aliases = v[pos].aliases;
  const auto names = names_of(x);
  std::vector<std::string> keys;
  for (const auto& name : names) {
    std::string key = to_lower(name);
    const auto it = index.find(key);
    if (it != index.end() && !(replaces && it->second == pos))
      throw InputError(
          fmt::format("{} '{}': the name '{}' already names {} '{}'; choose another "
                      "alias",
                      what, x.id, name, what, v[it->second].id));
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      throw InputError(fmt::format("{} '{}': the name '{}' is given twice", what, x.id, name));
    keys.push_back(std::move(key));
  }
  if (replaces) {
    for (const auto& name : names_of(v[pos])) index.erase(to_lower(name));
    v[pos] = std::move(x);
  } else {
    v.push_back(std::move(x));
  }
  for (auto& key : keys) index.emplace(std::move(key), pos);
}

std::string entry_id(const Json& e) {
  if (e.is_object()) {
    auto it = e.find("id");
    if (it != e.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

// Whether an embedded file can hold catalog entries: a JSON text can have one of their keys only
// if it spells the quoted name, or escapes a character (\uXXXX). The messages, engine and monitor
// files are a third of the embedded text; skipping them saves their parse at every start.
bool may_hold_entries(std::string_view path, std::string_view content) {
  if (path.size() < 5 || path.substr(path.size() - 5) != ".json") return true;
  if (content.find("\\u") != std::string_view::npos) return true;
  return std::any_of(kEntryKinds.begin(), kEntryKinds.end(), [&](std::string_view kind) {
    return content.find("\"" + std::string(kind) + "\"") != std::string_view::npos;
  });
}

// The built-in catalog: every embedded data file, parsed once. Files under data/ may carry keys
// other modules read (prices ...), so unknown top-level keys are skipped here, not rejected.
const Catalog& parsed_builtin() {
  static const Catalog catalog = [] {
    Catalog c;
    for (const auto& f : data::embedded_files()) {
      if (!may_hold_entries(f.path, f.content)) continue;
      const std::string origin = "built-in data/" + std::string(f.path);
      Json doc = parse_document(f.content, origin);
      if (!doc.is_object()) continue;
      Json entries = Json::object();
      for (auto kind : kEntryKinds) {
        auto it = doc.find(std::string(kind));
        if (it != doc.end()) entries[std::string(kind)] = std::move(*it);
      }
      c.load(entries, origin);
    }
    return c;
  }();
  return catalog;
}

}  // namespace

const Catalog& Catalog::builtin() {
  return parsed_builtin();
}

Catalog Catalog::with_user_files(const std::vector<std::string>& paths) {
  Catalog c = builtin();
  for (const auto& p : paths) c.load_file(p);
  return c;
}

void Catalog::load_file(const std::string& path) {
  load(load_document(path), path);
}

void Catalog::load(const Json& doc, const std::string& origin) {
  if (!doc.is_object())
    throw InputError(fmt::format("{}: expected an object with the keys {}; got {}", origin,
                                 fmt::join(kEntryKinds, ", "), doc.type_name()));
  for (const auto& [key, value] : doc.items()) {
    const bool known =
        std::find(kEntryKinds.begin(), kEntryKinds.end(), key) != kEntryKinds.end() ||
        std::find(kOtherKeys.begin(), kOtherKeys.end(), key) != kOtherKeys.end();
    if (!known)
      throw InputError(fmt::format("{}: unknown top-level key '{}'; allowed: {}, {}", origin, key,
                                   fmt::join(kEntryKinds, ", "), fmt::join(kOtherKeys, ", ")));
  }
  for (auto kind_view : kEntryKinds) {
    const std::string kind(kind_view);
    auto it = doc.find(kind);
    if (it == doc.end() || it->is_null()) continue;
    if (!it->is_array())
      throw InputError(
          fmt::format("{}: '{}' must be a list of entries, got {}", origin, kind, it->type_name()));
    std::set<std::string> seen;  // the same id twice in one file is a mistake, not an override
    for (size_t i = 0; i < it->size(); ++i) {
      const Json& e = (*it)[i];
      const std::string where = fmt::format("{}: {}[{}]", origin, kind, i);
      const std::string id = entry_id(e);
      if (!id.empty() && !seen.insert(to_lower(id)).second)
        throw InputError(fmt::format("{}: id '{}' appears twice in this file", where, id));
      if (kind == "accelerators") {
        add_accelerator_entry(e, where);
      } else if (kind == "nodes") {
        Node n = node_from_json(e, where);
        if (!find_accelerator(n.accelerator))
          throw InputError::unknown_name(where + ".accelerator", n.accelerator,
                                         accelerator_names());
        add(std::move(n));
      } else if (kind == "fabrics") {
        add(fabric_from_json(e, where));
      } else if (kind == "hosts") {
        add(host_from_json(e, where));
      } else {
        add(model_from_json(e, where));
      }
    }
  }
}

void Catalog::add_accelerator_entry(const Json& e, const std::string& where) {
  auto ext = e.is_object() ? e.find("extends") : e.end();
  // Name clashes found by add() are reported with the file and entry they came from.
  auto add_from_here = [&](Accelerator a) {
    try {
      add(std::move(a));
    } catch (const InputError& err) {
      throw InputError(fmt::format("{}: {}", where, err.what()));
    }
  };
  if (!e.is_object() || ext == e.end() || ext->is_null()) {
    add_from_here(accelerator_from_json(e, where));
    return;
  }
  if (!ext->is_string())
    throw InputError(where + ".extends", ext->dump(-1, ' ', false, Json::error_handler_t::replace),
                     "an accelerator id");
  const Accelerator* base = find_accelerator(ext->get<std::string>());
  if (!base)
    throw InputError::unknown_name(where + ".extends", ext->get<std::string>(),
                                   accelerator_names());
  const std::string id = require_string(e, "id", where);
  // Start from the base entry; fields given here replace the base's, per-precision peaks merge,
  // sources given here are added to the base's (its other values still come from them). A new
  // memory_gb keeps the base's memory_unit unless the entry gives its own.
  Json merged = accelerator_to_json(*base);
  if (!same_name(id, base->id)) merged["aliases"] = Json::array();  // aliases name one entry
  for (const auto& [key, value] : e.items()) {
    if (key == "extends") continue;
    if (key == "tflops" && value.is_object() && merged["tflops"].is_object()) {
      for (const auto& [p, v] : value.items()) merged["tflops"][p] = v;
    } else if (key == "sources" && value.is_array()) {
      for (const auto& s : value) merged["sources"].push_back(s);
    } else {
      merged[key] = value;
    }
  }
  // The base's memory unit carries over, but its evidence was for the base's figure.
  if ((e.contains("memory_gb") || e.contains("memory_unit")) && !e.contains("memory_unit_basis"))
    merged["memory_unit_basis"] = nullptr;
  // So was its driver-reported total.
  if ((e.contains("memory_gb") || e.contains("memory_unit")) && !e.contains("memory_reported_mib"))
    merged["memory_reported_mib"] = nullptr;
  add_from_here(accelerator_from_json(merged, where));
}

void Catalog::add(Accelerator a) {
  add_named(accelerators_, accelerator_index_, std::move(a), "accelerator");
}
void Catalog::add(Node n) {
  add_named(nodes_, node_index_, std::move(n), "node");
}
void Catalog::add(Fabric f) {
  add_named(fabrics_, fabric_index_, std::move(f), "fabric");
}
void Catalog::add(ModelSpec m) {
  add_named(models_, model_index_, std::move(m), "model");
}
void Catalog::add(Host h) {
  add_named(hosts_, host_index_, std::move(h), "host");
}

const Accelerator* Catalog::find_accelerator(std::string_view name) const {
  return find_named(accelerators_, accelerator_index_, name);
}
const Node* Catalog::find_node(std::string_view name) const {
  return find_named(nodes_, node_index_, name);
}
const Fabric* Catalog::find_fabric(std::string_view name) const {
  return find_named(fabrics_, fabric_index_, name);
}
const ModelSpec* Catalog::find_model(std::string_view name) const {
  return find_named(models_, model_index_, name);
}
const ModelSpec* Catalog::find_model_by_hf_repo(std::string_view repo) const {
  for (const std::string_view prefix : {"https://huggingface.co/", "huggingface.co/", "hf.co/"})
    if (repo.substr(0, prefix.size()) == prefix) repo.remove_prefix(prefix.size());
  const bool has_org = repo.find('/') != std::string_view::npos;
  const ModelSpec* found = nullptr;
  for (const auto& m : models_)
    for (const auto& r : m.hf_repos) {
      const std::string_view name = has_org ? std::string_view(r) : std::string_view(r).substr(r.find('/') + 1);
      if (!same_name(name, repo)) continue;
      if (found && found != &m)
        throw InputError(fmt::format("--model: '{}' names repositories of both {} and {}; give "
                                     "the organisation too (org/name)",
                                     repo, found->id, m.id));
      found = &m;
    }
  return found;
}

const Host* Catalog::find_host(std::string_view name) const {
  return find_named(hosts_, host_index_, name);
}

std::vector<std::string> Catalog::accelerator_names() const {
  std::vector<std::string> out;
  for (const auto& a : accelerators_) {
    out.push_back(a.id);
    out.insert(out.end(), a.aliases.begin(), a.aliases.end());
  }
  return out;
}
std::vector<std::string> Catalog::host_names() const {
  std::vector<std::string> out;
  for (const auto& h : hosts_) {
    out.push_back(h.id);
    out.insert(out.end(), h.aliases.begin(), h.aliases.end());
  }
  return out;
}
std::vector<std::string> Catalog::node_names() const {
  return ids(nodes_);
}
std::vector<std::string> Catalog::fabric_names() const {
  return ids(fabrics_);
}
std::vector<std::string> Catalog::model_names() const {
  return ids(models_);
}

const Accelerator& Catalog::accelerator(std::string_view name) const {
  if (const auto* a = find_accelerator(name)) return *a;
  throw InputError::unknown_name("--gpu", std::string(name), accelerator_names());
}

const Host& Catalog::host(std::string_view name) const {
  if (const auto* h = find_host(name)) return *h;
  throw InputError::unknown_name("--cpu", std::string(name), host_names());
}

const Node& Catalog::node(std::string_view name) const {
  if (const auto* n = find_node(name)) return *n;
  throw InputError::unknown_name("--node", std::string(name), node_names());
}

const Fabric& Catalog::fabric(std::string_view name) const {
  if (const auto* f = find_fabric(name)) return *f;
  throw InputError::unknown_name("--fabric", std::string(name), fabric_names());
}

ModelSpec Catalog::model(std::string_view name_or_path) const {
  if (const auto* m = find_model(name_or_path)) return *m;
  const std::string path(name_or_path);
  std::error_code ec;
  const bool is_file = std::filesystem::is_regular_file(path, ec);
  if (!is_file)
    if (const auto* m = find_model_by_hf_repo(name_or_path)) return *m;
  const bool looks_like_path = ends_with(path, ".json") || ends_with(path, ".yaml") ||
                               ends_with(path, ".yml") || path.find('/') != std::string::npos;
  if (!is_file && !looks_like_path) throw InputError::unknown_name("--model", path, model_names());
  const Json doc = load_document(path);
  if (!doc.is_object())
    throw InputError(
        fmt::format("{}: expected an object (a Hugging Face config.json or a memwall "
                    "model entry), got {}",
                    path, doc.type_name()));
  // A Hugging Face config always names its architecture family in model_type.
  if (doc.contains("model_type")) return import_hf_config(doc, path);
  if (doc.contains("models")) {
    const Json& models = doc["models"];
    if (models.is_array() && models.size() == 1) return model_from_json(models[0], path);
    throw InputError(fmt::format(
        "{}: a catalog file with several models; add it with --catalog and name the model", path));
  }
  if (doc.contains("id") && doc.contains("layers")) return model_from_json(doc, path);
  throw InputError(
      fmt::format("{}: neither a Hugging Face config.json (no 'model_type') nor a "
                  "memwall model entry (no 'id' and 'layers')",
                  path));
}

}  // namespace memwall
