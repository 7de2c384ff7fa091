// Reading and writing catalog entries for hardware: accelerators, nodes and fabrics as JSON
// objects (the format of data/hw/*.json and of user --catalog files). InputError names bad fields.
#pragma once

#include <optional>
#include <string>

#include "memwall/core/document.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"

namespace memwall {

// An SI value in a file's unit (unit = 1e9 for GB/s ...), rounded to 12 significant digits so a
// file -> memory -> file round trip gives back the same decimal number.
double to_unit(double si, double unit);
// The same for an optional quantity; null when unknown.
template <class Q>
Json json_in_unit(const std::optional<Q>& q, double unit) {
  return q ? Json(to_unit(q->value(), unit)) : Json(nullptr);
}

Accelerator accelerator_from_json(const Json& entry, const std::string& where);
Json accelerator_to_json(const Accelerator& a);

Node node_from_json(const Json& entry, const std::string& where);
Json node_to_json(const Node& n);

Fabric fabric_from_json(const Json& entry, const std::string& where);
Json fabric_to_json(const Fabric& f);

}  // namespace memwall
