// Test helper: validates a Kubernetes object (as JSON) against the OpenAPI v3 schema of its kind,
// offline, from src/memwall/deploy/testdata/k8s-openapi-v1.31.json (the definitions reachable from
// Deployment and Service in the Kubernetes v1.31 OpenAPI v3 documents, and the LeaderWorkerSet
// CRD's openAPIV3Schema; scripts/k8s-openapi-extract.py, sources in the file's header).
//
// What it checks, as `kubectl apply --validate=strict` has the API server check it:
// - the kind: apiVersion + kind name a schema in the file, and that schema's
//   x-kubernetes-group-version-kind agrees;
// - fields: every key of an object is a property of its schema (unknown fields fail), unless the
//   schema is a map (additionalProperties: each value against that schema) or preserves unknown
//   fields (x-kubernetes-preserve-unknown-fields); a custom resource's metadata is checked against
//   ObjectMeta, as the API server does (the CRD's schema says only "type: object" there);
// - required properties present (a null value counts as absent, as when it is decoded);
// - types: integer / number / string / boolean / object / array; integer formats int32 and int64
//   within their range; x-kubernetes-int-or-string; oneOf and anyOf (IntOrString, Quantity);
//   $ref and allOf (the v3 documents wrap each $ref in a one-element allOf) merged;
// - enum values; minimum / maximum; minLength / maxLength; pattern (std::regex, ECMAScript);
//   minItems / maxItems;
// - arrays: each item against `items`; x-kubernetes-list-type set (no duplicate items) and map
//   (no two items with the same x-kubernetes-list-map-keys values).
// Not checked: CEL rules (x-kubernetes-validations, not kept), string formats (date-time ...),
// and the API server's validation beyond the schema (name syntax, selector matching the
// template's labels; the emit test checks that one itself).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "memwall/core/document.h"

namespace memwall::k8s_openapi {

class Validator {
 public:
  explicit Validator(Json file) : file_(std::move(file)) {}

  // The errors of `obj` against the schema of its kind; empty when it is valid.
  std::vector<std::string> validate(const Json& obj) const {
    std::vector<std::string> errors;
    if (!obj.is_object() || !obj.contains("apiVersion") || !obj.contains("kind") ||
        !obj["apiVersion"].is_string() || !obj["kind"].is_string()) {
      errors.push_back("an object with string apiVersion and kind is required");
      return errors;
    }
    const std::string api_version = obj["apiVersion"], kind = obj["kind"];
    const Json& kinds = file_.at("kinds");
    const std::string key = api_version + " " + kind;
    if (!kinds.contains(key)) {
      errors.push_back(fmt::format("no schema for apiVersion {} kind {}", api_version, kind));
      return errors;
    }
    const std::string name = kinds[key];
    Json root = flatten(definition(name));
    if (!gvk_matches(root, api_version, kind))
      errors.push_back(fmt::format("{} does not declare apiVersion {} kind {}", name, api_version,
                                   kind));
    if (name.rfind("io.k8s.", 0) != 0 && root.contains("properties") &&
        root["properties"].contains("metadata"))
      root["properties"]["metadata"] = {
          {"$ref", "#/components/schemas/" + file_.at("custom_resource_metadata").get<std::string>()}};
    check(obj, root, "", errors);
    return errors;
  }

 private:
  Json file_;
  mutable std::map<std::string, std::regex> patterns_;

  const Json& definition(const std::string& name) const {
    const Json& defs = file_.at("definitions");
    if (!defs.contains(name)) throw std::runtime_error("no definition " + name + " in the file");
    return defs[name];
  }

  const Json& resolve(const std::string& ref) const {
    const std::string prefix = "#/components/schemas/";
    if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
    return definition(ref.substr(prefix.size()));
  }

  static bool gvk_matches(const Json& schema, const std::string& api_version,
                          const std::string& kind) {
    if (!schema.contains("x-kubernetes-group-version-kind")) return false;
    for (const auto& g : schema["x-kubernetes-group-version-kind"]) {
      const std::string group = g.value("group", ""), version = g.value("version", "");
      const std::string av = group.empty() ? version : group + "/" + version;
      if (av == api_version && g.value("kind", "") == kind) return true;
    }
    return false;
  }

