// Node and fabric catalog entries as JSON objects (data/hw/nodes.json, data/hw/fabrics.json and
// user --catalog files). Bandwidths are in decimal GB/s (device links) or Gb/s (network ports), as
// vendors quote them; latencies in microseconds or nanoseconds as named. Every bad or unknown field
// raises InputError naming the entry, the field, the value and what is allowed.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall {
namespace {

constexpr double kMaxDevicesPerNode = 100000;
constexpr double kMaxBandwidthGBps = 1e6;  // 1 PB/s per device: far beyond any link
constexpr double kMaxLatencyUs = 1e6;

struct Reader {
  const Json& obj;
  std::string where;

  std::string field(const std::string& key) const { return where + "." + key; }
  bool has(const std::string& key) const { return obj.contains(key) && !obj.at(key).is_null(); }

  std::string str(const std::string& key) const { return require_string(obj, key, where); }
  std::string str_or(const std::string& key, const std::string& fallback) const {
    return has(key) ? str(key) : fallback;
  }
  double number(const std::string& key, double lo, double hi, bool lo_inclusive) const {
    const Json& v = require_field(obj, key, where);
    if (!v.is_number()) throw InputError(field(key), v.dump(), "a number");
    const double d = v.get<double>();
    const bool ok = std::isfinite(d) && (lo_inclusive ? d >= lo : d > lo) && d <= hi;
    if (!ok)
      throw InputError(field(key), v.dump(),
                       fmt::format("a finite number {} {} and <= {}", lo_inclusive ? ">=" : ">", lo, hi));
    return d;
  }
  double positive(const std::string& key, double hi) const { return number(key, 0, hi, false); }
  std::optional<double> optional_positive(const std::string& key, double hi) const {
    if (!has(key)) return std::nullopt;
    return positive(key, hi);
  }
  int integer(const std::string& key, int lo, int hi) const {
    const Json& v = require_field(obj, key, where);
    if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
      throw InputError(field(key), v.dump(), fmt::format("a whole number from {} to {}", lo, hi));
    const double d = v.get<double>();
    if (!(d >= lo && d <= hi))
      throw InputError(field(key), v.dump(), fmt::format("a whole number from {} to {}", lo, hi));
    return static_cast<int>(d);
  }
  int integer_or(const std::string& key, int lo, int hi, int fallback) const {
    return has(key) ? integer(key, lo, hi) : fallback;
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const Json& v = obj.at(key);
    if (!v.is_boolean()) throw InputError(field(key), v.dump(), "true or false");
    return v.get<bool>();
  }
  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const Json& v = obj.at(key);
    if (!v.is_array()) throw InputError(field(key), v.dump(), "a list of strings");
    for (const Json& s : v) {
      if (!s.is_string()) throw InputError(field(key), s.dump(), "a list of strings");
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  void only(const std::set<std::string>& allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (allowed.count(it.key())) continue;
      throw InputError::unknown_name(where + " field", it.key(),
                                     std::vector<std::string>(allowed.begin(), allowed.end()));
    }
  }
};

Reader open(const Json& entry, const std::string& where, const char* kind) {
  if (!entry.is_object()) throw InputError(fmt::format("{}: a {} entry must be an object", where, kind));
  Reader r{entry, where};
  const std::string id = r.str("id");
  if (id.empty() || id.size() > 200) throw InputError(r.field("id"), id, "a name of 1 to 200 characters");
  r.where = fmt::format("{} '{}'", where, id);
  return r;
}

BytesPerSecond gbyte_s(double x) { return gb_per_s(x); }
BytesPerSecond gbit_s(double x) { return BytesPerSecond(x * kGiga / 8.0); }
// Unit conversion leaves binary noise (600.0000000000001 ns); 9 significant digits keep the
// written value equal to the one read.
double tidy(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 8 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}
double to_gbyte_s(BytesPerSecond b) { return tidy(b.value() / kGiga); }
double to_gbit_s(BytesPerSecond b) { return tidy(b.value() * 8.0 / kGiga); }

const std::vector<std::pair<IntraNodeTopology, std::string>>& topology_names() {
  static const std::vector<std::pair<IntraNodeTopology, std::string>> names = {
      {IntraNodeTopology::nvswitch, "nvswitch"},
      {IntraNodeTopology::full_mesh, "full_mesh"},
      {IntraNodeTopology::pcie_switch_p2p, "pcie_switch_p2p"},
      {IntraNodeTopology::pcie_via_cpu, "pcie_via_cpu"},
      {IntraNodeTopology::nvlink_bridge, "nvlink_bridge"},
  };
  return names;
}

}  // namespace

const char* to_string(IntraNodeTopology t) {
  for (const auto& [k, name] : topology_names())
    if (k == t) return name.c_str();
  return "unknown";
}

