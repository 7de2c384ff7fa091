#include "memwall/validate/runner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/statistics.h"
#include "memwall/core/text.h"
#include "memwall/measure/record.h"
#include "memwall/validate/names.h"
#include "memwall/validate/breakdown.h"

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

double median(std::vector<double> v) { return memwall::median(std::move(v)); }
double percentile90(std::vector<double> v) { return memwall::percentile90(std::move(v)); }

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
  // Per kind over its original set and all its groups: |error| and signed error.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> pooled;
  std::map<std::string, int> pooled_skipped;
  std::map<std::string, bool> grouped;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Json& c = cases[i];
    if (!c.is_object()) throw InputError("cases[]", c.dump().substr(0, 40), "an object");
    const bool record = is_record(c);
    CaseResult res = record ? predict_record_case(c, catalog, fmt::format("records[{}]", i))
                            : predict_case(c, catalog);
    const std::string k = record ? res.kind
                          : c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>()
                                                                        : "";
    // Offload to host memory is a regime only where a case says so ("all layers offloaded" in
    // llama.cpp means the opposite: every layer on the GPU).
    if (auto cfg = c.find("config"); cfg != c.end()) {
      const std::string t = to_lower(cfg->dump());
      for (const char* w : {"cpu offload", "offload to cpu", "offload_param", "offload_optimizer",
                            "zero-offload", "zero-infinity", "nvme"})
        if (has(t, w)) res.regime.set("offload", "host");
    }
    // Cases of an optional "group" (e.g. frontier runs added later) are summarised apart from
    // their kind's original set, as "kind/group", so each set's error stays readable.
    const std::string group = str_field(c, "group");
    const std::string key = group.empty() ? k : k + "/" + group;
    res.group = group;
    res.workload = regimes_of(c, catalog);
    grouped[k] = grouped[k] || !group.empty();
    if (res.predicted && std::isfinite(res.abs_pct_error())) {
      errors[key].push_back(res.abs_pct_error());
      pooled[k].first.push_back(res.abs_pct_error());
      pooled[k].second.push_back(res.signed_pct_error());
    } else {
      ++pooled_skipped[k];
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
                       percentile90(errs), std::nullopt});
  // A kind whose cases come in groups also gets one pooled row, so the whole set's error (the
  // original cases and every group added later) is stated next to each set's own.
  for (const auto& [k, e] : pooled) {
    if (!grouped[k]) continue;
    auto last = r.kinds.begin();  // after the kind's last row (rows are sorted by name)
    for (auto it = r.kinds.begin(); it != r.kinds.end(); ++it)
      if (it->kind == k || it->kind.rfind(k + "/", 0) == 0) last = it + 1;
    r.kinds.insert(last, {k + " (all)", static_cast<int>(e.first.size()), pooled_skipped[k],
                          median(e.first), percentile90(e.first), median(e.second)});
  }
  // The held-out intervals use every kind (the new-source scale pools them), so `kind` only
  // selects what is reported: the coverage is the same with and without it.
  add_breakdown(r, uncertainty::builtin_model().widening);
  if (!kind.empty()) {
    // Summary rows of a case group are "kind/group".
    auto other = [&kind](const auto& x) {
      return x.kind != kind && x.kind.rfind(kind + "/", 0) != 0 && x.kind != kind + " (all)";
    };
    r.cases.erase(std::remove_if(r.cases.begin(), r.cases.end(), other), r.cases.end());
    r.kinds.erase(std::remove_if(r.kinds.begin(), r.kinds.end(), other), r.kinds.end());
    r.groups.erase(std::remove_if(r.groups.begin(), r.groups.end(), other), r.groups.end());
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
  const Json doc = load_document(path);
  if (measure::is_measurement_document(doc)) {
    // Every record is read strictly first, so a file with one it cannot map is refused whole.
    (void)measure::parse_measurements(doc, path, catalog);
    return run_cases(doc.at("records"), catalog, kind);
  }
  return run_cases(doc, catalog, kind);
}

const GroupSummary* whole_kind(const Report& r, const std::string& kind) {
  for (const auto& g : r.groups)
    if (g.kind == kind && g.dimension == "all") return &g;
  return nullptr;
}

