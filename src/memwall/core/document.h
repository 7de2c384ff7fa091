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
// YAML alias expansion may build at most twice the text's size in nodes plus scalar bytes, and at
// least this many (see yaml_to_json in document.cc).
inline constexpr size_t kMinYamlExpansion = 64u << 10;

// Parses `text`; YAML when `origin` ends in .yaml/.yml, otherwise JSON (YAML also accepts JSON).
Json parse_document(std::string_view text, const std::string& origin);
// Reads and parses a file; InputError when it cannot be read or parsed.
Json load_document(const std::string& path);
// The whole text of the regular file `path`. A directory, FIFO, device or socket, a file that
// cannot be opened, and one larger than `max_bytes` (checked while reading) raise InputError naming
// `field` and the path; a FIFO is refused without waiting for a writer.
std::string read_input_file(const std::string& path, const std::string& field, size_t max_bytes);

// Typed field access with messages that name `where` and the key.
const Json& require_field(const Json& obj, const std::string& key, const std::string& where);
double require_number(const Json& obj, const std::string& key, const std::string& where);
std::string require_string(const Json& obj, const std::string& key, const std::string& where);

}  // namespace memwall
