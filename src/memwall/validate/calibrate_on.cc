#include "memwall/validate/calibrate_on.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "memwall/core/error.h"
#include "memwall/measure/calibrate.h"
#include "memwall/perf/efficiency.h"
#include "memwall/uncertainty/regime.h"
#include "memwall/validate/names.h"
#include "memwall/validate/runner.h"

namespace memwall::validate {
namespace {

// The version a case's config.framework states ("TensorRT-LLM v0.6.1" -> "0.6.1", "vLLM 0.11.0"
// -> "0.11"; trailing ".0" parts dropped so both spellings of one release group together), empty
// when none is stated.
std::string stated_version(const Json& c) {
  if (!c.contains("config") || !c["config"].is_object()) return {};
  const Json& f = c["config"].value("framework", Json());
  if (!f.is_string()) return {};
  std::string v = release_in(f.get<std::string>());
  if (v.find('.') == std::string::npos) return {};  // a count or a year, not a release
  while (v.size() > 2 && v.compare(v.size() - 2, 2, ".0") == 0 &&
         std::count(v.begin(), v.end(), '.') > 1)
    v.resize(v.size() - 2);
  return v;
}

const perf::EngineProfile* profile_of(const std::string& key) {
  for (const auto& p : perf::default_efficiency().engines)
    if (p.key() == key) return &p;
  return nullptr;
}

bool lower_is_better(const CaseResult& r) {
  return r.unit == "s" || r.unit == "ms" || r.unit == "us" || r.unit == "GPU-hours";
}

CalibrateOnRow summarise(const std::string& dim, const std::string& value,
                         const std::vector<const CaseResult*>& before,
                         const std::vector<const CaseResult*>& after) {
  CalibrateOnRow row;
  row.dimension = dim;
  row.value = value;
  row.cases = static_cast<int>(before.size());
  std::vector<double> ab, sb, aa, sa;
  for (const CaseResult* c : before) {
    ab.push_back(c->abs_pct_error());
    sb.push_back(c->signed_pct_error());
  }
  for (const CaseResult* c : after) {
    aa.push_back(c->abs_pct_error());
    sa.push_back(c->signed_pct_error());
  }
  row.median_abs_before = median(ab);
  row.p90_abs_before = percentile90(ab);
  row.median_signed_before = median(sb);
  row.median_abs_after = median(aa);
  row.p90_abs_after = percentile90(aa);
  row.median_signed_after = median(sa);
  auto cover = [](const std::vector<const CaseResult*>& cs, std::optional<double>& coverage,
                  std::optional<double>& width) {
    std::vector<double> widths;
    int inside = 0;
    for (const CaseResult* c : cs) {
      if (!c->held_out || !c->held_out->known || !c->predicted) continue;
      const double h = c->held_out->half_width;
      widths.push_back((std::exp(h) - std::exp(-h)) * 100);
      if (std::fabs(std::log(*c->predicted / c->measured)) <= h) ++inside;
    }
    if (widths.empty()) return;
    coverage = double(inside) / double(widths.size());
    width = median(widths);
  };
  cover(before, row.coverage_before, row.median_width_before);
  cover(after, row.coverage_after, row.median_width_after);
  return row;
}

}  // namespace

// One observation of a predicted case, re-predicted under a candidate efficiency.
measure::Observation observation_of(const Json& c, const CaseResult& r, const Catalog& catalog) {
  measure::Observation ob;
  ob.id = r.id;
  ob.measured = r.measured;
  ob.lower_is_better = lower_is_better(r);
  const bool training = r.kind == "training";
  ob.predict = [c = &c, &catalog, training](const std::shared_ptr<const perf::Efficiency>& e) {
    return (training ? predict_training_case(*c, catalog, e)
                     : predict_inference_case(*c, catalog, e))
        .predicted;
  };
  return ob;
}

CalibrateOnReport calibrate_on(const Json& cases, const Catalog& catalog, int k,
                               const std::string& kind, bool in_sample) {
  if (k < 1 || k > 1000) throw InputError("--calibrate-on", std::to_string(k), "1 to 1000 cases");
  if (kind != "inference" && kind != "training")
    throw InputError("--kind", kind, "inference or training with --calibrate-on");
  if (!cases.is_array()) throw InputError("cases", cases.type_name(), "a JSON array of case objects");
  const bool training = kind == "training";
  CalibrateOnReport out;
  out.k = k;
  out.kind = kind;
  out.in_sample = in_sample;
  // One case under a calibration (null: the built-in parameters).
  auto predict = [&](const Json& c, const std::shared_ptr<const perf::Efficiency>& e) {
    return training ? predict_training_case(c, catalog, e) : predict_inference_case(c, catalog, e);
  };
  // The uncalibrated prediction of every case of the kind, grouped in file order.
  std::vector<std::pair<const Json*, CaseResult>> predicted;
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  std::vector<uncertainty::Residual> residuals;  // every predicted case of the kind
  for (const Json& c : cases) {
    if (!c.is_object() || str_field(c, "kind") != kind) continue;
    CaseResult r = predict_case(c, catalog);
    if (r.predicted && *r.predicted > 0 && r.measured > 0)
      residuals.push_back({r.id, r.source, r.regime, std::log(*r.predicted / r.measured)});
    const std::string& stack = training ? r.framework : r.engine_profile;
    if (!r.predicted || !(r.measured > 0) || stack.empty()) continue;
    // The engine's stated version splits a publication's rows of one profile (TensorRT-LLM
    // 0.5 latency and 0.6.1 throughput tables both run the 0.6 profile): a user's own stack is one
    // version, and a fit on one release says nothing of another's kernels.
    const std::string stated = stated_version(c);
    const std::string key = r.source + " | " + r.accelerator + " | " + stack +
                            (stated.empty() ? "" : " (stated " + stated + ")") + " | " + r.precisions;
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(predicted.size());
    predicted.emplace_back(&c, std::move(r));
  }
  out.groups = static_cast<int>(groups.size());
  // The built-in intervals as validate reports them: fitted without the case's source.
  std::map<std::string, uncertainty::Interval> builtin_interval;
  for (const auto& h : uncertainty::leave_one_source_out(residuals))
    builtin_interval[h.residual.id] = h.interval;
  // Per fitted group, what its calibrated interval is built from.
  struct Fitted {
    std::string key, source, accelerator;
    int records = 0, parameters = 0;
    double residual_sd_log = 0;
    std::vector<size_t> held;  // indices into out.before / out.after
  };
  std::vector<Fitted> fitted_groups;
  for (const std::string& key : order) {
    const std::vector<size_t>& idx = groups[key];
    if (idx.size() <= static_cast<size_t>(k)) continue;
    const CaseResult& first = predicted[idx.front()].second;
    std::vector<measure::Observation> obs;
    const size_t fitted_on = in_sample ? idx.size() : static_cast<size_t>(k);
    for (size_t i = 0; i < fitted_on; ++i) {
      const auto& [c, r] = predicted[idx[i]];
      obs.push_back(observation_of(*c, r, catalog));
    }
    std::optional<measure::GroupFit> fitted_group;
    if (training) {
      fitted_group = measure::fit_framework(first.framework, std::move(obs));
    } else {
      const perf::EngineProfile* profile = profile_of(first.engine_profile);
      const Accelerator* acc = catalog.find_accelerator(first.accelerator);
      if (!profile || !acc) continue;
      fitted_group = measure::fit_engine(*profile, *acc, std::move(obs));
    }
    const measure::GroupFit& fit = *fitted_group;
    const Json settings = measure::engine_settings(fit);
    std::string fitted;
    for (const auto& p : fit.parameters)
      if (p.identified) fitted += fmt::format("{}{} {:.4g} -> {:.4g}", fitted.empty() ? "" : ", ", p.name, p.before, p.after);
    out.fits.push_back(fmt::format("{}: {} cases fitted: {}", key,
                                   in_sample ? fmt::format("all of {} (in sample)", idx.size())
                                             : fmt::format("{} of {}", k, idx.size()),
                                   fitted.empty() ? "nothing identified" : fitted));
    ++out.groups_fitted;
    const auto efficiency = std::make_shared<const perf::Efficiency>(perf::apply_calibration(
        perf::default_efficiency(), measure::calibration_document(fit), "calibrate-on fit"));
    Fitted f{key, first.source, first.accelerator, static_cast<int>(fitted_on), 0,
             fit.residual_sd_log, {}};
    for (const auto& p : fit.parameters) f.parameters += p.identified ? 1 : 0;
    for (size_t i = static_cast<size_t>(k); i < idx.size(); ++i) {
      const auto& [c, r] = predicted[idx[i]];
      CaseResult after = settings.empty() ? r : predict(*c, efficiency);
      after.source = r.source;
      if (!after.predicted || !(*after.predicted > 0)) continue;  // inexpressible after the fit
      f.held.push_back(out.before.size());
      out.before.push_back(r);
      if (auto it = builtin_interval.find(r.id); it != builtin_interval.end())
        out.before.back().held_out = it->second;
      out.after.push_back(std::move(after));
      out.group_of.push_back(key);
    }
    fitted_groups.push_back(std::move(f));
  }
  // The pooled scatter after calibration: on every group (what --fit-uncertainty stores), and per
  // source without that source's groups, so a case's calibrated interval never saw its own source.
  auto log_errors = [&](const std::string& except_source) {
    std::vector<std::vector<double>> by_group;
    for (const Fitted& f : fitted_groups) {
      if (f.source == except_source) continue;
      std::vector<double> e;
      for (size_t i : f.held) e.push_back(std::log(*out.after[i].predicted / out.after[i].measured));
      by_group.push_back(std::move(e));
    }
    return by_group;
  };
  out.scatter = uncertainty::fit_calibrated_scatter(log_errors(""), k);
  std::map<std::string, uncertainty::CalibratedScatter> without;
  for (const Fitted& f : fitted_groups) {
    if (!without.count(f.source))
      without[f.source] = uncertainty::fit_calibrated_scatter(log_errors(f.source), k);
    const uncertainty::CalibratedScatter& pooled = without[f.source];
    const uncertainty::Interval i = uncertainty::calibrated_interval(
        f.records, f.parameters, f.residual_sd_log, &pooled, f.key, f.accelerator);
    for (size_t h : f.held) out.after[h].held_out = i;
  }
  std::vector<const CaseResult*> all_b, all_a;
  std::map<std::string, std::pair<std::vector<const CaseResult*>, std::vector<const CaseResult*>>> by_source;
  for (size_t i = 0; i < out.before.size(); ++i) {
    all_b.push_back(&out.before[i]);
    all_a.push_back(&out.after[i]);
    by_source[out.before[i].source].first.push_back(&out.before[i]);
    by_source[out.before[i].source].second.push_back(&out.after[i]);
  }
  out.rows.push_back(summarise("all", "all", all_b, all_a));
  for (const auto& [src, p] : by_source) out.rows.push_back(summarise("source", src, p.first, p.second));
  // By regime (uncertainty/regime.h: bound, hardware, precision, scale ...), of the uncalibrated
  // prediction, so a group's before and after are the same cases.
  for (const std::string& dim : uncertainty::dimension_names()) {
    std::map<std::string, std::pair<std::vector<const CaseResult*>, std::vector<const CaseResult*>>>
        by;
    for (size_t i = 0; i < out.before.size(); ++i) {
      const std::string v = out.before[i].regime.value(dim);
      if (v.empty()) continue;
      by[v].first.push_back(&out.before[i]);
      by[v].second.push_back(&out.after[i]);
    }
    for (const auto& [v, p] : by) out.rows.push_back(summarise(dim, v, p.first, p.second));
  }
  return out;
}

namespace {

std::string pct(const std::optional<double>& v) {
  return v ? fmt::format("{:.0f} %", 100 * *v) : std::string("-");
}

Json json_or_null(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

std::string scatter_text(const CalibrateOnReport& r) {
  if (!r.scatter.known()) return "pooled scatter after calibration: not measured (fewer than 2 groups)\n";
  return fmt::format(
      "pooled scatter after calibration (held-out log errors, {} groups, {} cases; Smyth 2004 "
      "empirical-Bayes fit): sd {:.1f} %, worth {:.1f} records of a user's own\n",
      r.scatter.groups, r.scatter.cases, 100 * r.scatter.sd_log, r.scatter.prior_dof);
}

}  // namespace

std::string to_text(const CalibrateOnReport& r) {
  std::string out = fmt::format(
      "{}, calibrated on the first {} case(s) of each (publication, accelerator, {}, precision) "
      "group and predicting the rest: {} groups, {} with more than {} cases, {} cases held out\n",
      r.kind, r.k, r.kind == "training" ? "framework" : "engine", r.groups, r.groups_fitted, r.k,
      r.before.size());
  if (r.in_sample)
    out += "in sample: each group was fitted on all its cases, the predicted ones included; the "
           "calibrated figures are the floor a fit of these parameters reaches (an oracle that saw "
           "the answers), not a forecast\n";
  out += fmt::format("{:<10} {:<44} {:>5}  {:>30}  {:>30}\n", "dimension", "value", "cases",
                     "uncalibrated med/p90/sgn/cov80", "calibrated med/p90/sgn/cov80");
  for (const auto& row : r.rows)
    out += fmt::format(
        "{:<10} {:<44} {:>5}  {:>7.1f} {:>7.1f} {:>+8.1f} {:>5}  {:>7.1f} {:>7.1f} {:>+8.1f} {:>5}\n",
        row.dimension, row.value.substr(0, 44), row.cases, row.median_abs_before,
        row.p90_abs_before, row.median_signed_before, pct(row.coverage_before),
        row.median_abs_after, row.p90_abs_after, row.median_signed_after, pct(row.coverage_after));
  out += scatter_text(r);
  out += "fits:\n";
  for (const auto& f : r.fits) out += "  " + f + "\n";
  return out;
}

std::string to_markdown(const CalibrateOnReport& r) {
  std::string out = fmt::format(
      "{} cases held out of {} groups ({} fitted on their first {} cases). Errors in %; cov80: the "
      "share inside the 80 % interval (uncalibrated: the built-in interval fitted without the "
      "case's source; calibrated: the group fit's interval moderated with the pooled scatter fitted "
      "without the case's source). {}\n",
      r.before.size(), r.groups, r.groups_fitted, r.k, scatter_text(r));
  if (r.in_sample)
    out += "\nIn sample: each group fitted on all its cases, the predicted ones included, so the "
           "calibrated columns are the floor a fit of these parameters reaches (an oracle that saw "
           "the answers), not a forecast.\n";
  out +=
      "| dimension | value | cases | uncal. median | uncal. p90 | uncal. signed | uncal. cov80 | "
      "cal. median | cal. p90 | cal. signed | cal. cov80 | cal. median width |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& row : r.rows)
    out += fmt::format(
        "| {} | {} | {} | {:.1f} | {:.1f} | {:+.1f} | {} | {:.1f} | {:.1f} | {:+.1f} | {} | {} |\n",
        row.dimension, row.value, row.cases, row.median_abs_before, row.p90_abs_before,
        row.median_signed_before, pct(row.coverage_before), row.median_abs_after, row.p90_abs_after,
        row.median_signed_after, pct(row.coverage_after),
        row.median_width_after ? fmt::format("{:.0f} %", *row.median_width_after) : "-");
  return out;
}

Json to_json(const CalibrateOnReport& r) {
  Json rows = Json::array();
  for (const auto& row : r.rows)
    rows.push_back({{"dimension", row.dimension}, {"value", row.value}, {"cases", row.cases},
                    {"uncalibrated", {{"median_abs_pct_error", row.median_abs_before},
                                      {"p90_abs_pct_error", row.p90_abs_before},
                                      {"median_signed_pct_error", row.median_signed_before},
                                      {"coverage_80", json_or_null(row.coverage_before)},
                                      {"median_interval_width_pct", json_or_null(row.median_width_before)}}},
                    {"calibrated", {{"median_abs_pct_error", row.median_abs_after},
                                    {"p90_abs_pct_error", row.p90_abs_after},
                                    {"median_signed_pct_error", row.median_signed_after},
                                    {"coverage_80", json_or_null(row.coverage_after)},
                                    {"median_interval_width_pct", json_or_null(row.median_width_after)}}}});
  Json cases = Json::array();
  for (size_t i = 0; i < r.before.size(); ++i) {
    Json c = {{"id", r.before[i].id}, {"group", r.group_of[i]}, {"measured", r.before[i].measured},
              {"uncalibrated", *r.before[i].predicted}, {"calibrated", *r.after[i].predicted}};
    if (r.before[i].held_out && r.before[i].held_out->known)
      c["uncalibrated_interval"] = r.before[i].held_out->range(*r.before[i].predicted);
    if (r.after[i].held_out && r.after[i].held_out->known)
      c["calibrated_interval"] = r.after[i].held_out->range(*r.after[i].predicted);
    cases.push_back(std::move(c));
  }
  const Json scatter = {{"sd_log", r.scatter.sd_log}, {"prior_dof", r.scatter.prior_dof},
                        {"groups", r.scatter.groups}, {"cases", r.scatter.cases}};
  return {{"calibrate_on", r.k}, {"kind", r.kind}, {"in_sample", r.in_sample},
          {"groups", r.groups},  {"groups_fitted", r.groups_fitted},
          {"rows", rows},        {"cases", cases},
          {"fits", r.fits},      {"pooled_scatter", scatter}};
}

}  // namespace memwall::validate

namespace memwall::validate {

int ProfileDriftReport::drifted() const {
  int n = 0;
  for (const auto& p : parameters) n += p.drifted ? 1 : 0;
  return n;
}

ProfileDriftReport profile_drift(const Json& cases, const Catalog& catalog) {
  if (!cases.is_array()) throw InputError("cases", cases.type_name(), "a JSON array of case objects");
  ProfileDriftReport out;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<const Json*, CaseResult>>> groups;
  std::vector<std::pair<std::string, std::string>> order;
  for (const Json& c : cases) {
    if (!c.is_object() || str_field(c, "kind") != "inference") continue;
    CaseResult r = predict_case(c, catalog);
    if (!r.predicted || !(r.measured > 0) || r.engine_profile.empty()) continue;
    const std::pair key{r.engine_profile, r.accelerator};
    if (!groups.count(key)) order.push_back(key);
    groups[key].emplace_back(&c, std::move(r));
  }
  out.groups = static_cast<int>(groups.size());
  for (const auto& key : order) {
    const auto& members = groups[key];
    const perf::EngineProfile* profile = profile_of(key.first);
    const Accelerator* acc = catalog.find_accelerator(key.second);
    if (!profile || !acc) continue;
    std::vector<measure::Observation> obs;
    std::vector<std::string> sources;
    for (const auto& [c, r] : members) {
      obs.push_back(observation_of(*c, r, catalog));
      if (std::find(sources.begin(), sources.end(), r.source) == sources.end())
        sources.push_back(r.source);
    }
    const measure::GroupFit fit = measure::fit_engine(*profile, *acc, std::move(obs));
    for (const auto& p : fit.parameters) {
      if (!p.identified || !p.low || !p.high) continue;
      ProfileDrift d;
      d.engine_profile = key.first;
      d.accelerator = key.second;
      d.cases = static_cast<int>(members.size());
      d.sources = sources;
      d.parameter = p.name;
      d.built_in = p.before;
      d.fitted = p.after;
      d.low = *p.low;
      d.high = *p.high;
      d.drifted = p.before < *p.low || p.before > *p.high;
      out.parameters.push_back(std::move(d));
    }
  }
  return out;
}

std::string to_text(const ProfileDriftReport& r) {
  std::string out = fmt::format(
      "built-in engine profiles against their own dev cases: {} (engine, accelerator) groups, "
      "{} identified parameters, {} outside their fitted 80 % interval\n",
      r.groups, r.parameters.size(), r.drifted());
  out += fmt::format("{:<16} {:<26} {:>5}  {:<30} {:>10} {:>10} {:>21}  {}\n", "engine",
                     "accelerator", "cases", "parameter", "built-in", "fitted", "80 % interval",
                     "drift");
  for (const auto& p : r.parameters)
    out += fmt::format("{:<16} {:<26} {:>5}  {:<30} {:>10.4g} {:>10.4g} {:>10.4g} - {:<8.4g}  {}\n",
                       p.engine_profile, p.accelerator.substr(0, 26), p.cases, p.parameter,
                       p.built_in, p.fitted, p.low, p.high, p.drifted ? "DRIFTED" : "-");
  return out;
}

Json to_json(const ProfileDriftReport& r) {
  Json rows = Json::array();
  for (const auto& p : r.parameters)
    rows.push_back({{"engine_profile", p.engine_profile},
                    {"accelerator", p.accelerator},
                    {"cases", p.cases},
                    {"sources", p.sources},
                    {"parameter", p.parameter},
                    {"built_in", p.built_in},
                    {"fitted", p.fitted},
                    {"low", p.low},
                    {"high", p.high},
                    {"drifted", p.drifted}});
  return {{"groups", r.groups}, {"drifted", r.drifted()}, {"parameters", rows}};
}

}  // namespace memwall::validate
