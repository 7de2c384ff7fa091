#include "memwall/cost/prices.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall::cost {
namespace {

// {"value": x, "source": "...", "date": "..."} or a bare number (user files); value must be finite
// and within [lo, hi].
SourcedValue read_value(const Json& v, const std::string& where, double lo, double hi,
                        const std::string& origin) {
  SourcedValue out;
  const Json* number = &v;
  if (v.is_object()) {
    if (!v.contains("value")) throw InputError(where + ": missing field 'value'");
    number = &v.at("value");
    if (v.contains("source")) out.source = v.at("source").is_string() ? v.at("source").get<std::string>() : "";
    if (v.contains("date")) out.date = v.at("date").is_string() ? v.at("date").get<std::string>() : "";
  }
  if (number->is_null()) return out;  // explicitly unknown
  if (!number->is_number()) throw InputError(where, number->dump(), "a number or null");
  const double x = number->get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    throw InputError(where, number->dump(),
                     "a finite number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  out.value = x;
  if (out.source.empty()) out.source = "user file " + origin;
  return out;
}

// A table of sourced figures (`Prices` = FacilityPrices or PlatformPrices): each key of `f` is one
// of `fields`, its value a number in the field's range; keys starting with '_' are comments.
template <class Prices>
struct PriceField {
  const char* key;
  SourcedValue Prices::*member;
  double lo, hi;
};

template <class Prices, size_t N>
void read_fields(const Json& f, Prices& out, const PriceField<Prices> (&fields)[N],
                 const std::string& where, const std::string& origin) {
  if (!f.is_object()) throw InputError(where, f.dump().substr(0, 40), "an object");
  for (const auto& [key, value] : f.items()) {
    if (!key.empty() && key[0] == '_') continue;  // comments
    const PriceField<Prices>* field = nullptr;
    for (const auto& candidate : fields) {
      if (key == candidate.key) field = &candidate;
    }
    if (!field) {
      std::vector<std::string> known;
      for (const auto& candidate : fields) known.emplace_back(candidate.key);
      throw InputError::unknown_name(where + " key", key, known);
    }
    out.*(field->member) = read_value(value, where + "." + key, field->lo, field->hi, origin);
  }
}

void read_facility(const Json& f, FacilityPrices& out, const std::string& where,
                   const std::string& origin) {
  // Ranges reject nonsense, not unusual but real values: PUE 1..5, power 0..10 $/kWh, etc.
  static const PriceField<FacilityPrices> fields[] = {
      {"electricity_usd_per_kwh", &FacilityPrices::electricity_usd_per_kwh, 0.0, 10.0},
      {"pue", &FacilityPrices::pue, 1.0, 5.0},
      {"hosting_usd_per_kw_month", &FacilityPrices::hosting_usd_per_kw_month, 0.0, 1e5},
      {"life_years", &FacilityPrices::life_years, 0.1, 30.0},
      {"idle_power_fraction", &FacilityPrices::idle_power_fraction, 0.0, 1.0},
  };
  read_fields(f, out, fields, where, origin);
}

void read_platform(const Json& f, PlatformPrices& out, const std::string& where,
                   const std::string& origin) {
  static const PriceField<PlatformPrices> fields[] = {
      {"host_platform_usd", &PlatformPrices::host_platform_usd, 0.0, 1e7},
      {"host_power_w", &PlatformPrices::host_power_w, 0.0, 1e6},
      {"switch_port_usd", &PlatformPrices::switch_port_usd, 0.0, 1e6},
      {"optics_per_port_usd", &PlatformPrices::optics_per_port_usd, 0.0, 1e6},
  };
  read_fields(f, out, fields, where, origin);
}

// An array of entries under `key`, each read by `read_entry(entry, where)`.
template <class ReadEntry>
void read_list(const Json& p, const char* key, const std::string& where, ReadEntry read_entry) {
  if (!p.contains(key)) return;
  const Json& list = p.at(key);
  const std::string at = where + "." + key;
  if (!list.is_array()) throw InputError(at, list.dump().substr(0, 40), "an array");
  for (size_t i = 0; i < list.size(); ++i) read_entry(list[i], at + "[" + std::to_string(i) + "]");
}

// Host CPUs, DRAM by kind, host platforms by kind and NVMe (data/prices/hosts.json).
void read_hosts(const Json& p, std::vector<HostPrices>& hosts, std::vector<MemoryPrices>& memory,
                std::vector<HostPlatformPrices>& platforms, StoragePrices& storage,
                const std::string& where, const std::string& origin) {
  auto optional_value = [&](const Json& e, const char* key, const std::string& at, double lo, double hi) {
    return e.contains(key) ? read_value(e.at(key), at + "." + key, lo, hi, origin) : SourcedValue{};
  };
  read_list(p, "hosts", where, [&](const Json& e, const std::string& at) {
    hosts.push_back({require_string(e, "host", at), optional_value(e, "cpu_usd", at, 1.0, 1e6),
                     optional_value(e, "tdp_w", at, 1.0, 5000.0)});
  });
  read_list(p, "memory", where, [&](const Json& e, const std::string& at) {
    memory.push_back({to_lower(require_string(e, "kind", at)), optional_value(e, "usd_per_gb", at, 0.0, 1e4)});
  });
  read_list(p, "host_platforms", where, [&](const Json& e, const std::string& at) {
    platforms.push_back({to_lower(require_string(e, "kind", at)), optional_value(e, "usd", at, 0.0, 1e7)});
  });
  if (p.contains("storage")) {
    static const PriceField<StoragePrices> fields[] = {
        {"nvme_usd_per_tb", &StoragePrices::nvme_usd_per_tb, 0.0, 1e6},
    };
    read_fields(p.at("storage"), storage, fields, where + ".storage", origin);
  }
}

}  // namespace

void PriceBook::load(const Json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("prices")) return;
  const Json& p = doc.at("prices");
  const std::string where = origin + ": prices";
  if (!p.is_object()) throw InputError(where, p.dump().substr(0, 40), "an object");
  if (p.contains("facility")) read_facility(p.at("facility"), facility_, where + ".facility", origin);
  if (p.contains("platform")) read_platform(p.at("platform"), platform_, where + ".platform", origin);
  read_hosts(p, hosts_, memory_, host_platforms_, storage_, where, origin);
  if (p.contains("nodes")) {
    const Json& nodes = p.at("nodes");
    if (!nodes.is_array()) throw InputError(where + ".nodes", nodes.dump().substr(0, 40), "an array");
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Json& e = nodes[i];
      const std::string at = where + ".nodes[" + std::to_string(i) + "]";
      NodePrices n;
      n.node = require_string(e, "node", at);
      if (e.contains("capex_usd")) n.capex_usd = read_value(e.at("capex_usd"), at + ".capex_usd", 1.0, 1e9, origin);
      if (e.contains("platform_usd"))
        n.platform_usd = read_value(e.at("platform_usd"), at + ".platform_usd", 0.0, 1e8, origin);
      if (e.contains("power_w")) n.power_w = read_value(e.at("power_w"), at + ".power_w", 1.0, 1e7, origin);
      if (e.contains("cloud_usd_per_node_hour"))
        n.cloud_usd_per_node_hour =
            read_value(e.at("cloud_usd_per_node_hour"), at + ".cloud_usd_per_node_hour", 1e-3, 1e6, origin);
      nodes_.push_back(std::move(n));
    }
  }
  if (!p.contains("accelerators")) return;
  const Json& list = p.at("accelerators");
  if (!list.is_array()) throw InputError(where + ".accelerators", list.dump().substr(0, 40), "an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& e = list[i];
    const std::string at = where + ".accelerators[" + std::to_string(i) + "]";
    AcceleratorPrices entry;
    entry.accelerator = require_string(e, "accelerator", at);
    if (e.contains("capex_usd")) {
      entry.capex_usd = read_value(e.at("capex_usd"), at + ".capex_usd", 1.0, 1e8, origin);
    }
    if (e.contains("cloud_usd_per_gpu_hour")) {
      entry.cloud_usd_per_gpu_hour =
          read_value(e.at("cloud_usd_per_gpu_hour"), at + ".cloud_usd_per_gpu_hour", 1e-4, 1e4, origin);
    }
    entry.from_user = origin.rfind("data/", 0) != 0;
    accelerators_.push_back(std::move(entry));  // find() merges entries in order
  }
}

