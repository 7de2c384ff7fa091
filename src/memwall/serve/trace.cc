#include "memwall/serve/trace.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "memwall/core/document.h"
#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

constexpr size_t kMaxTraceRequests = 50'000'000;
constexpr double kMaxTokens = 10'000'000;
constexpr double kMaxArrival = 1e9;  // seconds (~31 years)

enum class Field { arrival, input, output, prefix_id, prefix_tokens, ignored };

Field field_of(const std::string& name) {
  if (name == "arrival_s" || name == "arrival_time" || name == "timestamp" || name == "arrival")
    return Field::arrival;
  if (name == "input_tokens" || name == "input" || name == "prompt_tokens") return Field::input;
  if (name == "output_tokens" || name == "output" || name == "completion_tokens")
    return Field::output;
  if (name == "prefix_id") return Field::prefix_id;
  if (name == "prefix_tokens") return Field::prefix_tokens;
  return Field::ignored;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

struct Builder {
  std::string origin;
  std::unordered_map<std::string, int32_t> prefix_ids;
  std::vector<Request> out;

  [[noreturn]] void fail(size_t line, const std::string& what) const {
    throw InputError(fmt::format("{} line {}: {}", origin, line, what));
  }
  double number(size_t line, const std::string& name, const std::string& text) const {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      fail(line, fmt::format("{} '{}' is not a number", name, text.substr(0, 40)));
    }
    if (used != text.size() || !std::isfinite(v))
      fail(line, fmt::format("{} '{}' is not a finite number", name, text.substr(0, 40)));
    return v;
  }
  int32_t tokens(size_t line, const std::string& name, double v, double lo) const {
    if (v < lo || v > kMaxTokens || v != std::floor(v))
      fail(line, fmt::format("{} {} must be a whole number in [{}, {}]", name, v, lo, kMaxTokens));
    return static_cast<int32_t>(v);
  }
  int32_t prefix(const std::string& key) {
    auto it = prefix_ids.find(key);
    if (it != prefix_ids.end()) return it->second;
    const auto id = static_cast<int32_t>(prefix_ids.size());
    prefix_ids.emplace(key, id);
    return id;
  }
  void add(size_t line, double arrival, double input, double output, bool has_prefix,
           const std::string& prefix_key, double prefix_tokens, bool has_prefix_tokens) {
    if (out.size() >= kMaxTraceRequests)
      fail(line, fmt::format("more than {} requests", kMaxTraceRequests));
    if (arrival < 0 || arrival > kMaxArrival)
      fail(line, fmt::format("arrival {} must be in [0, {}] seconds", arrival, kMaxArrival));
    Request r;
    r.arrival_s = arrival;
    r.input_tokens = tokens(line, "input_tokens", input, 1);
    r.output_tokens = tokens(line, "output_tokens", output, 1);
    if (has_prefix) {
      r.prefix_id = prefix(prefix_key);
      r.prefix_tokens =
          has_prefix_tokens ? tokens(line, "prefix_tokens", prefix_tokens, 0) : r.input_tokens;
      if (r.prefix_tokens > r.input_tokens)
        fail(line, fmt::format("prefix_tokens {} exceeds input_tokens {}", r.prefix_tokens,
                               r.input_tokens));
    } else if (has_prefix_tokens) {
      fail(line, "prefix_tokens given without prefix_id");
    }
    out.push_back(r);
  }
};