  // `schema` with its $ref and allOf members merged into one schema: properties united (a
  // property in two members must satisfy both), required united, other keywords taken from the
  // first member that has them.
  Json flatten(const Json& schema) const {
    if (!schema.is_object()) return schema;
    Json out = Json::object();
    std::vector<Json> parts;
    for (const auto& [k, v] : schema.items()) {
      if (k == "$ref")
        parts.push_back(flatten(resolve(v.get<std::string>())));
      else if (k == "allOf")
        for (const auto& member : v) parts.push_back(flatten(member));
      else
        out[k] = v;
    }
    for (const auto& p : parts) {
      for (const auto& [k, v] : p.items()) {
        if (k == "properties") {
          if (!out.contains("properties")) out["properties"] = Json::object();
          for (const auto& [prop, ps] : v.items()) {
            Json& mine = out["properties"][prop];
            mine = mine.is_null() ? ps : Json{{"allOf", Json::array({mine, ps})}};
          }
        } else if (k == "required") {
          std::set<std::string> req;
          if (out.contains("required"))
            for (const auto& r : out["required"]) req.insert(r.get<std::string>());
          for (const auto& r : v) req.insert(r.get<std::string>());
          out["required"] = Json(std::vector<std::string>(req.begin(), req.end()));
        } else if (!out.contains(k)) {
          out[k] = v;
        }
      }
    }
    return out;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  static bool has_type(const Json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    return false;
  }

  static std::string type_of(const Json& v) {
    if (v.is_object()) return "object";
    if (v.is_array()) return "array";
    if (v.is_string()) return "string";
    if (v.is_boolean()) return "boolean";
    if (v.is_number_integer()) return "integer";
    if (v.is_number()) return "number";
    return "null";
  }

  static size_t utf8_length(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s)
      if ((c & 0xC0) != 0x80) ++n;
    return n;
  }