PriceBook PriceBook::builtin() {
  static const PriceBook book = [] {
    PriceBook b;
    for (const auto& f : data::embedded_files()) {
      if (f.path.rfind("prices/", 0) != 0) continue;
      b.load(parse_document(f.content, std::string(f.path)), "data/" + std::string(f.path));
    }
    return b;
  }();
  return book;
}

PriceBook PriceBook::with_user_files(const std::vector<std::string>& paths) {
  PriceBook b = builtin();
  for (const auto& path : paths) b.load(load_document(path), path);
  return b;
}

std::optional<AcceleratorPrices> PriceBook::find(const Accelerator& a) const {
  const auto named = [&](const std::string& id) {
    return iequals(id, a.id) ||
           std::any_of(a.aliases.begin(), a.aliases.end(), [&](const std::string& al) { return iequals(id, al); });
  };
  std::optional<AcceleratorPrices> out;
  for (const auto& entry : accelerators_) {
    if (!named(entry.accelerator)) continue;
    if (!out) {
      out = entry;
      out->accelerator = a.id;
      continue;
    }
    if (entry.capex_usd.known()) {
      out->capex_usd = entry.capex_usd;
      out->from_user = entry.from_user;
    }
    if (entry.cloud_usd_per_gpu_hour.known()) out->cloud_usd_per_gpu_hour = entry.cloud_usd_per_gpu_hour;
  }
  return out;
}

