#include "memwall/validate/runner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/validate/names.h"

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
  std::map<std::string, std::vector<double>> errors, signed_errors;
  std::map<std::string, int> skipped;
  // (kind, regime) -> signed errors, in first-seen order of the regimes.
  std::map<std::pair<std::string, std::string>, std::vector<double>> regime_errors;
  std::vector<std::pair<std::string, std::string>> regime_order;
  for (const auto& c : cases) {
    if (!c.is_object()) throw InputError("cases[]", c.dump().substr(0, 40), "an object");
    const std::string k = c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>() : "";
    if (!kind.empty() && k != kind) continue;
    CaseResult res = predict_case(c, catalog);
    // Cases of an optional "group" (e.g. frontier runs added later) are summarised apart from
    // their kind's original set, as "kind/group", so each set's error stays readable.
    const std::string group = str_field(c, "group");
    const std::string key = group.empty() ? k : k + "/" + group;
    if (res.predicted && std::isfinite(res.abs_pct_error())) {
      errors[key].push_back(res.abs_pct_error());
      // Signed so that > 0 always means optimistic: more throughput, or less time, than measured.
      const bool time_unit = res.unit == "s" || res.unit == "ms" || res.unit == "us";
      const double e = (*res.predicted / res.measured - 1) * (time_unit ? -100 : 100);
      signed_errors[key].push_back(e);
      for (const auto& g : regimes_of(c, catalog)) {
        auto rk = std::make_pair(key, g);
        if (!regime_errors.count(rk)) regime_order.push_back(rk);
        regime_errors[rk].push_back(e);
      }
    } else {
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
                       percentile90(errs), median(signed_errors[k])});
  std::sort(regime_order.begin(), regime_order.end());
  for (const auto& key : regime_order) {
    const auto& e = regime_errors[key];
    std::vector<double> abs_e;
    for (double x : e) abs_e.push_back(std::fabs(x));
    r.regimes.push_back({key.first, key.second, static_cast<int>(e.size()), median(abs_e),
                         percentile90(abs_e), median(e)});
  }
  return r;
}

std::vector<std::string> regimes_of(const Json& c, const Catalog& catalog) {
  std::vector<std::string> out;
  if (str_field(c, "kind") != "inference" || !c.contains("config") || !c["config"].is_object())
    return out;
  const Json& cfg = c["config"];
  const Json hw = c.contains("hardware") && c["hardware"].is_object() ? c["hardware"] : Json::object();
  auto output = int_field(cfg, "output_len");
  if (!output) output = int_field(cfg, "gen_tokens");
  if (output) out.push_back(*output <= 256 ? "output <= 256" : "output > 256");
  const auto tp = int_field(cfg, "tp").value_or(int_field(hw, "count").value_or(1));
  out.push_back(fmt::format("tp {}", tp));
  const std::string p = to_lower(str_field(cfg, "precision"));
  out.push_back(has(p, "fp4")                                    ? "fp4"
                : has(p, "fp8")                                  ? "fp8"
                : has(p, "q4") || has(p, "int4") || has(p, "awq") ? "int4"
                                                                 : "bf16/fp16");
  if (hw.contains("gpu") && hw["gpu"].is_string()) {
    std::string note;
    try {
      out.push_back(to_lower(catalog.accelerator(hardware_id(str_field(hw, "gpu"), catalog, note)).vendor));
    } catch (const InputError&) {
      // an accelerator the catalog does not know: the case is skipped anyway
    }
  }
  const std::string batching = to_lower(str_field(cfg, "batching"));
  out.push_back(has(batching, "continuous") ? "continuous" : "static");
  if (c.contains("model") && c["model"].is_object()) {
    std::string note;
    try {
      if (catalog.model(model_id(str_field(c["model"], "name"), catalog, note)).is_moe())
        out.push_back("moe");
    } catch (const InputError&) {
      // a model the catalog does not know: the case is skipped anyway
    }
  }
  return out;
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
                     {"p90_abs_pct_error", k.p90_abs_pct_error},
                     {"median_pct_error", k.median_pct_error}});
  Json regimes = Json::array();
  for (const auto& g : r.regimes)
    regimes.push_back({{"kind", g.kind}, {"regime", g.regime}, {"predicted", g.predicted},
                       {"median_abs_pct_error", g.median_abs_pct_error},
                       {"p90_abs_pct_error", g.p90_abs_pct_error},
                       {"median_pct_error", g.median_pct_error}});
  return Json{{"cases", cases}, {"summary", kinds}, {"regimes", regimes}};
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
  out += fmt::format("\n{:<12} {:>9} {:>8} {:>16} {:>13} {:>15}\n", "kind", "predicted", "skipped",
                     "median |error|", "p90 |error|", "median error");
  for (const auto& k : r.kinds)
    out += fmt::format("{:<12} {:>9} {:>8} {:>15.1f}% {:>12.1f}% {:>+14.1f}%\n", k.kind,
                       k.predicted, k.skipped, k.median_abs_pct_error, k.p90_abs_pct_error,
                       k.median_pct_error);
  for (const auto& g : r.regimes)
    out += fmt::format("  {:<10} {:>9} {:>8} {:>15.1f}% {:>12.1f}% {:>+14.1f}%\n",
                       g.regime, g.predicted, "", g.median_abs_pct_error, g.p90_abs_pct_error,
                       g.median_pct_error);
  return out;
}

std::string to_markdown(const Report& r) {
  std::string out =
      "## Summary\n\n| kind | predicted | skipped | median abs. error | p90 abs. error | median "
      "signed error |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& k : r.kinds)
    out += fmt::format("| {} | {} | {} | {:.1f} % | {:.1f} % | {:+.1f} % |\n", k.kind,
                       k.predicted, k.skipped, k.median_abs_pct_error, k.p90_abs_pct_error,
                       k.median_pct_error);
  if (!r.regimes.empty()) {
    out += "\n## By regime\n\nSigned error > 0: memwall is optimistic (predicts more throughput, or "
           "less time, than measured); < 0: pessimistic.\n\n| kind | regime | predicted | median abs. error | "
           "p90 abs. error | median signed error |\n|---|---|---:|---:|---:|---:|\n";
    for (const auto& g : r.regimes)
      out += fmt::format("| {} | {} | {} | {:.1f} % | {:.1f} % | {:+.1f} % |\n", g.kind, g.regime,
                         g.predicted, g.median_abs_pct_error, g.p90_abs_pct_error,
                         g.median_pct_error);
  }
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