  void check(const Json& v, const Json& raw, const std::string& path,
             std::vector<std::string>& errors) const {
    const Json s = flatten(raw);
    const std::string where = path.empty() ? "(root)" : path;
    // Types.
    if (s.value("x-kubernetes-int-or-string", false)) {
      if (!v.is_number_integer() && !v.is_string()) {
        errors.push_back(fmt::format("{}: {} where an integer or a string is required", where,
                                     type_of(v)));
        return;
      }
    } else if (s.contains("type") && !has_type(v, s["type"].get<std::string>())) {
      errors.push_back(fmt::format("{}: {} where {} is required", where, type_of(v),
                                   s["type"].get<std::string>()));
      return;
    }
    for (const char* combinator : {"oneOf", "anyOf"}) {
      if (!s.contains(combinator)) continue;
      size_t matches = 0;
      for (const auto& alternative : s[combinator]) {
        std::vector<std::string> scratch;
        check(v, alternative, path, scratch);
        if (scratch.empty()) ++matches;
      }
      const bool one = std::string(combinator) == "oneOf";
      if (matches == 0 || (one && matches > 1)) {
        errors.push_back(fmt::format("{}: {} matches {} of the {} alternatives ({})", where,
                                     v.dump(), matches, combinator, s[combinator].dump()));
        return;
      }
    }
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s["enum"]) found = found || e == v;
      if (!found)
        errors.push_back(
            fmt::format("{}: {} is not one of the values {}", where, v.dump(), s["enum"].dump()));
    }
    if (v.is_number()) check_number(v, s, where, errors);
    if (v.is_string()) check_string(v.get<std::string>(), s, where, errors);
    if (v.is_array()) check_array(v, s, path, errors);
    if (v.is_object()) check_object(v, s, path, errors);
  }

  static void check_number(const Json& v, const Json& s, const std::string& where,
                           std::vector<std::string>& errors) {
    const std::string format = s.value("format", "");
    if (v.is_number_integer() && (format == "int32" || format == "int64")) {
      const bool fits =
          format == "int64"
              ? (v.is_number_unsigned() ? v.get<uint64_t>() <= static_cast<uint64_t>(
                                                                   std::numeric_limits<int64_t>::max())
                                        : true)
              : (v.is_number_unsigned()
                     ? v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())
                     : v.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
                           v.get<int64_t>() <= std::numeric_limits<int32_t>::max());
      if (!fits) errors.push_back(fmt::format("{}: {} is outside {}", where, v.dump(), format));
    }
    const double x = v.get<double>();
    if (s.contains("minimum") && x < s["minimum"].get<double>())
      errors.push_back(fmt::format("{}: {} is below the minimum {}", where, v.dump(),
                                   s["minimum"].dump()));
    if (s.contains("maximum") && x > s["maximum"].get<double>())
      errors.push_back(fmt::format("{}: {} is above the maximum {}", where, v.dump(),
                                   s["maximum"].dump()));
  }

  void check_string(const std::string& v, const Json& s, const std::string& where,
                    std::vector<std::string>& errors) const {
    const size_t n = utf8_length(v);
    if (s.contains("minLength") && n < s["minLength"].get<size_t>())
      errors.push_back(fmt::format("{}: shorter than {} characters", where, s["minLength"].dump()));
    if (s.contains("maxLength") && n > s["maxLength"].get<size_t>())
      errors.push_back(fmt::format("{}: longer than {} characters", where, s["maxLength"].dump()));
    if (s.contains("pattern")) {
      const std::string p = s["pattern"];
      auto it = patterns_.find(p);
      if (it == patterns_.end()) it = patterns_.emplace(p, std::regex(p)).first;
      if (!std::regex_search(v, it->second))
        errors.push_back(fmt::format("{}: \"{}\" does not match the pattern {}", where, v, p));
    }
  }

  void check_array(const Json& v, const Json& s, const std::string& path,
                   std::vector<std::string>& errors) const {
    const std::string where = path.empty() ? "(root)" : path;
    if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
      errors.push_back(fmt::format("{}: fewer than {} items", where, s["minItems"].dump()));
    if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
      errors.push_back(fmt::format("{}: more than {} items", where, s["maxItems"].dump()));
    for (size_t i = 0; i < v.size(); ++i)
      if (s.contains("items")) check(v[i], s["items"], fmt::format("{}[{}]", path, i), errors);
    const std::string list_type = s.value("x-kubernetes-list-type", "");
    if (list_type != "set" && list_type != "map") return;
    std::set<std::string> seen;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string key;
      if (list_type == "set") {
        key = v[i].dump();
      } else {
        for (const auto& k : s.value("x-kubernetes-list-map-keys", Json::array())) {
          const std::string field = k;
          key += (v[i].is_object() && v[i].contains(field) ? v[i][field].dump() : "(unset)") + ",";
        }
      }
      if (!seen.insert(key).second)
        errors.push_back(fmt::format("{}[{}]: duplicate item of a list of type {} ({})", path, i,
                                     list_type, key));
    }
  }

  void check_object(const Json& v, const Json& s, const std::string& path,
                    std::vector<std::string>& errors) const {
    const Json none = Json::object();
    const Json& props = s.contains("properties") ? s["properties"] : none;
    const bool preserve = s.value("x-kubernetes-preserve-unknown-fields", false);
    for (const auto& [key, value] : v.items()) {
      const std::string child = join(path, key);
      if (value.is_null()) continue;  // decoded as absent
      if (props.contains(key)) {
        check(value, props[key], child, errors);
      } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
        check(value, s["additionalProperties"], child, errors);
      } else if (s.contains("additionalProperties") && s["additionalProperties"] == true) {
        continue;
      } else if (!preserve) {
        errors.push_back(fmt::format("unknown field \"{}\"", child));
      }
    }
    if (s.contains("required"))
      for (const auto& r : s["required"]) {
        const std::string key = r;
        if (!v.contains(key) || v[key].is_null())
          errors.push_back(fmt::format("missing required field \"{}\"", join(path, key)));
      }
  }
};

}  // namespace memwall::k8s_openapi