Node node_from_json(const Json& entry, const std::string& where) {
  Reader r = open(entry, where, "node");
  r.only({"id", "name", "accelerator", "devices", "topology", "scaleup_link",
          "device_link_bandwidth_per_direction_gbps",
          "device_link_achievable_bandwidth_per_direction_gbps", "device_link_latency_us",
          "in_switch_reduction", "scaleup_domain", "bridge_group", "pcie_generation",
          "pcie_bandwidth_per_direction_gbps", "devices_per_pcie_switch",
          "pcie_switch_uplink_bandwidth_per_direction_gbps", "sockets", "cpu_socket_link",
          "cpu_socket_bandwidth_per_direction_gbps", "nics", "nic_bandwidth_gbit_s", "nic_model",
          "sources", "notes", "unconfirmed", "risk", "unit"});
  Node n;
  n.id = r.str("id");
  n.name = r.str_or("name", n.id);
  n.accelerator = r.str("accelerator");
  n.devices = r.integer("devices", 1, static_cast<int>(kMaxDevicesPerNode));

  const std::string topo = r.str("topology");
  bool found = false;
  std::vector<std::string> allowed;
  for (const auto& [k, name] : topology_names()) {
    allowed.push_back(name);
    if (name == topo) n.topology = k, found = true;
  }
  if (!found) throw InputError::unknown_name(r.field("topology"), topo, allowed);

  n.scaleup_link = r.str_or("scaleup_link", "");
  n.device_link_bandwidth_per_direction =
      gbyte_s(r.positive("device_link_bandwidth_per_direction_gbps", kMaxBandwidthGBps));
  if (auto a = r.optional_positive("device_link_achievable_bandwidth_per_direction_gbps",
                                   kMaxBandwidthGBps)) {
    if (gbyte_s(*a) > n.device_link_bandwidth_per_direction)
      throw InputError(r.field("device_link_achievable_bandwidth_per_direction_gbps"),
                       fmt::format("{}", *a),
                       fmt::format("at most the nominal {} GB/s",
                                   to_gbyte_s(n.device_link_bandwidth_per_direction)));
    n.device_link_achievable_bandwidth_per_direction = gbyte_s(*a);
  }
  n.device_link_latency = us(r.positive("device_link_latency_us", kMaxLatencyUs));
  n.in_switch_reduction = r.boolean_or("in_switch_reduction", false);
  n.scaleup_domain = r.integer_or("scaleup_domain", 1, static_cast<int>(kMaxDevicesPerNode), n.devices);
  if (n.scaleup_domain > n.devices && n.topology != IntraNodeTopology::nvswitch)
    throw InputError(r.field("scaleup_domain"), std::to_string(n.scaleup_domain),
                     fmt::format("at most devices ({}) unless the topology is nvswitch", n.devices));
  n.bridge_group = r.integer_or("bridge_group", 2, n.devices < 2 ? 2 : n.devices, 2);
  n.pcie_generation = r.integer_or("pcie_generation", 1, 7, 5);
  n.pcie_bandwidth_per_direction =
      gbyte_s(r.positive("pcie_bandwidth_per_direction_gbps", kMaxBandwidthGBps));
  n.devices_per_pcie_switch = r.integer_or("devices_per_pcie_switch", 0, n.devices, 0);
  if (auto u = r.optional_positive("pcie_switch_uplink_bandwidth_per_direction_gbps", kMaxBandwidthGBps))
    n.pcie_switch_uplink_bandwidth_per_direction = gbyte_s(*u);
  n.sockets = r.integer_or("sockets", 1, 1024, 2);
  n.cpu_socket_link = r.str_or("cpu_socket_link", "");
  if (auto c = r.optional_positive("cpu_socket_bandwidth_per_direction_gbps", kMaxBandwidthGBps))
    n.cpu_socket_bandwidth_per_direction = gbyte_s(*c);
  if (n.topology == IntraNodeTopology::pcie_via_cpu && n.sockets > 1 &&
      !n.cpu_socket_bandwidth_per_direction)
    throw InputError(fmt::format(
        "{}: required field 'cpu_socket_bandwidth_per_direction_gbps' is missing (a pcie_via_cpu "
        "node with {} sockets moves traffic over the socket link)",
        r.where, n.sockets));
  n.nics = r.integer("nics", 0, 1000000);
  if (n.nics > 0) n.nic_bandwidth_per_direction = gbit_s(r.positive("nic_bandwidth_gbit_s", 1e6));
  n.nic_model = r.str_or("nic_model", "");
  n.sources = r.strings("sources");
  n.notes = r.str_or("notes", "");
  n.unconfirmed = r.strings("unconfirmed");
  n.risk = r.str_or("risk", "");
  n.unit = r.str_or("unit", "server");
  if (n.unit != "server" && n.unit != "rack")
    throw InputError(r.field("unit"), n.unit, "server or rack (what is bought whole)");
  return n;
}

