// Reading and writing catalog entries for hardware: accelerators, nodes and fabrics as JSON
// objects (the format of data/hw/*.json and of user --catalog files). InputError names bad fields.
#pragma once

#include <string>

#include "memwall/core/document.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"

namespace memwall {

Accelerator accelerator_from_json(const Json& entry, const std::string& where);
Json accelerator_to_json(const Accelerator& a);

Node node_from_json(const Json& entry, const std::string& where);
Json node_to_json(const Node& n);

Fabric fabric_from_json(const Json& entry, const std::string& where);
Json fabric_to_json(const Fabric& f);

}  // namespace memwall