std::optional<NodePrices> PriceBook::find_node(const std::string& node_id) const {
  std::optional<NodePrices> out;
  for (const auto& entry : nodes_) {
    if (!iequals(entry.node, node_id)) continue;
    if (!out) {
      out = entry;
      continue;
    }
    for (auto member : {&NodePrices::capex_usd, &NodePrices::platform_usd, &NodePrices::power_w,
                        &NodePrices::cloud_usd_per_node_hour}) {
      if ((entry.*member).known()) (*out).*member = entry.*member;
    }
  }
  return out;
}

std::optional<HostPrices> PriceBook::find_host(const std::string& id,
                                               const std::vector<std::string>& aliases) const {
  std::optional<HostPrices> out;
  for (const auto& entry : hosts_) {
    if (!iequals(entry.host, id) &&
        std::none_of(aliases.begin(), aliases.end(), [&](const std::string& al) { return iequals(entry.host, al); }))
      continue;
    if (!out) {
      out = entry;
      out->host = id;
      continue;
    }
    if (entry.cpu_usd.known()) out->cpu_usd = entry.cpu_usd;
    if (entry.tdp_w.known()) out->tdp_w = entry.tdp_w;
  }
  return out;
}

namespace {
// The figure of the last entry of `kind` that gives one.
template <class Entry>
std::optional<SourcedValue> last_known(const std::vector<Entry>& entries, const std::string& kind,
                                       SourcedValue Entry::*member) {
  std::optional<SourcedValue> out;
  for (const auto& e : entries)
    if (e.kind == to_lower(kind) && (e.*member).known()) out = e.*member;
  return out;
}
}  // namespace

std::optional<SourcedValue> PriceBook::memory_usd_per_gb(const std::string& kind) const {
  return last_known(memory_, kind, &MemoryPrices::usd_per_gb);
}

std::optional<SourcedValue> PriceBook::host_platform_usd(const std::string& kind) const {
  return last_known(host_platforms_, kind, &HostPlatformPrices::usd);
}

}  // namespace memwall::cost
