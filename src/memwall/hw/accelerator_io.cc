// Interim: accelerator entries are parsed by the catalog work of the foundation issue.
#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall {

Accelerator accelerator_from_json(const Json&, const std::string& where) {
  throw InputError(where + ": accelerator entries are not supported in this build yet");
}
Json accelerator_to_json(const Accelerator& a) { return Json{{"id", a.id}}; }

}  // namespace memwall
