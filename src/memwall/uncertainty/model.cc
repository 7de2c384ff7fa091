#include "memwall/uncertainty/model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"

namespace memwall::uncertainty {

double Interval::low(double value) const {
  return value * std::exp(-half_width);
}
double Interval::high(double value) const {
  return value * std::exp(half_width);
}
Json Interval::range(double value) const {
  return Json::array({low(value), high(value)});
}
Json Interval::fraction_range(double value) const {
  return Json::array({std::min(1.0, low(value)), std::min(1.0, high(value))});
}

namespace {

// The smallest |r| whose cumulative weight reaches the split-conformal level
// ceil((n + 1) level) / n (Lei et al. 2018 eq. 3), weights normalised; 0 for no values.
double conformal_quantile(std::vector<std::pair<double, double>> abs_weight, double level) {
  if (abs_weight.empty()) return 0;
  std::sort(abs_weight.begin(), abs_weight.end());
  const double n = double(abs_weight.size());
  const double target = std::min(1.0, std::ceil((n + 1) * level) / n);
  double total = 0;
  for (const auto& [a, w] : abs_weight) total += w;
  double cum = 0;
  for (const auto& [a, w] : abs_weight) {
    cum += w / total;
    if (cum >= target - 1e-12) return a;
  }
  return abs_weight.back().first;
}

// Below this half-width a fit says more than a handful of cases can (1 %, ln units).
constexpr double kMinHalfWidth = 0.01;
constexpr double kMaxHalfWidth = 5.0;

}  // namespace

namespace {

// Per kind: the half-width and the regime factors from `residuals`; the support (the regime
// values, device counts and model sizes the cases cover) from `support`, the whole case set, so
// a held-out source's values are not "outside the cases" in leave-one-source-out.
Model fit_kinds(const std::vector<Residual>& residuals, const std::vector<Residual>& support,
                const FitOptions& o, const Widening& widening) {
  Model m;
  m.level = o.level;
  m.options = o;
  m.widening = widening;
  std::map<std::string, std::vector<const Residual*>> by_kind;
  for (const auto& r : residuals)
    if (std::isfinite(r.log_ratio)) by_kind[r.regime.kind].push_back(&r);
  // In a regime's factor each publication weighs the same, whatever its number of rows: the
  // factor is how far that regime's sources stray, so one source of 18 rows from one stack (the
  // vllm-ascend tutorial, 3x off) cannot set the width of every memory-bound estimate alone. The
  // kind's own width counts every case (its new-source scale is held out by source already).
  auto abs_values = [](const std::vector<const Residual*>& sel, bool per_source_weight) {
    std::map<std::string, int> per_source;
    for (const auto* r : sel) ++per_source[r->source];
    std::vector<std::pair<double, double>> v;
    for (const auto* r : sel)
      v.emplace_back(std::fabs(r->log_ratio),
                     per_source_weight ? 1.0 / per_source[r->source] : 1.0);
    return v;
  };
  for (const auto& [kind, rs] : by_kind) {
    KindModel k;
    std::set<std::string> sources;
    for (const auto* r : rs) sources.insert(r->source);
    k.cases = static_cast<int>(rs.size());
    k.sources = static_cast<int>(sources.size());
    k.half_width = std::max(kMinHalfWidth, conformal_quantile(abs_values(rs, false), o.level));
    std::map<std::string, std::map<std::string, std::vector<const Residual*>>> groups;
    for (const auto* r : rs)
      for (const auto& [dim, value] : r->regime.dims)
        if (!value.empty()) groups[dim][value].push_back(r);
    for (const auto& [dim, values] : groups)
      for (const auto& [value, sel] : values) {
        const double q = std::max(kMinHalfWidth, conformal_quantile(abs_values(sel, true), o.level));
        const double n = double(sel.size());
        const double keep = n / (n + o.shrinkage_cases);
        k.factors[dim][value] = {std::exp(keep * std::log(q / k.half_width)),
                                 static_cast<int>(sel.size())};
      }
    for (const auto& r : support) {
      if (r.regime.kind != kind) continue;
      for (const auto& [dim, value] : r.regime.dims)
        if (!value.empty()) k.support[dim].insert(value);
      k.max_devices = std::max(k.max_devices, r.regime.devices);
      if (r.regime.parameters > 0) {
        k.min_parameters = k.min_parameters > 0 ? std::min(k.min_parameters, r.regime.parameters)
                                                : r.regime.parameters;
        k.max_parameters = std::max(k.max_parameters, r.regime.parameters);
      }
    }
    m.kinds[kind] = std::move(k);
  }
  return m;
}

// A kind's own new-source scale needs held-out scores from at least this many sources; with
// fewer, one publication would set it alone and the pooled scale is the better estimate.
constexpr int kMinSourcesForKindScale = 4;

// The new-source scale of `residuals`: each source held out in turn, its cases' |r| over the
// half-width fitted without it; the conformal `level` quantile of those scores, pooled over kinds
// (a source alone in its kind gives none), and per kind where the kind has enough sources. Kinds
// differ in how far a new publication strays (inference engines more than training frameworks),
// so one pooled scale covers one kind too little and another too much.
void set_new_source_scales(Model& m, const std::vector<Residual>& residuals,
                           const std::vector<Residual>& support, const FitOptions& o,
                           const Widening& widening) {
  std::set<std::string> sources;
  for (const auto& r : residuals) sources.insert(r.source);
  std::vector<std::pair<double, double>> scores;
  std::map<std::string, std::vector<std::pair<double, double>>> by_kind;
  std::map<std::string, std::set<std::string>> kind_sources;
  for (const auto& s : sources) {
    std::vector<Residual> rest;
    for (const auto& r : residuals)
      if (r.source != s) rest.push_back(r);
    const Model held = fit_kinds(rest, support, o, widening);
    for (const auto& r : residuals) {
      if (r.source != s) continue;
      const Interval i = held.interval(r.regime);
      if (!i.known || i.half_width <= 0) continue;
      scores.emplace_back(std::fabs(r.log_ratio) / i.half_width, 1.0);
      by_kind[r.regime.kind].emplace_back(scores.back());
      kind_sources[r.regime.kind].insert(s);
    }
  }
  m.new_source_scale = scores.empty() ? 1.0 : conformal_quantile(scores, o.level);
  for (auto& [kind, k] : m.kinds)
    if (static_cast<int>(kind_sources[kind].size()) >= kMinSourcesForKindScale)
      k.new_source_scale = conformal_quantile(by_kind[kind], o.level);
}

Model fit_with_support(const std::vector<Residual>& residuals, const std::vector<Residual>& support,
                       const FitOptions& o, const Widening& widening) {
  Model m = fit_kinds(residuals, support, o, widening);
  set_new_source_scales(m, residuals, support, o, widening);
  return m;
}

}  // namespace

Model fit(const std::vector<Residual>& residuals, const FitOptions& o, const Widening& widening) {
  return fit_with_support(residuals, residuals, o, widening);
}

Interval Model::interval(const Regime& r) const {
  Interval out;
  out.level = level;
  auto it = kinds.find(r.kind);
  if (it == kinds.end()) return out;
  const KindModel& k = it->second;
  out.known = true;
  // Regime factors: the geometric mean over the dimensions the regime and the fit share.
  double log_sum = 0;
  int n = 0;
  for (const auto& [dim, value] : r.dims) {
    auto d = k.factors.find(dim);
    if (d == k.factors.end()) continue;
    auto v = d->second.find(value);
    if (v == d->second.end()) continue;
    log_sum += std::log(v->second.factor);
    ++n;
  }
  const double scale = k.new_source_scale > 0 ? k.new_source_scale : new_source_scale;
  double h = k.half_width * (n > 0 ? std::exp(log_sum / n) : 1.0) * scale;
  for (const auto& dim : options.support_dimensions) {
    const std::string value = r.value(dim);
    if (value.empty()) continue;
    auto d = k.support.find(dim);
    if (d != k.support.end() && d->second.count(value)) continue;
    h *= widening.unseen_value;
    ++out.unseen;
    out.reasons.push_back(
        fmt::format("widened: {} '{}' outside the validated {} cases", dim, value, r.kind));
  }
  if (k.max_devices > 0 && r.devices > k.max_devices) {
    h *= std::pow(widening.beyond_scale,
                  std::log(double(r.devices) / double(k.max_devices)) / std::log(8.0));
    out.reasons.push_back(fmt::format("widened: {} devices, beyond the largest validated case ({})",
                                      r.devices, k.max_devices));
  }
  if (r.parameters > 0 && k.max_parameters > 0 &&
      (r.parameters > k.max_parameters || r.parameters < k.min_parameters)) {
    const double ratio = r.parameters > k.max_parameters ? r.parameters / k.max_parameters
                                                         : k.min_parameters / r.parameters;
    h *= std::pow(widening.outside_parameters, std::log(ratio) / std::log(8.0));
    out.reasons.push_back(
        fmt::format("widened: {:.3g} B parameters, outside the validated {:.3g}-{:.3g} B",
                    r.parameters / 1e9, k.min_parameters / 1e9, k.max_parameters / 1e9));
  }
  if (r.probe_calibrated) {
    h *= widening.probe_calibrated;
    out.reasons.push_back("narrowed: a probe profile of this device sets its ceilings");
  }
  // Beyond e^5 (a factor of 148 either way) an interval says nothing; extreme extrapolation
  // (or a hand-edited model) stops there instead of overflowing.
  if (!(h <= kMaxHalfWidth)) {
    h = kMaxHalfWidth;
    out.reasons.push_back("capped: the estimate is far outside what was validated");
  }
  out.half_width = h;
  return out;
}

std::vector<Held> leave_one_source_out(const std::vector<Residual>& residuals, const FitOptions& o,
                                       const Widening& widening) {
  std::set<std::string> sources;
  for (const auto& r : residuals) sources.insert(r.source);
  std::map<std::string, Model> models;
  for (const auto& s : sources) {
    std::vector<Residual> rest;
    for (const auto& r : residuals)
      if (r.source != s) rest.push_back(r);
    // Nested: the held-out source informs neither the widths nor the new-source scale.
    models[s] = fit_with_support(rest, residuals, o, widening);
  }
  std::vector<Held> out;
  for (const auto& r : residuals) {
    Held h{r, models[r.source].interval(r.regime), false};
    h.inside = h.interval.known && std::fabs(r.log_ratio) <= h.interval.half_width;
    out.push_back(std::move(h));
  }
  return out;
}

std::string source_key(const std::string& source) {
  const std::string first = source.substr(0, source.find(' '));
  if (first.find('/') != std::string::npos && first.find('/') + 1 < first.size()) return first;
  size_t end = std::min(source.find(','), source.find(" ("));
  std::string key = source.substr(0, end);
  while (!key.empty() && key.back() == ' ') key.pop_back();
  return key.empty() ? "unknown" : key;
}

namespace {

// The standard normal quantile by bisection on erfc (|error| < 1e-9 for p in (1e-12, 1 - 1e-12)).
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int k = 0; k < 100; ++k) {
    const double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

Interval scale_to_level(Interval i, double level) {
  if (level == i.level || !(level > 0 && level < 1)) return i;
  i.half_width *= normal_quantile((1 + level) / 2) / normal_quantile((1 + i.level) / 2);
  i.level = level;
  return i;
}

double t90(double dof) {
  // Student-t quantile t(0.90, dof), the two-sided 80 % point (NIST/SEMATECH e-Handbook 1.3.6.7.2
  // table), dof 1-30; above 30 it approaches the normal 1.2816 as 1 / dof.
  static constexpr double table[] = {3.0777, 1.8856, 1.6377, 1.5332, 1.4759, 1.4398, 1.4149,
                                     1.3968, 1.3830, 1.3722, 1.3634, 1.3562, 1.3502, 1.3450,
                                     1.3406, 1.3368, 1.3334, 1.3304, 1.3277, 1.3253, 1.3232,
                                     1.3212, 1.3195, 1.3178, 1.3163, 1.3150, 1.3137, 1.3125,
                                     1.3114, 1.3104};
  if (!(dof >= 1)) dof = 1;
  if (dof >= 30) return 1.2816 + (1.3104 - 1.2816) * 30.0 / dof;
  const int lo = static_cast<int>(std::floor(dof));
  const double f = dof - lo;
  return f == 0 ? table[lo - 1] : table[lo - 1] * (1 - f) + table[lo] * f;
}

Interval calibrated_interval(int records, int fitted_parameters, double residual_sd_log,
                             const CalibratedScatter* pooled, const std::string& stack,
                             const std::string& accelerator_id) {
  Interval cal;
  cal.level = kDefaultLevel;
  const int dof = std::max(0, records - fitted_parameters);
  const double s = dof > 0 && residual_sd_log > 0 ? residual_sd_log : 0;
  const double grow = std::sqrt(1.0 + 1.0 / double(std::max(records, 1)));
  if (pooled && pooled->known()) {
    // Smyth (2004) section 3: the records' variance moderated with the pooled one.
    const double d = pooled->prior_dof + dof;
    const double moderated =
        std::sqrt((pooled->prior_dof * pooled->sd_log * pooled->sd_log + dof * s * s) / d);
    cal.half_width = std::max(t90(d) * moderated * grow, s);
    cal.known = cal.calibrated = true;
    cal.reasons.push_back(fmt::format(
        "from the calibration of {}: {} records on {}, residual sd {:.1f} %, moderated with the "
        "scatter of calibrated stacks in the dev set (sd {:.1f} %, worth {:.1f} records): t({:.1f}) "
        "= {:.3f}",
        stack, records, accelerator_id, 100 * s, 100 * pooled->sd_log, pooled->prior_dof, d,
        t90(d)));
    return cal;
  }
  if (dof < 1 || !(s > 0)) return cal;  // known = false: no scatter measured
  cal.known = cal.calibrated = true;
  cal.half_width = t90(dof) * s * grow;
  cal.reasons.push_back(fmt::format("from the calibration of {}: {} records on {}, residual sd "
                                    "{:.1f} %, t({}) = {:.3f}",
                                    stack, records, accelerator_id, 100 * s, dof, t90(dof)));
  return cal;
}

Interval calibrated_interval(const Interval& builtin, const std::string& stack,
                             const perf::EngineProfile::CalibratedSpread* spread,
                             const std::string& accelerator_id, const CalibratedScatter* pooled) {
  if (!spread) return builtin;
  const auto& c = *spread;
  Interval out = builtin;
  if (std::find(c.accelerators.begin(), c.accelerators.end(), accelerator_id) ==
      c.accelerators.end()) {
    out.reasons.push_back(fmt::format(
        "the calibration of {} was fitted on {}, not {}: the built-in interval", stack,
        fmt::join(c.accelerators, ", "), accelerator_id));
    return out;
  }
  const Interval cal = calibrated_interval(c.records, c.fitted_parameters, c.residual_sd_log,
                                           pooled, stack, accelerator_id);
  if (!cal.known) {
    out.reasons.push_back(fmt::format(
        "the calibration of {} has {} record(s) for {} parameter(s): no scatter measured, so the "
        "built-in interval",
        stack, c.records, c.fitted_parameters));
    return out;
  }
  return scale_to_level(cal, builtin.level);
}

Interval calibrated_interval(const Interval& builtin, const perf::EngineProfile* profile,
                             const std::string& accelerator_id, const CalibratedScatter* pooled) {
  if (!profile || !profile->calibrated_spread) return builtin;
  return calibrated_interval(builtin, profile->key(), &*profile->calibrated_spread, accelerator_id,
                             pooled);
}

const CalibratedScatter* Model::calibrated_scatter(const std::string& kind) const {
  const auto it = calibrated.find(kind);
  return it == calibrated.end() || !it->second.known() ? nullptr : &it->second;
}

namespace {

// ln of the F(d1, d2) density at x > 0.
double log_f_density(double x, double d1, double d2) {
  return 0.5 * d1 * std::log(d1) + 0.5 * d2 * std::log(d2) + (0.5 * d1 - 1) * std::log(x) -
         0.5 * (d1 + d2) * std::log(d2 + d1 * x) -
         (std::lgamma(0.5 * d1) + std::lgamma(0.5 * d2) - std::lgamma(0.5 * (d1 + d2)));
}

}  // namespace

CalibratedScatter fit_calibrated_scatter(const std::vector<std::vector<double>>& log_errors_by_group,
                                         int calibrated_on) {
  CalibratedScatter out;
  out.calibrated_on = calibrated_on;
  std::vector<std::pair<double, double>> groups;  // (cases, mean square)
  for (const auto& g : log_errors_by_group) {
    if (g.empty()) continue;
    double ss = 0;
    for (double r : g) ss += r * r;
    // A mean square of exactly 0 (a repeated value) has zero density under F: floor it at
    // (0.1 %)^2, far below any measurement's repeatability.
    groups.push_back({double(g.size()), std::max(ss / double(g.size()), 1e-6)});
    out.cases += static_cast<int>(g.size());
  }
  out.groups = static_cast<int>(groups.size());
  if (groups.size() < 2) return out;
  // MS_g / s0^2 ~ F(m_g, d0) (Smyth 2004 section 6); the density of MS_g carries 1 / s0^2.
  double best = -std::numeric_limits<double>::infinity();
  for (int i = 0; i <= 200; ++i) {
    const double s0 = 0.005 * std::pow(200.0, i / 200.0);  // 0.5 % .. 100 %
    for (int j = 0; j <= 80; ++j) {
      const double d0 = std::pow(256.0, j / 80.0);  // 1 .. 256
      double ll = 0;
      for (const auto& [m, ms] : groups) ll += log_f_density(ms / (s0 * s0), m, d0) - std::log(s0 * s0);
      if (ll > best) {
        best = ll;
        out.sd_log = s0;
        out.prior_dof = d0;
      }
    }
  }
  return out;
}

std::string range_text(const Json& range, double scale, int decimals) {
  if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number())
    return {};
  return fmt::format("({:.{}f}-{:.{}f})", range[0].get<double>() * scale, decimals,
                     range[1].get<double>() * scale, decimals);
}

std::string interval_note(const Interval& i) {
  if (!i.known) return "(low-high): unknown, no uncertainty model for this kind of estimate";
  std::string out =
      i.calibrated
          ? fmt::format(
                "(low-high): {:.0f} % interval, value x/÷ {:.2f}, from the scatter of your "
                "calibration records around the fit (memwall calibrate; docs/calibrate.md)",
                i.level * 100, std::exp(i.half_width))
          : fmt::format(
                "(low-high): {:.0f} % interval, value x/÷ {:.2f}, fitted on the validation cases' "
                "errors (memwall validate; docs/validate.md)",
                i.level * 100, std::exp(i.half_width));
  for (size_t k = 0; k < i.reasons.size(); ++k) out += (k ? "; " : "; ") + i.reasons[k];
  return out;
}

Json to_json(const Model& m) {
  Json kinds = Json::object();
  for (const auto& [name, k] : m.kinds) {
    Json factors = Json::object();
    for (const auto& [dim, values] : k.factors)
      for (const auto& [value, f] : values)
        factors[dim][value] = Json{{"factor", f.factor}, {"cases", f.cases}};
    Json support = Json::object();
    for (const auto& [dim, values] : k.support) support[dim] = values;
    kinds[name] = Json{{"half_width", k.half_width},
                       {"new_source_scale", k.new_source_scale},
                       {"cases", k.cases},
                       {"sources", k.sources},
                       {"max_devices", k.max_devices},
                       {"min_parameters", k.min_parameters},
                       {"max_parameters", k.max_parameters},
                       {"factors", factors},
                       {"support", support}};
  }
  Json calibrated = Json::object();
  for (const auto& [kind, c] : m.calibrated)
    calibrated[kind] = Json{{"sd_log", c.sd_log},         {"prior_dof", c.prior_dof},
                            {"groups", c.groups},         {"cases", c.cases},
                            {"calibrated_on", c.calibrated_on}};
  const Widening& w = m.widening;
  return Json{{"uncertainty", Json{{"level", m.level},
                                   {"new_source_scale", m.new_source_scale},
                                   {"provenance", m.provenance},
                                   {"shrinkage_cases", m.options.shrinkage_cases},
                                   {"support_dimensions", m.options.support_dimensions},
                                   {"widening", Json{{"unseen_value", w.unseen_value},
                                                     {"beyond_scale", w.beyond_scale},
                                                     {"outside_parameters", w.outside_parameters},
                                                     {"probe_calibrated", w.probe_calibrated}}},
                                   {"kinds", kinds},
                                   {"calibrated", calibrated}}}};
}

namespace {

double number(const Json& obj, const char* key, const std::string& where, double lo, double hi) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number())
    throw InputError(where + "." + key, it == obj.end() ? "(missing)" : it->dump(), "a number");
  const double v = it->get<double>();
  if (!(v >= lo && v <= hi))
    throw InputError(where + "." + key, fmt::format("{}", v),
                     fmt::format("a number in [{}, {}]", lo, hi));
  return v;
}