void parse_jsonl(std::string_view text, Builder& b) {
  size_t line_no = 0, pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string line =
        trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (line.empty()) continue;
    Json j;
    try {
      j = parse_document(line, b.origin + ".json");
    } catch (const InputError& e) {
      b.fail(line_no, e.what());
    }
    if (!j.is_object()) b.fail(line_no, "expected a JSON object");
    double vals[5] = {0, 0, 0, 0, 0};
    bool seen[5] = {false, false, false, false, false};
    std::string prefix_key;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const Field f = field_of(it.key());
      if (f == Field::ignored) continue;
      const auto idx = static_cast<size_t>(f);
      if (seen[idx]) b.fail(line_no, fmt::format("field '{}' given twice", it.key()));
      seen[idx] = true;
      if (f == Field::prefix_id) {
        if (it->is_string()) {
          prefix_key = it->get<std::string>();
        } else if (it->is_number_integer()) {
          prefix_key = std::to_string(it->get<int64_t>());
        } else {
          b.fail(line_no, "prefix_id must be a string or an integer");
        }
        continue;
      }
      if (!it->is_number()) b.fail(line_no, fmt::format("'{}' must be a number", it.key()));
      vals[idx] = it->get<double>();
    }
    for (Field f : {Field::arrival, Field::input, Field::output})
      if (!seen[static_cast<size_t>(f)])
        b.fail(line_no, "needs arrival_s, input_tokens and output_tokens");
    b.add(line_no, vals[0], vals[1], vals[2], seen[3], prefix_key, vals[4], seen[4]);
  }
}

void parse_csv(std::string_view text, Builder& b) {
  std::vector<Field> columns = {Field::arrival, Field::input, Field::output, Field::prefix_id,
                                Field::prefix_tokens};
  size_t line_no = 0, pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string line =
        trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    {
      std::string cur;
      for (char c : line) {
        if (c == ',') {
          cells.push_back(trim(cur));
          cur.clear();
        } else {
          cur += c;
        }
      }
      cells.push_back(trim(cur));
    }
    if (cells.size() > 64) b.fail(line_no, "more than 64 columns");
    if (first) {
      first = false;
      const bool header = std::isalpha(static_cast<unsigned char>(cells[0][0])) ||
                          (cells[0].empty() && cells.size() > 1);
      if (header) {
        columns.clear();
        bool seen[5] = {false, false, false, false, false};
        for (const auto& name : cells) {
          const Field f = field_of(name);
          if (f != Field::ignored) {
            if (seen[static_cast<size_t>(f)])
              b.fail(line_no, fmt::format("column '{}' given twice", name));
            seen[static_cast<size_t>(f)] = true;
          }
          columns.push_back(f);
        }
        if (!seen[0] || !seen[1] || !seen[2])
          b.fail(line_no, "header needs arrival_s, input_tokens and output_tokens columns");
        continue;
      }
    }
    if (cells.size() < 3 || cells.size() > columns.size())
      b.fail(line_no, fmt::format("expected 3 to {} comma-separated values, got {}", columns.size(),
                                  cells.size()));
    double vals[5] = {0, 0, 0, 0, 0};
    bool seen[5] = {false, false, false, false, false};
    std::string prefix_key;
    for (size_t i = 0; i < cells.size(); ++i) {
      const Field f = columns[i];
      if (f == Field::ignored) continue;
      const auto idx = static_cast<size_t>(f);
      if (cells[i].empty()) continue;  // an empty optional cell
      seen[idx] = true;
      if (f == Field::prefix_id) {
        prefix_key = cells[i];
        continue;
      }
      static const char* kNames[5] = {"arrival_s", "input_tokens", "output_tokens", "prefix_id",
                                      "prefix_tokens"};
      vals[idx] = b.number(line_no, kNames[idx], cells[i]);
    }
    if (!seen[0] || !seen[1] || !seen[2])
      b.fail(line_no, "needs arrival_s, input_tokens and output_tokens values");
    b.add(line_no, vals[0], vals[1], vals[2], seen[3], prefix_key, vals[4], seen[4]);
  }
}

}  // namespace

std::vector<Request> parse_trace(std::string_view text, const std::string& origin) {
  if (text.size() > kMaxDocumentBytes * 16)
    throw InputError(fmt::format("{}: trace larger than {} MiB", origin, kMaxDocumentBytes >> 16));
  Builder b;
  b.origin = origin;
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && text[i] == '{') {
    parse_jsonl(text, b);
  } else {
    parse_csv(text, b);
  }
  if (b.out.empty()) throw InputError(fmt::format("{}: the trace holds no requests", origin));
  return std::move(b.out);
}

std::vector<Request> load_trace(const std::string& path) {
  return parse_trace(read_input_file(path, "--trace", kMaxTraceBytes), path);
}

}  // namespace memwall::serve
