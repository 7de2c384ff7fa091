#include "memwall/validate/case.h"

#include <cmath>

namespace memwall::validate {

double CaseResult::abs_pct_error() const {
  if (!predicted || measured == 0) return std::nan("");
  return std::fabs(*predicted - measured) / std::fabs(measured) * 100.0;
}

CaseResult start_result(const Json& c) {
  CaseResult r;
  auto str = [&](const char* k) {
    auto it = c.find(k);
    return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  r.id = str("id");
  r.kind = str("kind");
  r.metric = str("metric");
  r.unit = str("unit");
  auto v = c.find("value");
  if (v != c.end() && v->is_number()) r.measured = v->get<double>();
  return r;
}

}  // namespace memwall::validate
