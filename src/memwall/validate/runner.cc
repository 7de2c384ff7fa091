#include "memwall/validate/runner.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::validate {

CaseResult predict_case(const Json& c, const Catalog& catalog) {
  const std::string kind = c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>() : "";
  try {
    if (kind == "inference") return predict_inference_case(c, catalog);
    if (kind == "training") return predict_training_case(c, catalog);
    if (kind == "microbench") return predict_microbench_case(c, catalog);
    if (kind == "memory") return predict_memory_case(c, catalog);
    if (kind == "offload") return predict_offload_case(c, catalog);
  } catch (const std::exception& e) {
    CaseResult r = start_result(c);
    r.skipped_reason = std::string("predictor failed: ") + e.what();
    return r;
  }
  CaseResult r = start_result(c);
  r.skipped_reason = "unknown kind '" + kind + "'";
  return r;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile90(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(0.9 * double(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

Json builtin_cases(const std::string& name) {
  std::string known;
  for (const auto& f : embedded_case_files()) {
    if (f.path == name) return parse_document(f.content, "built-in validation/" + name);
    known += (known.empty() ? "" : ", ") + std::string(f.path);
  }
  throw InputError("cases", name, "one of the built-in case files: " + known);
}

Report run_cases(const Json& cases, const Catalog& catalog, const std::string& kind) {
  if (!cases.is_array()) throw InputError("cases", cases.type_name(), "a JSON array of case objects");
  Report r;
  std::map<std::string, std::vector<double>> errors;
  std::map<std::string, int> skipped;
  for (const auto& c : cases) {
    if (!c.is_object()) throw InputError("cases[]", c.dump().substr(0, 40), "an object");
    const std::string k = c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>() : "";
    if (!kind.empty() && k != kind) continue;
    CaseResult res = predict_case(c, catalog);
    // Cases of an optional "group" (e.g. frontier runs added later) are summarised apart from
    // their kind's original set, as "kind/group", so each set's error stays readable.
    const std::string group = str_field(c, "group");
    const std::string key = group.empty() ? k : k + "/" + group;
    if (res.predicted && std::isfinite(res.abs_pct_error()))
      errors[key].push_back(res.abs_pct_error());
    else {
      if (res.predicted) {
        res.predicted.reset();
        res.skipped_reason = "no measured value to compare with";
      }
      ++skipped[key];
      errors[key];
    }
    r.cases.push_back(std::move(res));
  }
  for (const auto& [k, errs] : errors)
    r.kinds.push_back({k, static_cast<int>(errs.size()), skipped[k], median(errs),
                       percentile90(errs)});
  return r;
}

Report run_file(const std::string& path, const Catalog& catalog, const std::string& kind) {
  return run_cases(load_document(path), catalog, kind);
}

Json to_json(const Report& r) {
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json j{{"id", c.id}, {"kind", c.kind}, {"metric", c.metric}, {"unit", c.unit},
           {"measured", c.measured}};
    if (c.predicted) {
      j["predicted"] = *c.predicted;
      j["abs_pct_error"] = c.abs_pct_error();
    } else {
      j["predicted"] = nullptr;
      j["skipped_reason"] = c.skipped_reason;
    }
    if (!c.assumptions.empty()) j["assumptions"] = c.assumptions;
    cases.push_back(j);
  }
  Json kinds = Json::array();
  for (const auto& k : r.kinds)
    kinds.push_back({{"kind", k.kind}, {"predicted", k.predicted}, {"skipped", k.skipped},
                     {"median_abs_pct_error", k.median_abs_pct_error},
                     {"p90_abs_pct_error", k.p90_abs_pct_error}});
  return Json{{"cases", cases}, {"summary", kinds}};
}

std::string to_text(const Report& r) {
  std::string out = fmt::format("{:<52} {:<11} {:>12} {:>12} {:>8}\n", "case", "kind", "measured",
                                "predicted", "error");
  for (const auto& c : r.cases) {
    if (c.predicted)
      out += fmt::format("{:<52} {:<11} {:>12.4g} {:>12.4g} {:>+7.1f}%\n", c.id, c.kind,
                         c.measured, *c.predicted, (*c.predicted / c.measured - 1) * 100);
  }
  out += "\nskipped:\n";
  for (const auto& c : r.cases)
    if (!c.predicted) out += fmt::format("  {}: {}\n", c.id, c.skipped_reason);
  out += fmt::format("\n{:<12} {:>9} {:>8} {:>16} {:>13}\n", "kind", "predicted", "skipped",
                     "median |error|", "p90 |error|");
  for (const auto& k : r.kinds)
    out += fmt::format("{:<12} {:>9} {:>8} {:>15.1f}% {:>12.1f}%\n", k.kind, k.predicted,
                       k.skipped, k.median_abs_pct_error, k.p90_abs_pct_error);
  return out;
}

std::string to_markdown(const Report& r) {
  std::string out = "## Summary\n\n| kind | predicted | skipped | median abs. error | p90 abs. error |\n|---|---:|---:|---:|---:|\n";
  for (const auto& k : r.kinds)
    out += fmt::format("| {} | {} | {} | {:.1f} % | {:.1f} % |\n", k.kind, k.predicted, k.skipped,
                       k.median_abs_pct_error, k.p90_abs_pct_error);
  out += "\n## Cases\n\n| case | kind | unit | measured | predicted | error | assumptions |\n|---|---|---|---:|---:|---:|---|\n";
  for (const auto& c : r.cases)
    if (c.predicted)
      out += fmt::format("| {} | {} | {} | {:.4g} | {:.4g} | {:+.1f} % | {} |\n", c.id, c.kind,
                         c.unit, c.measured, *c.predicted, (*c.predicted / c.measured - 1) * 100,
                         c.assumptions);
  out += "\n## Skipped\n\n| case | kind | reason |\n|---|---|---|\n";
  for (const auto& c : r.cases)
    if (!c.predicted) {
      std::string reason = c.skipped_reason;
      std::replace(reason.begin(), reason.end(), '|', '/');
      std::replace(reason.begin(), reason.end(), '\n', ' ');
      out += fmt::format("| {} | {} | {} |\n", c.id, c.kind, reason);
    }
  return out;
}

}  // namespace memwall::validate
