#include "memwall/plan/workload.h"

#include <cmath>
#include <sstream>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

double parse_seconds(const std::string& text, const std::string& field) {
  std::string t = text;
  double scale = 1.0;
  if (t.size() > 2 && t.substr(t.size() - 2) == "ms") {
    scale = 1e-3;
    t = t.substr(0, t.size() - 2);
  } else if (!t.empty() && t.back() == 's') {
    t.pop_back();
  }
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size()) throw InputError(field, text, "seconds, e.g. 1, 0.05 or 50ms");
  return require_positive(v * scale, field);
}

}  // namespace

Sla parse_sla(const std::string& spec) {
  Sla sla;
  bool ttft = false, tpot = false;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError("--sla", item, "key=value pairs: ttft_p99, tpot_p99, e2e_p99");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "ttft_p99" || key == "ttft") {
      sla.ttft_p99 = Seconds(parse_seconds(value, "--sla ttft_p99"));
      ttft = true;
    } else if (key == "tpot_p99" || key == "tpot") {
      sla.tpot_p99 = Seconds(parse_seconds(value, "--sla tpot_p99"));
      tpot = true;
    } else if (key == "e2e_p99" || key == "e2e") {
      sla.e2e_p99 = Seconds(parse_seconds(value, "--sla e2e_p99"));
    } else {
      throw InputError::unknown_name("--sla key", key, {"ttft_p99", "tpot_p99", "e2e_p99"});
    }
  }
  if (!ttft || !tpot) throw InputError("--sla", spec, "both ttft_p99=... and tpot_p99=...");
  return sla;
}

void InferenceWorkload::validate() const {
  if (load.rate_per_s.has_value() == load.concurrency.has_value()) {
    throw InputError("load", "rate and concurrency", "exactly one of --rate or --concurrency");
  }
  if (load.rate_per_s) require_positive(*load.rate_per_s, "--rate");
  if (load.concurrency) require_positive(*load.concurrency, "--concurrency");
  if (load.rate_per_s && *load.rate_per_s > 1e7) throw InputError("--rate", std::to_string(*load.rate_per_s), "at most 1e7 requests/s");
  if (load.concurrency && *load.concurrency > 1e8) throw InputError("--concurrency", std::to_string(*load.concurrency), "at most 1e8");
  require_positive(input.mean, "--input mean");
  require_positive(output.mean, "--output mean");
  require_positive(input.p99, "--input p99");
  require_positive(sla.ttft_p99.value(), "--sla ttft_p99");
  require_positive(sla.tpot_p99.value(), "--sla tpot_p99");
}

}  // namespace memwall::plan
