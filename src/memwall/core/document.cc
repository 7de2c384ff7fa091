#include "memwall/core/document.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall {
namespace {

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

// JSON text must be UTF-8 (RFC 8259 §8.1); nlohmann::json rejects anything else when parsing JSON
// and throws from dump() if a string holds it, so YAML scalars and keys are checked the same way.
std::string utf8_or_throw(std::string s, const std::string& origin) {
  if (!is_valid_utf8(s)) throw InputError(fmt::format("{}: text is not valid UTF-8", origin));
  return s;
}

// What alias expansion may build: yaml-cpp shares an anchored node between its aliases, so nine
// levels of nine aliases ("billion laughs") are 359 bytes of text but 9^9 nodes once expanded.
// Each node costs one unit plus its scalar's bytes; a document without aliases costs at most about
// one unit per byte of text, so the budget of twice the text (and 64 Ki units for small files)
// admits anchors used as shorthand and refuses expansion that outgrows the file.
struct YamlBudget {
  size_t limit = 0;
  size_t used = 0;
  void spend(size_t units, const std::string& origin) {
    used += units;
    if (used > limit)
      throw InputError(fmt::format(
          "{}: YAML aliases expand the document beyond {} nodes and bytes (twice the file's size, "
          "at least {}); write the repeated parts out or use fewer aliases",
          origin, limit, kMinYamlExpansion));
  }
};

Json yaml_to_json(const YAML::Node& n, int depth, const std::string& origin, YamlBudget& budget) {
  if (depth > kMaxDocumentDepth)
    throw InputError(fmt::format("{}: nesting deeper than {} levels", origin, kMaxDocumentDepth));
  budget.spend(1 + (n.Type() == YAML::NodeType::Scalar ? n.Scalar().size() : 0), origin);
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Sequence: {
      Json arr = Json::array();
      for (const auto& c : n) arr.push_back(yaml_to_json(c, depth + 1, origin, budget));
      return arr;
    }
    case YAML::NodeType::Map: {
      Json obj = Json::object();
      for (const auto& kv : n)
        obj[utf8_or_throw(kv.first.as<std::string>(), origin)] =
            yaml_to_json(kv.second, depth + 1, origin, budget);
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
      YamlBudget budget{std::max(2 * text.size(), kMinYamlExpansion)};
      j = yaml_to_json(YAML::Load(std::string(text)), 0, origin, budget);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: not valid YAML: {}", origin, to_valid_utf8(e.what())));
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
      // The parser's message quotes the bytes it stopped at, which may be any bytes.
      throw InputError(fmt::format("{}: not valid JSON: {}", origin, to_valid_utf8(e.what())));
    }
    if (too_deep)
      throw InputError(fmt::format("{}: nesting deeper than {} levels", origin, kMaxDocumentDepth));
  }
  check_depth_and_numbers(j, 0, origin);
  return j;
}

std::string read_input_file(const std::string& path, const std::string& field, size_t max_bytes) {
  // stat first: opening a FIFO blocks until a writer comes, and a device may never end.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(field, path, fmt::format("a readable file ({})", std::strerror(errno)));
  auto refuse_kind = [&](mode_t mode) {
    const char* kind = S_ISDIR(mode)    ? "a directory"
                       : S_ISFIFO(mode) ? "a FIFO"
                       : S_ISCHR(mode)  ? "a character device"
                       : S_ISBLK(mode)  ? "a block device"
                       : S_ISSOCK(mode) ? "a socket"
                                        : "not a regular file";
    throw InputError(field, path, fmt::format("a regular file (this is {})", kind));
  };
  if (!S_ISREG(st.st_mode)) refuse_kind(st.st_mode);
  // O_NONBLOCK: should the path become a FIFO between stat and open, open does not wait.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw InputError(field, path, fmt::format("a readable file ({})", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) refuse_kind(st.st_mode);
  auto too_large = [&] {
    return InputError(fmt::format("{}: {}: the file is larger than the {} MiB limit", field, path,
                                  max_bytes >> 20));
  };
  if (static_cast<size_t>(st.st_size) > max_bytes) throw too_large();
  // The limit holds while reading too: the file may grow after fstat.
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw InputError(field, path, fmt::format("a readable file ({})", std::strerror(errno)));
    if (got == 0) break;
    if (text.size() + static_cast<size_t>(got) > max_bytes) throw too_large();
    text.append(chunk, static_cast<size_t>(got));
  }
  return text;
}

Json load_document(const std::string& path) {
  return parse_document(read_input_file(path, "file", kMaxDocumentBytes), path);
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
