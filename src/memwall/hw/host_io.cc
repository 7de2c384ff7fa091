// Host entries of data/hw/hosts.json. Fields are checked by name; numbers must be positive and
// plausible (typing errors exit 2, naming the field).
#include "memwall/hw/host_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall {
namespace {

// clang-format off
constexpr std::array<std::string_view, 23> kFields = {
    "id", "aliases", "vendor", "name", "kind", "sockets", "cores_per_socket", "base_clock_ghz",
    "memory_type", "memory_channels_per_socket", "memory_mt_s", "memory_bandwidth_gbps_per_socket",
    "installed_memory_gb_per_socket", "max_memory_gb_per_socket", "simd", "flop_per_cycle_per_core",
    "pcie_generation", "pcie_lanes_per_socket", "gpu_link", "gpu_link_bandwidth_per_direction_gbps",
    "nvme_read_gbps", "sources", "notes"};
// clang-format on

std::string shown(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<double> number(const Json& e, const char* key, const std::string& where, double lo,
                             double hi) {
  auto it = e.find(key);
  if (it == e.end() || it->is_null()) return std::nullopt;
  const std::string allowed = fmt::format("a number in ({:g}, {:g}] or null (unknown)", lo, hi);
  if (!it->is_number()) throw InputError(where + "." + key, shown(*it), allowed);
  const double v = it->get<double>();
  if (!std::isfinite(v) || v <= lo || v > hi)
    throw InputError(where + "." + key, shown(*it), allowed);
  return v;
}

std::optional<int> whole(const Json& e, const char* key, const std::string& where, int hi) {
  const auto v = number(e, key, where, 0, hi);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v)) throw InputError(where + "." + key, shown(e.at(key)), "a whole number");
  return static_cast<int>(*v);
}

std::string text(const Json& e, const char* key, const std::string& where) {
  auto it = e.find(key);
  if (it == e.end() || it->is_null()) return {};
  if (!it->is_string()) throw InputError(where + "." + key, shown(*it), "a string");
  return it->get<std::string>();
}

std::vector<std::string> texts(const Json& e, const char* key, const std::string& where) {
  std::vector<std::string> out;
  auto it = e.find(key);
  if (it == e.end() || it->is_null()) return out;
  if (!it->is_array()) throw InputError(where + "." + key, shown(*it), "a list of strings");
  for (const auto& s : *it) {
    if (!s.is_string()) throw InputError(where + "." + key, shown(s), "a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace

Host host_from_json(const Json& e, const std::string& where) {
  if (!e.is_object())
    throw InputError(fmt::format("{}: expected an object, got {}", where, e.type_name()));
  for (const auto& [key, value] : e.items())
    if (std::find(kFields.begin(), kFields.end(), key) == kFields.end())
      throw InputError(
          fmt::format("{}: unknown field '{}'; allowed: {}", where, key, fmt::join(kFields, ", ")));
  Host h;
  h.id = require_string(e, "id", where);
  h.aliases = texts(e, "aliases", where);
  h.vendor = text(e, "vendor", where);
  h.name = text(e, "name", where);
  h.kind = text(e, "kind", where);
  h.sockets = whole(e, "sockets", where, 16).value_or(1);
  h.cores_per_socket = whole(e, "cores_per_socket", where, 4096);
  h.base_clock_ghz = number(e, "base_clock_ghz", where, 0, 10);
  h.memory_type = text(e, "memory_type", where);
  h.memory_channels_per_socket = whole(e, "memory_channels_per_socket", where, 64);
  h.memory_mt_s = number(e, "memory_mt_s", where, 0, 20000);
  if (auto bw = number(e, "memory_bandwidth_gbps_per_socket", where, 0, 1e5))
    h.memory_bandwidth_per_socket_stated = gb_per_s(*bw);
  // DIMM and LPDDR capacities are binary (a 64 GB DIMM holds 64 GiB).
  if (auto m = number(e, "installed_memory_gb_per_socket", where, 0, 1e6))
    h.installed_memory_per_socket = gib(*m);
  if (auto m = number(e, "max_memory_gb_per_socket", where, 0, 1e6))
    h.max_memory_per_socket = gib(*m);
  h.simd = text(e, "simd", where);
  if (auto it = e.find("flop_per_cycle_per_core"); it != e.end() && !it->is_null()) {
    if (!it->is_object())
      throw InputError(where + ".flop_per_cycle_per_core", shown(*it),
                       "an object with fp32, bf16, int8");
    const std::string w = where + ".flop_per_cycle_per_core";
    for (const auto& [key, value] : it->items())
      if (key != "fp32" && key != "bf16" && key != "int8")
        throw InputError(w, key, "the keys fp32, bf16, int8");
    h.fp32_per_cycle = number(*it, "fp32", w, 0, 1e5);
    h.bf16_per_cycle = number(*it, "bf16", w, 0, 1e5);
    h.int8_per_cycle = number(*it, "int8", w, 0, 1e5);
  }
  h.pcie_generation = whole(e, "pcie_generation", where, 7);
  h.pcie_lanes_per_socket = whole(e, "pcie_lanes_per_socket", where, 512);
  const std::string link = text(e, "gpu_link", where);
  if (!link.empty()) h.gpu_link = link;
  if (auto bw = number(e, "gpu_link_bandwidth_per_direction_gbps", where, 0, 1e5))
    h.gpu_link_bandwidth_per_direction = gb_per_s(*bw);
  if (auto bw = number(e, "nvme_read_gbps", where, 0, 1e4)) h.nvme_read_bandwidth = gb_per_s(*bw);
  h.sources = texts(e, "sources", where);
  h.notes = text(e, "notes", where);
  return h;
}

Json host_to_json(const Host& h) {
  auto opt = [](const auto& v) { return v ? Json(*v) : Json(nullptr); };
  return Json{{"id", h.id},
              {"aliases", h.aliases},
              {"vendor", h.vendor},
              {"name", h.name},
              {"kind", h.kind},
              {"sockets", h.sockets},
              {"cores_per_socket", opt(h.cores_per_socket)},
              {"base_clock_ghz", opt(h.base_clock_ghz)},
              {"memory_type", h.memory_type},
              {"memory_channels_per_socket", opt(h.memory_channels_per_socket)},
              {"memory_mt_s", opt(h.memory_mt_s)},
              {"memory_bandwidth_gbps_per_socket",
               json_in_unit(h.memory_bandwidth_per_socket_stated, kGiga)},
              {"installed_memory_gb_per_socket", json_in_unit(h.installed_memory_per_socket, kGiB)},
              {"max_memory_gb_per_socket", json_in_unit(h.max_memory_per_socket, kGiB)},
              {"simd", h.simd},
              {"flop_per_cycle_per_core",
               {{"fp32", opt(h.fp32_per_cycle)},
                {"bf16", opt(h.bf16_per_cycle)},
                {"int8", opt(h.int8_per_cycle)}}},
              {"pcie_generation", opt(h.pcie_generation)},
              {"pcie_lanes_per_socket", opt(h.pcie_lanes_per_socket)},
              {"gpu_link", h.gpu_link},
              {"gpu_link_bandwidth_per_direction_gbps",
               json_in_unit(h.gpu_link_bandwidth_per_direction, kGiga)},
              {"nvme_read_gbps", json_in_unit(h.nvme_read_bandwidth, kGiga)},
              {"sources", h.sources},
              {"notes", h.notes}};
}

}  // namespace memwall
