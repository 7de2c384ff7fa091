#include "memwall/validate/calibrate_on.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "memwall/core/error.h"
#include "memwall/measure/calibrate.h"
#include "memwall/perf/efficiency.h"
#include "memwall/uncertainty/regime.h"
#include "memwall/validate/runner.h"

namespace memwall::validate {
namespace {

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
  CalibrateOnRow row{dim, value, static_cast<int>(before.size())};
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
                               const std::string& kind) {
  if (k < 1 || k > 1000) throw InputError("--calibrate-on", std::to_string(k), "1 to 1000 cases");
  if (kind != "inference" && kind != "training")
    throw InputError("--kind", kind, "inference or training with --calibrate-on");
  if (!cases.is_array()) throw InputError("cases", cases.type_name(), "a JSON array of case objects");
  const bool training = kind == "training";
  CalibrateOnReport out;
  out.k = k;
  out.kind = kind;
  // One case under a calibration (null: the built-in parameters).
  auto predict = [&](const Json& c, const std::shared_ptr<const perf::Efficiency>& e) {
    return training ? predict_training_case(c, catalog, e) : predict_inference_case(c, catalog, e);
  };
  // The uncalibrated prediction of every case of the kind, grouped in file order.
  std::vector<std::pair<const Json*, CaseResult>> predicted;
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  for (const Json& c : cases) {
    if (!c.is_object() || str_field(c, "kind") != kind) continue;
    CaseResult r = predict_case(c, catalog);
    const std::string& stack = training ? r.framework : r.engine_profile;
    if (!r.predicted || !(r.measured > 0) || stack.empty()) continue;
    const std::string key = r.source + " | " + r.accelerator + " | " + stack + " | " + r.precisions;
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(predicted.size());
    predicted.emplace_back(&c, std::move(r));
  }
  out.groups = static_cast<int>(groups.size());
  for (const std::string& key : order) {
    const std::vector<size_t>& idx = groups[key];
    if (idx.size() <= static_cast<size_t>(k)) continue;
    const CaseResult& first = predicted[idx.front()].second;
    std::vector<measure::Observation> obs;
    for (size_t i = 0; i < static_cast<size_t>(k); ++i) {
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
    out.fits.push_back(fmt::format("{}: {} of {} cases fitted: {}", key, k, idx.size(),
                                   fitted.empty() ? "nothing identified" : fitted));
    ++out.groups_fitted;
    const auto efficiency = std::make_shared<const perf::Efficiency>(perf::apply_calibration(
        perf::default_efficiency(), measure::calibration_document(fit), "calibrate-on fit"));
    for (size_t i = static_cast<size_t>(k); i < idx.size(); ++i) {
      const auto& [c, r] = predicted[idx[i]];
      CaseResult after = settings.empty() ? r : predict(*c, efficiency);
      after.source = r.source;
      if (!after.predicted) continue;  // the fit made it inexpressible: not compared
      out.before.push_back(r);
      out.after.push_back(std::move(after));
    }
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

std::string to_text(const CalibrateOnReport& r) {
  std::string out = fmt::format(
      "{}, calibrated on the first {} case(s) of each (publication, accelerator, {}, precision) "
      "group and predicting the rest: {} groups, {} with more than {} cases, {} cases held out\n",
      r.kind, r.k, r.kind == "training" ? "framework" : "engine", r.groups, r.groups_fitted, r.k,
      r.before.size());
  out += fmt::format("{:<10} {:<44} {:>5}  {:>24}  {:>24}\n", "dimension", "value", "cases",
                     "uncalibrated med/p90/sgn", "calibrated med/p90/sgn");
  for (const auto& row : r.rows)
    out += fmt::format("{:<10} {:<44} {:>5}  {:>7.1f} {:>7.1f} {:>+8.1f}  {:>7.1f} {:>7.1f} {:>+8.1f}\n",
                       row.dimension, row.value.substr(0, 44), row.cases, row.median_abs_before,
                       row.p90_abs_before, row.median_signed_before, row.median_abs_after,
                       row.p90_abs_after, row.median_signed_after);
  out += "fits:\n";
  for (const auto& f : r.fits) out += "  " + f + "\n";
  return out;
}

Json to_json(const CalibrateOnReport& r) {
  Json rows = Json::array();
  for (const auto& row : r.rows)
    rows.push_back({{"dimension", row.dimension}, {"value", row.value}, {"cases", row.cases},
                    {"uncalibrated", {{"median_abs_pct_error", row.median_abs_before},
                                      {"p90_abs_pct_error", row.p90_abs_before},
                                      {"median_signed_pct_error", row.median_signed_before}}},
                    {"calibrated", {{"median_abs_pct_error", row.median_abs_after},
                                    {"p90_abs_pct_error", row.p90_abs_after},
                                    {"median_signed_pct_error", row.median_signed_after}}}});
  Json cases = Json::array();
  for (size_t i = 0; i < r.before.size(); ++i)
    cases.push_back({{"id", r.before[i].id}, {"measured", r.before[i].measured},
                     {"uncalibrated", *r.before[i].predicted}, {"calibrated", *r.after[i].predicted}});
  return {{"calibrate_on", r.k}, {"kind", r.kind},
          {"groups", r.groups},  {"groups_fitted", r.groups_fitted},
          {"rows", rows},        {"cases", cases},
          {"fits", r.fits}};
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
