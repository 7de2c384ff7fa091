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

// JSON text must be UTF-8 (RFC 8259 §8.1); nlohmann::json rejects anything else when parsing JSON
// and throws from dump() if a string holds it, so YAML scalars and keys are checked the same way.
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    unsigned min = 0;
    unsigned cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07u;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

std::string utf8_or_throw(std::string s, const std::string& origin) {
  if (!valid_utf8(s)) throw InputError(fmt::format("{}: text is not valid UTF-8", origin));
  return s;
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
      for (const auto& kv : n)
        obj[utf8_or_throw(kv.first.as<std::string>(), origin)] =
            yaml_to_json(kv.second, depth + 1, origin);
      return obj;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = utf8_or_throw(n.Scalar(), origin);
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
