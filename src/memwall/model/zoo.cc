// Interim: the model zoo and Hugging Face import land with the foundation issue's model work.
#include "memwall/model/zoo.h"

#include "memwall/core/error.h"

namespace memwall {

ModelSpec model_from_json(const Json&, const std::string& where) {
  throw InputError(where + ": model entries are not supported in this build yet");
}
Json model_to_json(const ModelSpec& m) { return Json{{"id", m.id}}; }
ModelSpec import_hf_config(const Json&, const std::string& origin) {
  throw InputError(origin + ": Hugging Face import is not supported in this build yet");
}

}  // namespace memwall
