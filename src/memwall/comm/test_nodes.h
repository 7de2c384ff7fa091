// Test helper: the built-in nodes and fabrics read straight from the embedded data files, so the
// network model's tests do not depend on the catalog.
#pragma once

#include <deque>
#include <string>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall::comm::testing {

inline const std::deque<Node>& builtin_nodes() {
  static const std::deque<Node> nodes = [] {
    std::deque<Node> out;
    for (const auto& f : data::embedded_files()) {
      if (f.path != "hw/nodes.json") continue;
      const Json doc = parse_document(f.content, std::string(f.path));
      for (const Json& e : doc.at("nodes")) out.push_back(node_from_json(e, "nodes"));
    }
    return out;
  }();
  return nodes;
}

inline const Node& builtin_node(const std::string& id) {
  for (const Node& n : builtin_nodes())
    if (n.id == id) return n;
  throw InputError("node", id, "a built-in node");
}

inline const std::deque<Fabric>& builtin_fabrics() {
  static const std::deque<Fabric> fabrics = [] {
    std::deque<Fabric> out;
    for (const auto& f : data::embedded_files()) {
      if (f.path != "hw/fabrics.json") continue;
      const Json doc = parse_document(f.content, std::string(f.path));
      for (const Json& e : doc.at("fabrics")) out.push_back(fabric_from_json(e, "fabrics"));
    }
    return out;
  }();
  return fabrics;
}

inline const Fabric& builtin_fabric(const std::string& id) {
  for (const Fabric& x : builtin_fabrics())
    if (x.id == id) return x;
  throw InputError("fabric", id, "a built-in fabric");
}

}  // namespace memwall::comm::testing
