// Reading model descriptions: memwall's own model entries (data/models/*.json and user files) and
// Hugging Face config.json files of the supported model types.
#pragma once

#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/model/transformer.h"

namespace memwall {

// One memwall model entry (the format of data/models/*.json); InputError names the bad field.
ModelSpec model_from_json(const Json& entry, const std::string& where);
Json model_to_json(const ModelSpec& m);

// A Hugging Face config.json. Unknown fields are listed in ModelSpec::warnings; a missing
// required field or an unsupported model_type raises InputError (exit 2).
ModelSpec import_hf_config(const Json& config, const std::string& origin);

}  // namespace memwall
