#include "memwall/plan/replica_model.h"

#include <fmt/format.h>

namespace memwall::plan {

std::string ReplicaShape::describe() const {
  return fmt::format("{}x {}{} TP{} PP{}{}, weights {} / KV {}", devices(),
                     accelerator ? accelerator->id : "?", node ? " (" + node->id + ")" : "", tp, pp,
                     ep > 1 ? fmt::format(" EP{}", ep) : "", to_string(weights), to_string(kv));
}

}  // namespace memwall::plan
