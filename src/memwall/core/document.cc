#include "memwall/core/document.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "memwall/core/error.h"

namespace memwall {
namespace {

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

Json yaml_to_json(const YAML::Node& n, int depth, const std::string& origin) {
  if (depth > kMaxDocumentDepth)
    throw InputError(fmt::format("{}: nesting deeper than {} levels", origin, kMaxDocumentDepth));
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Sequence: {
      Json arr = Json::array();
      for (const auto& c : n) arr.push_back(yaml_to_json(c, depth + 1, origin));
      return arr;
    }
    case YAML::NodeType::Map: {
      Json obj = Json::object();
      for (const auto& kv : n) obj[kv.first.as<std::string>()] = yaml_to_json(kv.second, depth + 1, origin);
      return obj;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted scalar stays a string
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      if (s == "null" || s == "~") return nullptr;
      try {
        size_t pos = 0;
        const long long i = std::stoll(s, &pos);
        if (pos == s.size()) return i;
      } catch (...) {
      }
      try {
        size_t pos = 0;
        const double d = std::stod(s, &pos);
        if (pos == s.size() && std::isfinite(d)) return d;
      } catch (...) {
      }
      return s;
    }
  }
  return nullptr;
}

void check_depth_and_numbers(const Json& j, int depth, const std::string& origin) {
  if (depth > kMaxDocumentDepth)
    throw InputError(fmt::format("{}: nesting deeper than {} levels", origin, kMaxDocumentDepth));
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    throw InputError(fmt::format("{}: non-finite number", origin));
  if (j.is_structured())
    for (const auto& c : j) check_depth_and_numbers(c, depth + 1, origin);
}

}  // namespace

Json parse_document(std::string_view text, const std::string& origin) {
  if (text.size() > kMaxDocumentBytes)
    throw InputError(fmt::format("{}: {} bytes is larger than the {} MiB limit", origin, text.size(),
                                 kMaxDocumentBytes >> 20));
  Json j;
  if (ends_with(origin, ".yaml") || ends_with(origin, ".yml")) {
    try {
      j = yaml_to_json(YAML::Load(std::string(text)), 0, origin);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: not valid YAML: {}", origin, e.what()));
    }
  } else {
    // Depth is bounded by a callback before building the tree, so hostile nesting cannot blow the stack.
    int depth = 0;
    bool too_deep = false;
    auto cb = [&](int d, Json::parse_event_t ev, Json&) {
      (void)ev;
      depth = d;
      if (d > kMaxDocumentDepth) too_deep = true;
      return !too_deep;
    };
    try {
      j = Json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/true);
    } catch (const Json::exception& e) {
      if (too_deep)
        throw InputError(fmt::format("{}: nesting deeper than {} levels", origin, kMaxDocumentDepth));
      throw InputError(fmt::format("{}: not valid JSON: {}", origin, e.what()));
    }
    if (too_deep)
      throw InputError(fmt::format("{}: nesting deeper than {} levels", origin, kMaxDocumentDepth));
  }
  check_depth_and_numbers(j, 0, origin);
  return j;
}

Json load_document(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("file", path, "a readable JSON or YAML file");
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) throw InputError("file", path, "a readable JSON or YAML file");
  if (static_cast<size_t>(size) > kMaxDocumentBytes)
    throw InputError(fmt::format("{}: {} bytes is larger than the {} MiB limit", path,
                                 static_cast<size_t>(size), kMaxDocumentBytes >> 20));
  in.seekg(0);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_document(ss.str(), path);
}

const Json& require_field(const Json& obj, const std::string& key, const std::string& where) {
  if (!obj.is_object()) throw InputError(fmt::format("{}: expected an object", where));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    throw InputError(fmt::format("{}: required field '{}' is missing", where, key));
  return *it;
}

double require_number(const Json& obj, const std::string& key, const std::string& where) {
  const Json& v = require_field(obj, key, where);
  if (!v.is_number())
    throw InputError(where + "." + key, v.dump(), "a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) throw InputError(where + "." + key, v.dump(), "a finite number");
  return d;
}

std::string require_string(const Json& obj, const std::string& key, const std::string& where) {
  const Json& v = require_field(obj, key, where);
  if (!v.is_string()) throw InputError(where + "." + key, v.dump(), "a string");
  return v.get<std::string>();
}

}  // namespace memwall
