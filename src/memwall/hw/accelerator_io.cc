// Accelerator entries in the format of data/hw/accelerators.json (the reference table's field names
// and units: memory_gb the datasheet's memory figure in memory_unit, "GiB" or "GB" (default GB),
// mem_bw_gbps and *_gbps decimal GB/s, tflops dense TFLOP/s with int8/int4 in TOPS, tdp_w watts,
// price_usd dollars). null means unknown and stays unknown.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall {
namespace {

// Columns of the dense-peak table (PrecisionInfo::peak_key values).
constexpr std::array<std::string_view, 8> kPeakKeys = {"fp32", "tf32", "fp16", "bf16",
                                                       "fp8",  "int8", "int4", "fp4"};

// clang-format off
constexpr std::array<std::string_view, 36> kFields = {
    "id", "aliases", "extends", "vendor", "name", "arch", "form_factor", "memory_type",
    "confidence", "memory_gb", "memory_unit", "memory_unit_basis", "memory_reported_mib", "mem_bw_gbps", "tflops", "tflops_basis", "tflops_accumulate", "tflops_fp32_accumulate", "unsupported_precisions",
    "dense_method", "scaleup_interconnect", "scaleup_bw_gbps", "scaleup_bw_direction",
    "scaleup_bw_per_direction_gbps_derived", "pcie", "host_bandwidth_per_direction_gbps", "tdp_w",
    "compute_units", "year", "price_usd", "price_usd_range", "price_source", "sources", "notes",
    "figure_sources", "risk"};
// clang-format on

// Plausibility limits: values beyond these are typing errors, not hardware (a 100 TB device,
// 1 PB/s of memory bandwidth, 10 EFLOP/s dense on one chip).
constexpr double kMaxMemoryGb = 1e5;
constexpr double kMaxBandwidthGbps = 1e6;
constexpr double kMaxTflops = 1e7;
constexpr double kMaxWatts = 1e5;
constexpr double kMaxDollars = 1e8;

template <size_t N>
std::string join(const std::array<std::string_view, N>& a) {
  return fmt::format("{}", fmt::join(a, ", "));
}

template <size_t N>
bool contains(const std::array<std::string_view, N>& a, std::string_view s) {
  return std::find(a.begin(), a.end(), s) != a.end();
}

// A value as it appears in an error message; never throws, even for text that is not UTF-8.
std::string shown(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool is_null_or_missing(const Json& e, const char* key) {
  auto it = e.find(key);
  return it == e.end() || it->is_null();
}

std::string opt_string(const Json& e, const char* key, const std::string& where) {
  if (is_null_or_missing(e, key)) return {};
  const Json& v = e.at(key);
  if (!v.is_string()) throw InputError(where + "." + key, shown(v), "a string");
  return v.get<std::string>();
}

std::vector<std::string> string_list(const Json& e, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (is_null_or_missing(e, key)) return out;
  const Json& v = e.at(key);
  if (!v.is_array()) throw InputError(where + "." + key, shown(v), "a list of strings");
  for (const auto& s : v) {
    if (!s.is_string()) throw InputError(where + "." + key, shown(s), "a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// A positive finite number no larger than `max`, or nullopt for null/missing.
std::optional<double> opt_positive(const Json& v, const std::string& field, double max) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) throw InputError(field, shown(v), "a number or null (unknown)");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d <= 0 || d > max)
    throw InputError(field, shown(v), fmt::format("a number in (0, {:g}] or null (unknown)", max));
  return d;
}

std::optional<double> opt_positive(const Json& e, const char* key, const std::string& where,
                                   double max) {
  if (is_null_or_missing(e, key)) return std::nullopt;
  return opt_positive(e.at(key), where + "." + key, max);
}

std::optional<int> opt_int(const Json& e, const char* key, const std::string& where, int lo,
                           int hi) {
  if (is_null_or_missing(e, key)) return std::nullopt;
  const Json& v = e.at(key);
  const std::string allowed = fmt::format("a whole number in [{}, {}] or null (unknown)", lo, hi);
  if (!v.is_number()) throw InputError(where + "." + key, shown(v), allowed);
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || d < lo || d > hi)
    throw InputError(where + "." + key, shown(v), allowed);
  return static_cast<int>(d);
}

// Empty text is written as null, as the reference table writes an unknown.
Json text(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

}  // namespace

// Values are stored in SI units; the file keeps the datasheet's decimal units. Rounding to 12
// significant digits undoes the binary noise of the x1e9 then /1e9 round trip (989.4, not
// 989.4000000000001) at any magnitude.
double to_unit(double si, double unit) {
  return std::strtod(fmt::format("{:.12g}", si / unit).c_str(), nullptr);
}

Accelerator accelerator_from_json(const Json& e, const std::string& where) {
  if (!e.is_object())
    throw InputError(fmt::format("{}: expected an object, got {}", where, e.type_name()));
  for (const auto& [key, value] : e.items()) {
    if (!contains(kFields, key))
      throw InputError(
          fmt::format("{}: unknown field '{}'; allowed: {}", where, key, join(kFields)));
  }
  Accelerator a;
  a.id = require_string(e, "id", where);
  if (a.id.empty() || a.id.size() > 100)
    throw InputError(where + ".id", a.id, "a non-empty name of at most 100 characters");
  const std::string w = fmt::format("{} ({})", where, a.id);
  a.aliases = string_list(e, "aliases", w);
  for (const auto& alias : a.aliases)
    if (alias.empty() || alias.size() > 100)
      throw InputError(w + ".aliases", alias, "non-empty names of at most 100 characters");
  a.vendor = opt_string(e, "vendor", w);
  a.name = opt_string(e, "name", w);
  a.arch = opt_string(e, "arch", w);
  a.form_factor = opt_string(e, "form_factor", w);
  a.memory_type = opt_string(e, "memory_type", w);
  a.confidence = opt_string(e, "confidence", w);
  (void)opt_string(e, "tflops_basis", w);  // the same convention for every row: dense peaks

  if (!is_null_or_missing(e, "memory_unit")) {
    a.memory_unit = opt_string(e, "memory_unit", w);
    if (memory_unit_bytes(a.memory_unit) <= 0)
      throw InputError(w + ".memory_unit", a.memory_unit,
                       "\"GiB\" (2^30 bytes, as HBM/GDDR capacities are) or \"GB\" (1e9 bytes)");
  }
  a.memory_unit_basis = opt_string(e, "memory_unit_basis", w);
  if (auto figure = opt_positive(e, "memory_gb", w, kMaxMemoryGb))
    a.memory = Bytes(*figure * memory_unit_bytes(a.memory_unit));
  if (auto mib = opt_positive(e, "memory_reported_mib", w, kMaxMemoryGb * 1024)) {
    a.memory_reported = Bytes(*mib * kMiB);
    // A driver reports what the board has, less its reservations: never more.
    if (!a.memory || a.memory_reported->value() > a.memory->value() * (1 + 1e-9))
      throw InputError(w + ".memory_reported_mib", fmt::format("{}", *mib),
                       a.memory ? fmt::format("at most the board's memory_gb ({:.0f} MiB)",
                                              a.memory->value() / kMiB)
                                : std::string("a value only beside a known memory_gb"));
  }
  if (auto bw = opt_positive(e, "mem_bw_gbps", w, kMaxBandwidthGbps))
    a.memory_bandwidth = BytesPerSecond(*bw * kGiga);

  if (!is_null_or_missing(e, "tflops")) {
    const Json& t = e.at("tflops");
    if (!t.is_object())
      throw InputError(w + ".tflops", shown(t), "an object of precision: TFLOP/s");
    for (const auto& [key, value] : t.items()) {
      if (!contains(kPeakKeys, key)) throw InputError(w + ".tflops", key, join(kPeakKeys));
      auto v = opt_positive(value, w + ".tflops." + key, kMaxTflops);
      a.dense_peak[key] = v ? std::optional(FlopsPerSecond(*v * kTera)) : std::nullopt;
    }
  }
  if (!is_null_or_missing(e, "tflops_accumulate")) {
    const Json& t = e.at("tflops_accumulate");
    const std::string field = w + ".tflops_accumulate";
    if (!t.is_object()) throw InputError(field, shown(t), "an object of precision: fp16 | fp32");
    for (const auto& [key, value] : t.items()) {
      if (!contains(kPeakKeys, key)) throw InputError(field, key, join(kPeakKeys));
      if (!value.is_string() || (value != "fp16" && value != "fp32"))
        throw InputError(field + "." + key, shown(value), "\"fp16\" or \"fp32\"");
      a.peak_accumulate[key] = value.get<std::string>();
    }
  }
  if (!is_null_or_missing(e, "tflops_fp32_accumulate")) {
    const Json& t = e.at("tflops_fp32_accumulate");
    const std::string field = w + ".tflops_fp32_accumulate";
    if (!t.is_object()) throw InputError(field, shown(t), "an object of precision: TFLOP/s");
    for (const auto& [key, value] : t.items()) {
      // Only beside an FP16-accumulate figure of the same column, and never above it.
      auto acc = a.peak_accumulate.find(key);
      auto dense = a.dense_peak.find(key);
      if (acc == a.peak_accumulate.end() || acc->second != "fp16" || dense == a.dense_peak.end() ||
          !dense->second)
        throw InputError(field, key,
                         "a column whose tflops figure is known and tflops_accumulate is fp16");
      const auto v = opt_positive(value, field + "." + key, dense->second->value() / kTera);
      if (v) a.fp32_accumulate_peak[key] = FlopsPerSecond(*v * kTera);
    }
  }
  a.unsupported_precisions = string_list(e, "unsupported_precisions", w);
  for (const auto& p : a.unsupported_precisions)
    if (!contains(kPeakKeys, p))
      throw InputError(w + ".unsupported_precisions", p, join(kPeakKeys));
  a.dense_method = opt_string(e, "dense_method", w);

  a.scaleup_interconnect = opt_string(e, "scaleup_interconnect", w);
  if (auto bw = opt_positive(e, "scaleup_bw_gbps", w, kMaxBandwidthGbps))
    a.scaleup_bandwidth_published = BytesPerSecond(*bw * kGiga);
  a.scaleup_bandwidth_direction = opt_string(e, "scaleup_bw_direction", w);
  if (auto bw = opt_positive(e, "scaleup_bw_per_direction_gbps_derived", w, kMaxBandwidthGbps))
    a.scaleup_bandwidth_per_direction = BytesPerSecond(*bw * kGiga);
  a.host_link = opt_string(e, "pcie", w);
  if (auto bw = opt_positive(e, "host_bandwidth_per_direction_gbps", w, kMaxBandwidthGbps))
    a.host_bandwidth_per_direction = BytesPerSecond(*bw * kGiga);

  if (auto p = opt_positive(e, "tdp_w", w, kMaxWatts)) a.tdp = Watts(*p);
  a.compute_units = opt_int(e, "compute_units", w, 1, 1'000'000);
  a.year = opt_int(e, "year", w, 1990, 2100);
  if (auto p = opt_positive(e, "price_usd", w, kMaxDollars)) a.price = Dollars(*p);
  if (!is_null_or_missing(e, "price_usd_range")) {
    const Json& r = e.at("price_usd_range");
    const std::string field = w + ".price_usd_range";
    if (!r.is_array() || r.size() != 2)
      throw InputError(field, shown(r), "[low, high] in US dollars, or null");
    const auto lo = opt_positive(r[0], field, kMaxDollars);
    const auto hi = opt_positive(r[1], field, kMaxDollars);
    if (!lo || !hi || *lo > *hi)
      throw InputError(field, shown(r), "[low, high] in US dollars with low <= high");
    a.price_low = Dollars(*lo);
    a.price_high = Dollars(*hi);
  }
  a.price_source = opt_string(e, "price_source", w);
  a.sources = string_list(e, "sources", w);
  a.notes = opt_string(e, "notes", w);
  a.risk = opt_string(e, "risk", w);
  if (!is_null_or_missing(e, "figure_sources")) {
    const Json& f = e.at("figure_sources");
    const std::string field = w + ".figure_sources";
    if (!f.is_object()) throw InputError(field, shown(f), "an object of field name -> {source, confidence, range}");
    for (const auto& [key, v] : f.items()) {
      const std::string at = field + "." + key;
      if (!v.is_object()) throw InputError(at, shown(v), "an object {source, confidence, range}");
      FigureSource s;
      s.source = require_string(v, "source", at);
      s.confidence = opt_string(v, "confidence", at);
      if (!s.confidence.empty() && s.confidence != "high" && s.confidence != "medium" && s.confidence != "low")
        throw InputError(at + ".confidence", s.confidence, "high, medium or low");
      if (!is_null_or_missing(v, "range")) {
        const Json& r = v.at("range");
        if (!r.is_array() || r.size() != 2)
          throw InputError(at + ".range", shown(r), "[low, high] in the field's unit");
        s.low = opt_positive(r[0], at + ".range", kMaxTflops * 10);
        s.high = opt_positive(r[1], at + ".range", kMaxTflops * 10);
        if (!s.low || !s.high || *s.low > *s.high)
          throw InputError(at + ".range", shown(r), "[low, high] with 0 < low <= high");
      }
      a.figure_sources[key] = std::move(s);
    }
  }
  return a;
}

Json accelerator_to_json(const Accelerator& a) {
  Json t = Json::object();
  for (const auto& [key, value] : a.dense_peak) t[key] = json_in_unit(value, kTera);
  Json j = Json::object();
  j["id"] = a.id;
  j["aliases"] = a.aliases;
  j["vendor"] = text(a.vendor);
  j["name"] = text(a.name);
  j["arch"] = text(a.arch);
  j["memory_gb"] = json_in_unit(a.memory, memory_unit_bytes(a.memory_unit));
  j["memory_unit"] = a.memory_unit;
  j["memory_unit_basis"] = text(a.memory_unit_basis);
  j["memory_reported_mib"] = json_in_unit(a.memory_reported, kMiB);
  j["memory_type"] = text(a.memory_type);
  j["mem_bw_gbps"] = json_in_unit(a.memory_bandwidth, kGiga);
  j["tflops"] = t;
  if (!a.peak_accumulate.empty()) j["tflops_accumulate"] = a.peak_accumulate;
  if (!a.fp32_accumulate_peak.empty()) {
    Json f = Json::object();
    for (const auto& [key, value] : a.fp32_accumulate_peak) f[key] = to_unit(value.value(), kTera);
    j["tflops_fp32_accumulate"] = f;
  }
  j["unsupported_precisions"] = a.unsupported_precisions;
  j["dense_method"] = text(a.dense_method);
  j["scaleup_interconnect"] = text(a.scaleup_interconnect);
  j["scaleup_bw_gbps"] = json_in_unit(a.scaleup_bandwidth_published, kGiga);
  j["scaleup_bw_direction"] = text(a.scaleup_bandwidth_direction);
  j["scaleup_bw_per_direction_gbps_derived"] = json_in_unit(a.scaleup_bandwidth_per_direction, kGiga);
  j["pcie"] = text(a.host_link);
  j["host_bandwidth_per_direction_gbps"] = json_in_unit(a.host_bandwidth_per_direction, kGiga);
  j["tdp_w"] = json_in_unit(a.tdp, 1.0);
  j["compute_units"] = a.compute_units ? Json(*a.compute_units) : Json(nullptr);
  j["form_factor"] = text(a.form_factor);
  j["year"] = a.year ? Json(*a.year) : Json(nullptr);
  j["price_usd"] = json_in_unit(a.price, 1.0);
  j["price_usd_range"] = a.price_low && a.price_high
                             ? Json::array({a.price_low->value(), a.price_high->value()})
                             : Json(nullptr);
  j["price_source"] = text(a.price_source);
  j["confidence"] = text(a.confidence);
  j["sources"] = a.sources;
  j["notes"] = text(a.notes);
  if (!a.risk.empty()) j["risk"] = a.risk;
  if (!a.figure_sources.empty()) {
    Json f = Json::object();
    for (const auto& [key, s] : a.figure_sources) {
      Json e{{"source", s.source}, {"confidence", text(s.confidence)}};
      e["range"] = s.low && s.high ? Json::array({*s.low, *s.high}) : Json(nullptr);
      f[key] = e;
    }
    j["figure_sources"] = f;
  }
  return j;
}

}  // namespace memwall