Json node_to_json(const Node& n) {
  Json j{{"id", n.id},
         {"name", n.name},
         {"accelerator", n.accelerator},
         {"devices", n.devices},
         {"topology", to_string(n.topology)},
         {"scaleup_link", n.scaleup_link},
         {"device_link_bandwidth_per_direction_gbps", to_gbyte_s(n.device_link_bandwidth_per_direction)},
         {"device_link_achievable_bandwidth_per_direction_gbps", nullptr},
         {"device_link_latency_us", tidy(n.device_link_latency.value() * 1e6)},
         {"in_switch_reduction", n.in_switch_reduction},
         {"scaleup_domain", n.scaleup_domain},
         {"pcie_generation", n.pcie_generation},
         {"pcie_bandwidth_per_direction_gbps", to_gbyte_s(n.pcie_bandwidth_per_direction)},
         {"devices_per_pcie_switch", n.devices_per_pcie_switch},
         {"pcie_switch_uplink_bandwidth_per_direction_gbps", nullptr},
         {"sockets", n.sockets},
         {"cpu_socket_link", n.cpu_socket_link},
         {"cpu_socket_bandwidth_per_direction_gbps", nullptr},
         {"nics", n.nics},
         {"nic_bandwidth_gbit_s", to_gbit_s(n.nic_bandwidth_per_direction)},
         {"nic_model", n.nic_model},
         {"sources", n.sources},
         {"notes", n.notes},
         {"unconfirmed", n.unconfirmed}};
  if (!n.risk.empty()) j["risk"] = n.risk;
  if (n.unit != "server") j["unit"] = n.unit;
  if (n.topology == IntraNodeTopology::nvlink_bridge) j["bridge_group"] = n.bridge_group;
  if (n.device_link_achievable_bandwidth_per_direction)
    j["device_link_achievable_bandwidth_per_direction_gbps"] =
        to_gbyte_s(*n.device_link_achievable_bandwidth_per_direction);
  if (n.pcie_switch_uplink_bandwidth_per_direction)
    j["pcie_switch_uplink_bandwidth_per_direction_gbps"] =
        to_gbyte_s(*n.pcie_switch_uplink_bandwidth_per_direction);
  if (n.cpu_socket_bandwidth_per_direction)
    j["cpu_socket_bandwidth_per_direction_gbps"] = to_gbyte_s(*n.cpu_socket_bandwidth_per_direction);
  return j;
}

Fabric fabric_from_json(const Json& entry, const std::string& where) {
  Reader r = open(entry, where, "fabric");
  r.only({"id", "name", "technology", "port_bandwidth_gbit_s", "switch_hop_latency_ns",
          "endpoint_latency_us", "tiers", "oversubscription", "rail_optimized", "nodes_per_leaf",
          "leaves_per_pod", "core_oversubscription", "in_network_reduction", "sources", "notes",
          "unconfirmed"});
  Fabric f;
  f.id = r.str("id");
  f.name = r.str_or("name", f.id);
  f.technology = r.str("technology");
  static const std::vector<std::string> techs = {"infiniband", "roce", "ethernet"};
  if (std::find(techs.begin(), techs.end(), f.technology) == techs.end())
    throw InputError::unknown_name(r.field("technology"), f.technology, techs);
  f.port_bandwidth_per_direction = gbit_s(r.positive("port_bandwidth_gbit_s", 1e6));
  f.switch_hop_latency = Seconds(r.positive("switch_hop_latency_ns", 1e9) * 1e-9);
  f.endpoint_latency = us(r.positive("endpoint_latency_us", kMaxLatencyUs));
  f.tiers = r.integer_or("tiers", 1, 3, 2);
  f.oversubscription = r.has("oversubscription") ? r.number("oversubscription", 1, 1000, true) : 1.0;
  f.rail_optimized = r.boolean_or("rail_optimized", true);
  f.nodes_per_leaf = r.integer_or("nodes_per_leaf", 1, 1000000, 32);
  f.leaves_per_pod = r.integer_or("leaves_per_pod", 1, 1000000, 16);
  f.core_oversubscription =
      r.has("core_oversubscription") ? r.number("core_oversubscription", 1, 1000, true) : 1.0;
  f.in_network_reduction = r.boolean_or("in_network_reduction", false);
  f.sources = r.strings("sources");
  f.notes = r.str_or("notes", "");
  f.unconfirmed = r.strings("unconfirmed");
  return f;
}

Json fabric_to_json(const Fabric& f) {
  return Json{{"id", f.id},
              {"name", f.name},
              {"technology", f.technology},
              {"port_bandwidth_gbit_s", to_gbit_s(f.port_bandwidth_per_direction)},
              {"switch_hop_latency_ns", tidy(f.switch_hop_latency.value() * 1e9)},
              {"endpoint_latency_us", tidy(f.endpoint_latency.value() * 1e6)},
              {"tiers", f.tiers},
              {"oversubscription", f.oversubscription},
              {"rail_optimized", f.rail_optimized},
              {"nodes_per_leaf", f.nodes_per_leaf},
              {"leaves_per_pod", f.leaves_per_pod},
              {"core_oversubscription", f.core_oversubscription},
              {"in_network_reduction", f.in_network_reduction},
              {"sources", f.sources},
              {"notes", f.notes},
              {"unconfirmed", f.unconfirmed}};
}

}  // namespace memwall
