#include "memwall/comm/sizes.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::comm {
namespace {

const char* kAllowed = "a size like 1024, 64K, 1.5M, 8G (binary prefixes K/M/G/T, optional B), "
                       "a range 1K..8G (doubling) or a list 1M,1G";

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

}  // namespace

Bytes parse_size(std::string_view text, const std::string& field) {
  const std::string t = trim(text);
  if (t.empty() || t.size() > 40) throw InputError(field, t, kAllowed);
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  const std::string number = t.substr(0, i);
  std::string unit = t.substr(i);
  for (auto& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (number.empty() || std::count(number.begin(), number.end(), '.') > 1) throw InputError(field, t, kAllowed);
  double scale = 1;
  if (!unit.empty() && std::string("KMGT").find(unit[0]) != std::string::npos) {
    scale = std::pow(1024.0, static_cast<double>(std::string("KMGT").find(unit[0]) + 1));
    unit.erase(0, 1);
  }
  if (!(unit.empty() || unit == "B" || unit == "IB")) throw InputError(field, t, kAllowed);
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end) * scale;
  if (end == nullptr || *end != '\0' || !std::isfinite(v) || v < 1 || v > kMaxMessageBytes)
    throw InputError(field, t, fmt::format("a size from 1 byte to 1T; {}", kAllowed));
  return Bytes(std::floor(v));
}

std::vector<Bytes> parse_sizes(std::string_view text, const std::string& field) {
  std::vector<Bytes> out;
  const std::string t = trim(text);
  const size_t dots = t.find("..");
  if (dots != std::string::npos) {
    const Bytes lo = parse_size(t.substr(0, dots), field);
    const Bytes hi = parse_size(t.substr(dots + 2), field);
    if (hi < lo) throw InputError(field, t, "a range whose end is at least its start");
    for (double s = lo.value(); s <= hi.value() * (1 + 1e-12); s *= 2) {
      if (out.size() == kMaxSizes)
        throw InputError(field, t, fmt::format("at most {} sizes (a range doubles each step)", kMaxSizes));
      out.push_back(Bytes(s));
    }
    return out;
  }
  size_t start = 0;
  while (start <= t.size()) {
    const size_t comma = t.find(',', start);
    const std::string piece = t.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (out.size() == kMaxSizes) throw InputError(field, t, fmt::format("at most {} sizes", kMaxSizes));
    out.push_back(parse_size(piece, field));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_size(Bytes b) {
  const double v = b.value();
  const char* units[] = {"T", "G", "M", "K"};
  double scale = std::pow(1024.0, 4);
  for (const char* u : units) {
    if (v >= scale && std::fmod(v, scale / 8) == 0) return fmt::format("{:g}{}", v / scale, u);
    scale /= 1024;
  }
  return fmt::format("{:.0f}", v);
}

}  // namespace memwall::comm