const Json& object(const Json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_object())
    throw InputError(where + "." + key, it == obj.end() ? "(missing)" : it->dump().substr(0, 40),
                     "an object");
  return *it;
}

}  // namespace

Model model_from_json(const Json& doc, const std::string& where) {
  if (!doc.is_object())
    throw InputError(where, doc.type_name(), "an object with key 'uncertainty'");
  const std::string w0 = where + ": uncertainty";
  const Json& u = object(doc, "uncertainty", where);
  Model m;
  m.level = number(u, "level", w0, 0.01, 0.99);
  m.options.level = m.level;
  m.options.shrinkage_cases = number(u, "shrinkage_cases", w0, 0, 1e6);
  m.new_source_scale = number(u, "new_source_scale", w0, 0.01, 100);
  if (auto it = u.find("provenance"); it != u.end()) m.provenance = *it;
  if (auto it = u.find("support_dimensions"); it != u.end()) {
    if (!it->is_array())
      throw InputError(w0 + ".support_dimensions", it->dump(), "a list of names");
    m.options.support_dimensions.clear();
    for (const auto& d : *it) {
      if (!d.is_string()) throw InputError(w0 + ".support_dimensions[]", d.dump(), "a name");
      m.options.support_dimensions.push_back(d.get<std::string>());
    }
  }
  const Json& w = object(u, "widening", w0);
  const std::string ww = w0 + ".widening";
  m.widening = {number(w, "unseen_value", ww, 0.01, 100), number(w, "beyond_scale", ww, 0.01, 100),
                number(w, "outside_parameters", ww, 0.01, 100),
                number(w, "probe_calibrated", ww, 0.01, 100)};
  for (const auto& [name, k] : object(u, "kinds", w0).items()) {
    const std::string wk = w0 + ".kinds." + name;
    if (!k.is_object()) throw InputError(wk, k.dump().substr(0, 40), "an object");
    KindModel km;
    km.half_width = number(k, "half_width", wk, 0, 100);
    if (k.contains("new_source_scale"))  // 0 or absent: the pooled scale
      km.new_source_scale = number(k, "new_source_scale", wk, 0, 100);
    km.cases = static_cast<int>(number(k, "cases", wk, 0, 1e9));
    km.sources = static_cast<int>(number(k, "sources", wk, 0, 1e9));
    km.max_devices = static_cast<int64_t>(number(k, "max_devices", wk, 0, 1e12));
    km.min_parameters = number(k, "min_parameters", wk, 0, 1e18);
    km.max_parameters = number(k, "max_parameters", wk, 0, 1e18);
    for (const auto& [dim, values] : object(k, "factors", wk).items()) {
      if (!values.is_object())
        throw InputError(wk + ".factors." + dim, values.dump().substr(0, 40), "an object");
      for (const auto& [value, f] : values.items()) {
        const std::string wf = wk + ".factors." + dim + "." + value;
        if (!f.is_object()) throw InputError(wf, f.dump().substr(0, 40), "an object");
        km.factors[dim][value] = {number(f, "factor", wf, 1e-3, 1e3),
                                  static_cast<int>(number(f, "cases", wf, 0, 1e9))};
      }
    }
    if (auto sp = k.find("support"); sp != k.end()) {
      if (!sp->is_object())
        throw InputError(wk + ".support", sp->dump().substr(0, 40), "an object");
      for (const auto& [dim, values] : sp->items()) {
        if (!values.is_array())
          throw InputError(wk + ".support." + dim, values.dump().substr(0, 40), "a list");
        for (const auto& v : values) {
          if (!v.is_string()) throw InputError(wk + ".support." + dim + "[]", v.dump(), "a name");
          km.support[dim].insert(v.get<std::string>());
        }
      }
    }
    m.kinds[name] = std::move(km);
  }
  if (auto it = u.find("calibrated"); it != u.end()) {  // absent in files fitted before it
    if (!it->is_object()) throw InputError(w0 + ".calibrated", it->dump().substr(0, 40), "an object");
    for (const auto& [kind, c] : it->items()) {
      const std::string wc = w0 + ".calibrated." + kind;
      if (!c.is_object()) throw InputError(wc, c.dump().substr(0, 40), "an object");
      CalibratedScatter cs;
      cs.sd_log = number(c, "sd_log", wc, 0, 10);
      cs.prior_dof = number(c, "prior_dof", wc, 0, 1e6);
      cs.groups = static_cast<int>(number(c, "groups", wc, 0, 1e9));
      cs.cases = static_cast<int>(number(c, "cases", wc, 0, 1e9));
      cs.calibrated_on = static_cast<int>(number(c, "calibrated_on", wc, 0, 1e6));
      m.calibrated[kind] = cs;
    }
  }
  return m;
}

const Model& builtin_model() {
  static const Model model = [] {
    for (const auto& f : data::embedded_files())
      if (std::string(f.path) == "uncertainty.json")
        return model_from_json(parse_document(f.content, "built-in data/uncertainty.json"),
                               "built-in data/uncertainty.json");
    return Model{};
  }();
  return model;
}

}  // namespace memwall::uncertainty
