// Reading structured input: JSON or YAML text into one JSON value, so every loader has one path.
// Malformed text, non-finite numbers and excessive size or nesting raise InputError naming the file.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace memwall {

using Json = nlohmann::json;

inline constexpr size_t kMaxDocumentBytes = 64u << 20;  // 64 MiB: larger user files are refused
inline constexpr int kMaxDocumentDepth = 64;

// Parses `text`; YAML when `origin` ends in .yaml/.yml, otherwise JSON (YAML also accepts JSON).
Json parse_document(std::string_view text, const std::string& origin);
// Reads and parses a file; InputError when it cannot be read or parsed.
Json load_document(const std::string& path);

// Typed field access with messages that name `where` and the key.
const Json& require_field(const Json& obj, const std::string& key, const std::string& where);
double require_number(const Json& obj, const std::string& key, const std::string& where);
std::string require_string(const Json& obj, const std::string& key, const std::string& where);

}  // namespace memwall
