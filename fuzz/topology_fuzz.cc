// Fuzzes the node and fabric entry readers behind user --catalog files: any bytes must parse into
// a node or fabric (and survive a round trip and a collective estimate) or raise InputError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memwall/comm/collective.h"
#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwall;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Json doc = parse_document(text, "fuzz.json");
    const Json* entries[2] = {nullptr, nullptr};
    if (doc.is_object() && doc.contains("nodes") && doc["nodes"].is_array()) entries[0] = &doc["nodes"];
    if (doc.is_object() && doc.contains("fabrics") && doc["fabrics"].is_array()) entries[1] = &doc["fabrics"];
    std::vector<Node> nodes;
    std::vector<Fabric> fabrics;
    if (entries[0])
      for (const Json& e : *entries[0]) {
        try {
          nodes.push_back(node_from_json(e, "fuzz"));
          (void)node_from_json(node_to_json(nodes.back()), "roundtrip");
        } catch (const InputError&) {
        }
      }
    if (entries[1])
      for (const Json& e : *entries[1]) {
        try {
          fabrics.push_back(fabric_from_json(e, "fuzz"));
          (void)fabric_from_json(fabric_to_json(fabrics.back()), "roundtrip");
        } catch (const InputError&) {
        }
      }
    if (!doc.is_array() && !doc.is_object()) {
      try {
        (void)node_from_json(doc, "fuzz");
      } catch (const InputError&) {
      }
    }
    // Whatever parsed must also be usable by the network model (small clusters keep it fast).
    for (const Node& n : nodes) {
      if (n.devices > 64) continue;
      const Fabric* f = fabrics.empty() ? nullptr : &fabrics.front();
      const comm::Cluster c{&n, f, f ? 2 : 1};
      try {
        (void)comm::estimate(c, comm::Collective::all_reduce, Bytes(1 << 20), comm::Group{c.devices(), 1, 0});
        (void)comm::estimate(c, comm::Collective::all_to_all, Bytes(1 << 20), comm::Group{c.devices(), 1, 0});
      } catch (const InputError&) {
      } catch (const InfeasibleError&) {
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
