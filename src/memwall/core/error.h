// The two ways a request can fail: bad input (exit 2) and a configuration that cannot run (exit 3).
// Messages name the field, the value and what is allowed, or give the reason in numbers.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace memwall {

inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInfeasible = 3;

class InputError : public std::runtime_error {
 public:
  // "field: value 'v' is not allowed; allowed: <allowed>"
  InputError(const std::string& field, const std::string& value, const std::string& allowed);
  explicit InputError(const std::string& message) : std::runtime_error(message) {}

  // For an unknown name: lists the nearest known names (edit distance), or all if there are few.
  static InputError unknown_name(const std::string& field, const std::string& value,
                                 const std::vector<std::string>& known);
};

class InfeasibleError : public std::runtime_error {
 public:
  explicit InfeasibleError(const std::string& reason) : std::runtime_error(reason) {}
};

// Up to `n` known names closest to `name` (case-insensitive Levenshtein distance, then prefix).
std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& known, size_t n = 3);

// Checks for numeric input: finite and in range, else InputError naming the field.
double require_positive(double v, const std::string& field);
double require_non_negative(double v, const std::string& field);
double require_fraction(double v, const std::string& field);  // 0 < v <= 1

}  // namespace memwall