Json to_json(const Report& r) {
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json j{{"id", c.id}, {"kind", c.kind}, {"metric", c.metric}, {"unit", c.unit},
           {"measured", c.measured}};
    j["source"] = c.source;
    if (c.predicted) {
      j["predicted"] = *c.predicted;
      j["abs_pct_error"] = c.abs_pct_error();
      j["signed_pct_error"] = c.signed_pct_error();
      Json regime = Json::object();
      for (const auto& [dim, value] : c.regime.dims) regime[dim] = value;
      j["regime"] = regime;
      if (c.held_out && c.held_out->known) {
        j["interval_held_out"] = c.held_out->range(*c.predicted);
        j["inside_interval"] = std::fabs(std::log(*c.predicted / c.measured)) <= c.held_out->half_width;
      }
    } else {
      j["predicted"] = nullptr;
      j["skipped_reason"] = c.skipped_reason;
    }
    if (!c.assumptions.empty()) j["assumptions"] = c.assumptions;
    cases.push_back(j);
  }
  Json kinds = Json::array();
  for (const auto& k : r.kinds) {
    // No case predicted: no error (null), not 0 %.
    const auto error = [&k](double v) { return k.predicted > 0 ? Json(v) : Json(nullptr); };
    Json row{{"kind", k.kind}, {"predicted", k.predicted}, {"skipped", k.skipped},
             {"median_abs_pct_error", error(k.median_abs_pct_error)},
             {"p90_abs_pct_error", error(k.p90_abs_pct_error)}};
    if (k.median_signed_pct_error) row["median_signed_pct_error"] = *k.median_signed_pct_error;
    if (const GroupSummary* g = whole_kind(r, k.kind)) {
      row["median_signed_pct_error"] = g->median_signed_pct_error;
      row["coverage_80"] = g->coverage ? Json(*g->coverage) : Json(nullptr);
      row["median_interval_width_pct"] = g->median_width_pct ? Json(*g->median_width_pct) : Json(nullptr);
    }
    kinds.push_back(row);
  }
  return Json{{"cases", cases}, {"summary", kinds}, {"groups", groups_json(r)}};
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
  out += fmt::format("\n{:<24} {:>9} {:>8} {:>16} {:>13} {:>15}\n", "kind", "predicted", "skipped",
                     "median |error|", "p90 |error|", "median signed");
  for (const auto& k : r.kinds)
    if (k.predicted == 0)  // no error to summarise: say so rather than print 0.0 %
      out += fmt::format("{:<24} {:>9} {:>8} {:>16} {:>13} {:>15}\n", k.kind, k.predicted,
                         k.skipped, "-", "-", "-");
    else if (const GroupSummary* g = whole_kind(r, k.kind))
      out += fmt::format("{:<24} {:>9} {:>8} {:>15.1f}% {:>12.1f}% {:>+14.1f}%\n", k.kind,
                         k.predicted, k.skipped, k.median_abs_pct_error, k.p90_abs_pct_error,
                         g->median_signed_pct_error);
    else
      out += fmt::format("{:<24} {:>9} {:>8} {:>15.1f}% {:>12.1f}% {:>15}\n", k.kind, k.predicted,
                         k.skipped, k.median_abs_pct_error, k.p90_abs_pct_error,
                         k.median_signed_pct_error
                             ? fmt::format("{:+.1f}%", *k.median_signed_pct_error)
                             : std::string("-"));
  out += groups_text(r);
  return out;
}

std::string to_markdown(const Report& r) {
  std::string out =
      "## Summary\n\n| kind | predicted | skipped | median abs. error | p90 abs. error | median "
      "signed error | 80 % interval coverage (leave-one-source-out) | median interval width "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& k : r.kinds) {
    const GroupSummary* g = whole_kind(r, k.kind);
    if (k.predicted == 0) {
      out += fmt::format("| {} | 0 | {} | - | - | - | - | - |\n", k.kind, k.skipped);
      continue;
    }
    out += fmt::format("| {} | {} | {} | {:.1f} % | {:.1f} % | {} | {} | {} |\n", k.kind,
                       k.predicted, k.skipped, k.median_abs_pct_error, k.p90_abs_pct_error,
                       g ? fmt::format("{:+.1f} %", g->median_signed_pct_error)
                       : k.median_signed_pct_error
                           ? fmt::format("{:+.1f} %", *k.median_signed_pct_error)
                           : "-",
                       g ? pct_or_dash(g->coverage, 100, " ") : "-",
                       g ? pct_or_dash(g->median_width_pct, 1, " ") : "-");
  }
  out += groups_markdown(r);
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
