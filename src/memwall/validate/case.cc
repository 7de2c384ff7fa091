#include "memwall/validate/case.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"
#include "memwall/uncertainty/model.h"

namespace memwall::validate {

double CaseResult::abs_pct_error() const {
  if (!predicted || measured == 0) return std::nan("");
  return std::fabs(*predicted - measured) / std::fabs(measured) * 100.0;
}

double CaseResult::signed_pct_error() const {
  if (!predicted || measured == 0) return std::nan("");
  // Costs, where lower is better: times and GPU-hours (a training run's hardware time).
  const bool cost = unit == "s" || unit == "ms" || unit == "us" || unit == "GPU-hours";
  return (*predicted - measured) / std::fabs(measured) * (cost ? -100.0 : 100.0);
}

bool has(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

std::string str_field(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int64_t> int_field(const Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return static_cast<int64_t>(std::llround(it->get<double>()));
}

CaseResult start_result(const Json& c) {
  CaseResult r;
  r.id = str_field(c, "id");
  r.kind = str_field(c, "kind");
  r.metric = str_field(c, "metric");
  r.unit = str_field(c, "unit");
  r.source = uncertainty::source_key(str_field(c, "source"));
  r.regime.kind = r.kind;
  auto v = c.find("value");
  if (v != c.end() && v->is_number()) r.measured = v->get<double>();
  // Every metric a case measures (time, throughput, bandwidth, memory) is >= 0.
  if (r.measured < 0 || !std::isfinite(r.measured))
    throw InputError("case " + r.id + ": value", fmt::format("{:g}", r.measured),
                     "a measured value >= 0");
  return r;
}

std::string skipped_because(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return std::string("cannot express: ") + x.what();
  } catch (const InfeasibleError& x) {
    return std::string("infeasible as described: ") + x.what();
  } catch (const Json::exception& x) {
    return std::string("case lacks a field: ") + x.what();
  }
}

}  // namespace memwall::validate
