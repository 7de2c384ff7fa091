#include "memwall/quality/table.h"

#include <algorithm>
#include <cmath>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"

namespace memwall::quality {
namespace {

const std::vector<std::string> kFormats{"w8a8-fp8",  "w8a8-int8", "w8a16-int8", "w4a16-int4",
                                        "w4a16-fp4", "w4a4-fp4",  "kv-fp8",     "train-fp8"};

// One benchmark: a recovery the source states, the two scores it gives (recovery computed), or
// for training an upper bound on the relative loss error (recovery = 100 - bound).
BenchmarkResult parse_benchmark(const Json& b, const std::string& at) {
  BenchmarkResult r;
  r.name = require_string(b, "name", at);
  if (b.contains("recovery_pct")) {
    r.recovery_pct = require_number(b, "recovery_pct", at);
  } else if (b.contains("baseline") && b.contains("quantized")) {
    const double base = require_number(b, "baseline", at);
    if (!(base > 0)) throw InputError(at + ".baseline", std::to_string(base), "a positive score");
    r.recovery_pct = 100.0 * require_number(b, "quantized", at) / base;
  } else if (b.contains("loss_error_pct_max")) {
    r.recovery_pct = 100.0 - require_number(b, "loss_error_pct_max", at);
  } else {
    throw InputError(at, "no figure", "recovery_pct, baseline + quantized, or loss_error_pct_max");
  }
  if (!(r.recovery_pct > 0 && r.recovery_pct < 200) || !std::isfinite(r.recovery_pct))
    throw InputError(at + ".recovery_pct", std::to_string(r.recovery_pct), "0 to 200 %");
  return r;
}

}  // namespace

double QualityResult::worst_recovery_pct() const {
  double worst = benchmarks.front().recovery_pct;
  for (const auto& b : benchmarks) worst = std::min(worst, b.recovery_pct);
  return worst;
}

void QualityTable::load(const Json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("quality")) return;
  const std::string where = origin + ": quality.results";
  const Json& q = doc.at("quality");
  if (!q.is_object() || !q.contains("results") || !q.at("results").is_array())
    throw InputError(where, "missing", "an array of published results");
  const Json& list = q.at("results");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    QualityResult r;
    r.format = require_string(list[i], "format", at);
    if (std::find(kFormats.begin(), kFormats.end(), r.format) == kFormats.end())
      throw InputError::unknown_name(at + ".format", r.format, kFormats);
    r.method = require_string(list[i], "method", at);
    r.use = require_string(list[i], "use", at);
    if (r.use != "inference" && r.use != "training")
      throw InputError(at + ".use", r.use, "inference, training");
    r.family = require_string(list[i], "family", at);
    for (const auto& m : require_field(list[i], "models", at)) {
      if (!m.is_string()) throw InputError(at + ".models", m.dump(), "catalog model ids");
      r.models.push_back(m.get<std::string>());
    }
    const Json& benchmarks = require_field(list[i], "benchmarks", at);
    for (size_t j = 0; j < benchmarks.size(); ++j)
      r.benchmarks.push_back(
          parse_benchmark(benchmarks[j], at + ".benchmarks[" + std::to_string(j) + "]"));
    if (r.models.empty() || r.benchmarks.empty())
      throw InputError(at, "no models or benchmarks", "at least one model id and one benchmark");
    r.source = require_string(list[i], "source", at);
    r.tag = require_string(list[i], "tag", at);
    results_.push_back(std::move(r));
  }
}

const QualityTable& QualityTable::builtin() {
  static const QualityTable table = [] {
    QualityTable t;
    for (const auto& f : data::embedded_files()) {
      if (f.path.rfind("quality/", 0) != 0) continue;
      t.load(parse_document(f.content, std::string(f.path)), "data/" + std::string(f.path));
    }
    return t;
  }();
  return table;
}

}  // namespace memwall::quality
