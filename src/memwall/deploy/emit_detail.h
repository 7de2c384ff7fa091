// What the emitters of src/memwall/deploy share: the YAML writer, shell quoting, the plan's engine
// profile and the deployment labels of a pool (emit.cc), used by the engine commands and the
// Kubernetes manifest there, the llm-d Helm values (llm_d.cc) and MindIE's config.json
// (mindie.cc).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/deploy/emit.h"
#include "memwall/perf/efficiency.h"

namespace memwall::deploy::detail {

// YAML of a JSON value: block mappings and sequences, every string double-quoted (JSON escapes are
// YAML escapes), so the text reads back exactly.
void write_yaml(const Json& v, int indent, std::string& out);
std::string quote_shell(const std::string& s);
// The engine profile plan `p` was estimated with.
const perf::EngineProfile& profile_of(const plan::Plan& p);
// The values of kDeploymentLabels for a pool of `shape` serving `model_id`, in that order.
std::vector<std::string> deployment_label_values(const std::string& model_id,
                                                 const plan::ReplicaShape& shape);
// A Kubernetes label value (k8s.io/apimachinery pkg/util/validation IsValidLabelValue).
bool valid_label_value(const std::string& v);
// "NVIDIA" -> "nvidia" (catalog vendor names compared without case).
std::string lower(std::string s);
// The emission of `e` with `from` lines of each argument, one per line ("  role: FLAG VALUE <-
// FROM"), as --explain prints them.
std::string explain_lines(const std::vector<TracedArg>& args, const std::string& role);

// The one file of data/deploy whose root is `root` ("helm_values", "config_file"), that root and
// its origin ("built-in data/deploy/..."); a logic_error when there is none or more than one.
std::pair<Json, std::string> deploy_document(const std::string& root);
// The keys of a recorded table (`keys` of a data/deploy file: key -> {type, values}).
std::map<std::string, RecordedKey> recorded_keys(const Json& keys, const std::string& origin);
// Whether `v` is of a recorded key type (RecordedKey::type).
bool of_recorded_type(const Json& v, const std::string& type);
// Writes `value` at `key` of `out.document` ("a.b[].c": b's one item) after checking the key, its
// type and values against `keys` (a logic_error names `display` when it is not one: a bug here,
// not input), and traces it in `out.keys`.
void set_recorded(KeyedEmission& out, const std::map<std::string, RecordedKey>& keys,
                  const std::string& display, const std::string& key, const Json& value,
                  const std::string& from);

}  // namespace memwall::deploy::detail
