#include "memwall/core/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/text.h"

namespace memwall {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string printable(const std::string& v) {
  // Keep messages one line and bounded even for hostile input.
  std::string out;
  for (char c : v.substr(0, 80)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (v.size() > 80) out += "...";
  return out;
}

}  // namespace

InputError::InputError(const std::string& field, const std::string& value,
                       const std::string& allowed)
    : std::runtime_error(
          fmt::format("{}: value '{}' is not allowed; allowed: {}", field, printable(value), allowed)) {}

InputError InputError::unknown_name(const std::string& field, const std::string& value,
                                    const std::vector<std::string>& known) {
  const auto near = nearest_names(value, known, 5);
  std::string allowed;
  if (known.size() <= 12) {
    allowed = fmt::format("{}", fmt::join(known, ", "));
  } else {
    allowed = fmt::format("one of {} known names (nearest: {}; `memwall catalog list` shows all)",
                          known.size(), fmt::join(near, ", "));
  }
  return InputError(fmt::format("{}: unknown name '{}'; did you mean {}? allowed: {}", field,
                                printable(value), near.empty() ? "-" : near.front(), allowed));
}

std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& known, size_t n) {
  const std::string q = to_lower(name);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& k : known) {
    const std::string lk = to_lower(k);
    size_t d = edit_distance(q, lk);
    if (!q.empty() && lk.find(q) != std::string::npos) d = std::min<size_t>(d, 1);
    scored.emplace_back(d, k);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < n; ++i) out.push_back(scored[i].second);
  return out;
}

double require_positive(double v, const std::string& field) {
  if (!std::isfinite(v) || v <= 0)
    throw InputError(field, fmt::format("{}", v), "a finite number > 0");
  return v;
}

double require_non_negative(double v, const std::string& field) {
  if (!std::isfinite(v) || v < 0)
    throw InputError(field, fmt::format("{}", v), "a finite number >= 0");
  return v;
}

double require_fraction(double v, const std::string& field) {
  if (!std::isfinite(v) || v <= 0 || v > 1)
    throw InputError(field, fmt::format("{}", v), "a number in (0, 1]");
  return v;
}

}  // namespace memwall
