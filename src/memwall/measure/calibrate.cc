#include "memwall/measure/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "memwall/core/error.h"
#include "memwall/core/statistics.h"
#include "memwall/infer/deployment.h"
#include "memwall/measure/predict.h"
#include "memwall/perf/efficiency.h"
#include "memwall/perf/roofline.h"
#include "memwall/train/framework.h"

namespace memwall::measure {
namespace {

// The spreads of the fit (docs/calibrate.md "How"). A measurement scatters around memwall's model
// as the dev set's errors do: their median absolute log error is 6.3 % (validation/REPORT.md,
// inference (all)), and a normal spread whose median |error| is m has sd m / 0.6745, 9.3 %. A built-in
// share is known to about 15 % across publications of the same engine on the same GPU (the p90 of
// that set is 19 %, its 80 % interval about x/÷ 1.2); host and kernel times, set from one or two
// sources each (data/engines), to about half their value.
constexpr double kMeasurementSd = 0.063 / 0.6745;
constexpr double kSharePriorSd = 0.15;
constexpr double kHostPriorSd = 0.5;

// The engine parameters a calibration fits (perf/efficiency.h apply_calibration keys), their
// bounds (those apply_calibration accepts, narrowed to what a real engine can have), the scale a
// step is measured in, and the run that identifies each.
struct ParameterSpec {
  const char* name;
  double lo, hi;
  double min_scale;  // a step of 1 in the solver's units is max(|value|, min_scale)
  const char* identify;
  // The prior's spread around the built-in value: relative (x the value) for the shares, in units
  // of the scale for the host and kernel times.
  double prior_sd;
  bool relative_prior;
};

constexpr ParameterSpec kEngineParameters[] = {
    {"compute_in_situ_fraction", 0.05, 1.0, 1.0,
     "every run is memory-bound (small batches, short prompts): add one run at batch >= 64 or "
     "with a prompt of >= 4k tokens",
     kSharePriorSd, true},
    {"memory_stream_fraction", 0.05, 1.0, 1.0,
     "no run is bound by streaming weights and KV: add one decode-heavy run at batch <= 8 with "
     ">= 128 output tokens",
     kSharePriorSd, true},
    {"step_overhead_us", 0.0, 1e5, 50.0,
     "the host's time per iteration hides under GPU work in every run: add one run at batch 1 "
     "with a short prompt",
     kHostPriorSd, false},
    {"step_overhead_us_per_sequence", 0.0, 1e3, 5.0,
     "no run holds many sequences at once: add one run with >= 64 sequences in flight "
     "(concurrency or offline)",
     kHostPriorSd, false},
    {"kernel_overhead_us", 0.0, 1e3, 2.0,
     "no run has steps short enough for per-kernel launch cost to show: add one run at batch 1 "
     "on a small model",
     kHostPriorSd, false},
    // The HTTP server's time per request before the engine sees it: the chat template and the
    // server build are the user's own, so the built-in 12.8 ms (vLLM) is a median of templates.
    {"frontend_us_per_request", 0.0, 1e5, 1000.0,
     "no run sends many short requests at once through the server: add one `vllm bench serve` "
     "run at request rate inf with >= 500 prompts of <= 256 tokens and a few output tokens",
     kHostPriorSd, false},
};

// The training-framework parameters (perf::FrameworkCalibration, train/parameters.h): the share
// of the GEMM ceiling a whole step keeps (0.87 built in, from Korthikanti et al. 2022 Table 4),
// the share of an overlap window that hides communication (0.85) and the host time per step
// (30 ms). The built-in values rest on one or two sources each: the shares are given the spread
// of an engine's share between publications, the host time half its value.
constexpr ParameterSpec kFrameworkParameters[] = {
    {"compute_in_situ_fraction", 0.05, 1.0, 1.0,
     "no run is bound by its GEMMs (every step is communication or host time): add one run on a "
     "single node with a large micro-batch",
     kSharePriorSd, true},
    {"overlap_efficiency", 0.0, 1.0, 1.0,
     "no run overlaps communication with compute (or every overlap window hides it whole): add "
     "one run with data parallelism across nodes and the gradient reduce overlapped (Megatron "
     "--overlap-grad-reduce, FSDP prefetch)",
     kSharePriorSd, true},
    {"step_overhead_ms", 0.0, 1e4, 10.0,
     "every step is long enough to hide the host's time per step: add one run with a short step "
     "(small global batch on few GPUs, step time below 1 s)",
     kHostPriorSd, false},
};

double before_value(const ParameterSpec& s, const perf::EngineProfile& p, const Accelerator& a) {
  const std::string n = s.name;
  if (n == "compute_in_situ_fraction") return perf::compute_in_situ_fraction(a, p);
  if (n == "memory_stream_fraction") return p.memory_stream_fraction;
  if (n == "step_overhead_us") return p.step_overhead.value() * 1e6;
  if (n == "step_overhead_us_per_sequence") return p.step_overhead_per_sequence.value() * 1e6;
  if (n == "frontend_us_per_request") return p.frontend_per_request.value() * 1e6;
  return p.kernel_overhead.value() * 1e6;
}

// Soft-L1 loss scale: residuals (log errors) well below it count as squares, far above it
// linearly, so one wrong record cannot drag the fit (Triggs et al. 2000, robust cost functions).
constexpr double kRobustScale = 0.05;

double robust_cost(const std::vector<double>& r) {
  double c = 0;
  for (double x : r) c += 2 * kRobustScale * kRobustScale * (std::sqrt(1 + x * x / (kRobustScale * kRobustScale)) - 1);
  return c;
}

// Solves the small symmetric system A x = b in place (Gaussian elimination with partial
// pivoting; at most six unknowns, so no BLAS). False when A is singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (std::fabs(a[piv][c]) < 1e-300) return false;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t k = i + 1; k < n; ++k) s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
  return true;
}

bool invert(const std::vector<std::vector<double>>& a, std::vector<std::vector<double>>& inv) {
  const size_t n = a.size();
  inv.assign(n, std::vector<double>(n, 0));
  for (size_t j = 0; j < n; ++j) {
    std::vector<double> e(n, 0), x;
    e[j] = 1;
    if (!solve(a, e, x)) return false;
    for (size_t i = 0; i < n; ++i) inv[i][j] = x[i];
  }
  return true;
}

// What one fit calibrates: an engine profile (calibration section "engines") or a training
// framework ("frameworks"), with its parameters.
struct Group {
  std::string section = "engines";
  std::span<const ParameterSpec> specs = kEngineParameters;
  std::string key, display;
  std::vector<Observation> observations;
  std::set<std::string> accelerators, precisions;
  std::vector<double> before;  // per parameter, from the first observation's accelerator
};

std::vector<double> before_values(const perf::EngineProfile& p, const Accelerator& a) {
  std::vector<double> out;
  for (const auto& s : kEngineParameters) out.push_back(before_value(s, p, a));
  return out;
}

// A training framework's group, its built-in values those the training estimator uses for it.
Group framework_group(const std::string& framework) {
  const train::Framework& fw = train::training_framework(framework, "stack.framework");
  const train::TrainParameters p =
      train::framework_parameters({}, &perf::default_efficiency(), fw.id);
  Group g;
  g.section = "frameworks";
  g.specs = kFrameworkParameters;
  g.key = fw.id;
  g.display = fw.name;
  g.before = {p.gemm_in_situ_fraction, p.overlap_efficiency, p.step_overhead.value() * 1e3};
  return g;
}

class Fitter {
 public:
  explicit Fitter(const Group& g) : g_(g) {}

  // log(predicted / measured) per observation at `values` (one per Group::specs entry).
  std::vector<double> residuals(const std::vector<double>& values) const {
    Json settings = Json::object();
    for (size_t j = 0; j < g_.specs.size(); ++j) settings[g_.specs[j].name] = values[j];
    const Json doc = {{g_.section, {{g_.key, settings}}}};
    const auto efficiency = std::make_shared<const perf::Efficiency>(
        perf::apply_calibration(perf::default_efficiency(), doc, "calibration fit"));
    std::vector<double> r;
    r.reserve(g_.observations.size());
    for (const Observation& ob : g_.observations) {
      const std::optional<double> p = ob.predict(efficiency);
      // An observation that stops being predictable at these values counts as a large miss.
      r.push_back(p && *p > 0 ? std::log(*p / ob.measured) : 3.0);
    }
    return r;
  }

 private:
  const Group& g_;
};

std::string profile_precision(const Record& r) {
  std::string w = r.stack.weight_precision ? std::string(to_string(*r.stack.weight_precision)) : "bf16";
  std::string kv = r.stack.kv_precision ? std::string(to_string(*r.stack.kv_precision)) : w;
  return w + "/" + kv;
}

GroupFit fit_group(const Group& g, const CalibrateOptions& o) {
  GroupFit out;
  const std::span<const ParameterSpec> spec = g.specs;
  const size_t count = spec.size();
  out.section = g.section;
  out.engine_key = g.key;
  out.display = g.display;
  out.accelerators.assign(g.accelerators.begin(), g.accelerators.end());
  out.precisions.assign(g.precisions.begin(), g.precisions.end());
  const Fitter fit(g);
  std::vector<double> theta = g.before;
  const std::vector<double> r0 = fit.residuals(theta);
  const size_t n = r0.size();
  auto scale = [&](size_t j) { return std::max(std::fabs(g.before[j]), spec[j].min_scale); };

  // Identification: how much a 10 % step of each parameter moves the predictions.
  std::vector<size_t> free;
  std::vector<double> elasticities;  // of each free parameter
  for (size_t j = 0; j < count; ++j) {
    FittedParameter fp;
    fp.name = spec[j].name;
    fp.before = fp.after = g.before[j];
    std::vector<double> t = theta;
    const double step = 0.1 * scale(j);
    t[j] = t[j] + step <= spec[j].hi ? t[j] + step : t[j] - step;
    const std::vector<double> r1 = fit.residuals(t);
    // Identified when some record's prediction moves by at least 0.2 % for a 10 % change (an
    // elasticity of 0.02): below that, the records' own spread of a few % would set the value.
    double elasticity = 0;
    for (size_t i = 0; i < n; ++i) elasticity = std::max(elasticity, std::fabs(r1[i] - r0[i]) / 0.1);
    if (elasticity >= 0.02) {
      fp.identified = true;
      free.push_back(j);
      elasticities.push_back(elasticity);
    } else {
      fp.why_not = fmt::format(
          "not identified (a 10 % change moves no prediction by more than "
          "{:.2f} %): {}",
          elasticity * 10, spec[j].identify);
    }
    out.parameters.push_back(fp);
  }
  // Records fix at most one parameter fewer than their count (at least one): the rest of a
  // combination they cannot tell apart would be set by the prior alone, and a model error in one
  // record would be split over every share (two throughput runs moving both the compute and the
  // memory share by 20 %). The most elastic parameters are fitted; the others keep their values.
  if (n > 0 && free.size() >= n) {
    std::vector<size_t> order(free.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return elasticities[a] > elasticities[b]; });
    const size_t keep = std::max<size_t>(1, n - 1);
    std::vector<size_t> kept;
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t j = free[order[k]];
      if (k < keep) {
        kept.push_back(j);
        continue;
      }
      out.parameters[j].identified = false;
      out.parameters[j].why_not = fmt::format(
          "not identified ({} record(s) fix at most {} parameter(s); more elastic ones were "
          "fitted): {}",
          n, keep, spec[j].identify);
    }
    std::sort(kept.begin(), kept.end());
    free = std::move(kept);
  }
  // Maximum a posteriori fit: the records' log errors, each with the spread one measurement has
  // around memwall's model (kMeasurementSd, soft-L1 beyond it), against a prior at the built-in
  // value with the spread the built-in profiles have between publications (ParameterSpec::
  // prior_sd). A few records move a parameter only as far as they outweigh that spread, so two
  // measurements cannot drag a share fitted on dozens; many records override it.
  auto prior_sd = [&](size_t j) {  // in the solver's units (value / scale)
    return spec[j].relative_prior ? spec[j].prior_sd * g.before[j] / scale(j) : spec[j].prior_sd;
  };
  auto total_cost = [&](const std::vector<double>& res, const std::vector<double>& t) {
    double c = robust_cost(res) / (kMeasurementSd * kMeasurementSd);
    for (size_t j : free) {
      const double z = (t[j] - g.before[j]) / scale(j) / prior_sd(j);
      c += z * z;
    }
    return c;
  };
  std::vector<double> r = r0;
  double cost = total_cost(r, theta);
  double lambda = 1e-2;
  std::vector<std::vector<double>> jac;  // n x free
  std::vector<double> weights(n, 1.0);
  auto jacobian = [&]() {
    jac.assign(n, std::vector<double>(free.size(), 0));
    for (size_t k = 0; k < free.size(); ++k) {
      const size_t j = free[k];
      std::vector<double> t = theta;
      double h = 1e-2 * scale(j);
      if (t[j] + h > spec[j].hi) h = -h;
      t[j] += h;
      const std::vector<double> rh = fit.residuals(t);
      for (size_t i = 0; i < n; ++i) jac[i][k] = (rh[i] - r[i]) / (h / scale(j));
    }
    for (size_t i = 0; i < n; ++i) weights[i] = 1 / std::sqrt(1 + r[i] * r[i] / (kRobustScale * kRobustScale));
  };
  // Normal equations of the data (noise sd `noise`) and the prior, in the solver's units.
  auto normal = [&](double noise, std::vector<std::vector<double>>& a, std::vector<double>& b) {
    const size_t p = free.size();
    a.assign(p, std::vector<double>(p, 0));
    b.assign(p, 0);
    const double inv = 1 / (noise * noise);
    for (size_t i = 0; i < n; ++i)
      for (size_t u = 0; u < p; ++u) {
        b[u] -= inv * weights[i] * jac[i][u] * r[i];
        for (size_t v = 0; v < p; ++v) a[u][v] += inv * weights[i] * jac[i][u] * jac[i][v];
      }
    for (size_t u = 0; u < p; ++u) {
      const size_t j = free[u];
      const double ps = prior_sd(j);
      a[u][u] += 1 / (ps * ps);
      b[u] -= (theta[j] - g.before[j]) / scale(j) / (ps * ps);
    }
  };
  for (int it = 0; it < o.max_iterations && !free.empty(); ++it) {
    jacobian();
    std::vector<std::vector<double>> a;
    std::vector<double> b;
    normal(kMeasurementSd, a, b);
    bool improved = false;
    for (int tries = 0; tries < 8 && !improved; ++tries) {
      auto damped = a;
      for (size_t u = 0; u < free.size(); ++u) damped[u][u] += lambda * std::max(a[u][u], 1e-12);
      std::vector<double> delta;
      if (!solve(damped, b, delta)) break;
      std::vector<double> t = theta;
      for (size_t k = 0; k < free.size(); ++k) {
        const size_t j = free[k];
        t[j] = std::clamp(t[j] + delta[k] * scale(j), spec[j].lo, spec[j].hi);
      }
      const std::vector<double> rt = fit.residuals(t);
      const double ct = total_cost(rt, t);
      if (ct < cost) {
        improved = true;
        const double gain = (cost - ct) / std::max(cost, 1e-300);
        theta = t;
        r = rt;
        cost = ct;
        lambda = std::max(lambda / 3, 1e-7);
        if (gain < 1e-9) it = o.max_iterations;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) break;
  }

  // Uncertainty: the posterior covariance (J^T W J / s^2 + prior^-2)^-1 at the solution, with s
  // the larger of the assumed measurement spread and the records' own residual spread, so an
  // interval is never narrower than what the measurements scatter by.
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += r[i] * r[i];
  const size_t dof = n > free.size() ? n - free.size() : 0;
  out.residual_sd_log = dof > 0 ? std::sqrt(ss / double(dof)) : 0;
  if (!free.empty()) {
    jacobian();
    std::vector<std::vector<double>> a, cov;
    std::vector<double> b;
    normal(std::max(kMeasurementSd, out.residual_sd_log), a, b);
    if (invert(a, cov)) {
      for (size_t k = 0; k < free.size(); ++k) {
        const size_t j = free[k];
        const double sd = std::sqrt(std::max(0.0, cov[k][k])) * scale(j);
        // 80 % two-sided normal interval: z = 1.2816.
        out.parameters[j].low = std::max(spec[j].lo, theta[j] - 1.2816 * sd);
        out.parameters[j].high = std::min(spec[j].hi, theta[j] + 1.2816 * sd);
        for (size_t l = 0; l < k; ++l) {
          const double rho = cov[k][l] / std::sqrt(std::max(cov[k][k] * cov[l][l], 1e-300));
          if (std::fabs(rho) > 0.95)
            out.parameters[j].why_not +=
                fmt::format("{}correlated with {} (rho {:+.2f}): the records fix their combination",
                            out.parameters[j].why_not.empty() ? "" : "; ", spec[free[l]].name, rho);
        }
      }
    }
  }
  for (size_t j = 0; j < count; ++j) out.parameters[j].after = theta[j];

  std::vector<double> abs_b, abs_a, sgn_b, sgn_a;
  for (size_t i = 0; i < n; ++i) {
    const Observation& ob = g.observations[i];
    Residual res;
    res.id = ob.id;
    res.measured = ob.measured;
    res.before = std::exp(r0[i]) * ob.measured;
    res.after = std::exp(r[i]) * ob.measured;
    const double sign = ob.lower_is_better ? -1 : 1;
    res.error_before = sign * (std::exp(r0[i]) - 1);
    res.error_after = sign * (std::exp(r[i]) - 1);
    abs_b.push_back(std::fabs(res.error_before));
    abs_a.push_back(std::fabs(res.error_after));
    sgn_b.push_back(res.error_before);
    sgn_a.push_back(res.error_after);
    out.residuals.push_back(res);
  }
  out.median_abs_error_before = median(abs_b);
  out.median_abs_error_after = median(abs_a);
  out.median_signed_before = median(sgn_b);
  out.median_signed_after = median(sgn_a);
  return out;
}

}  // namespace

GroupFit fit_engine(const perf::EngineProfile& profile, const Accelerator& accelerator,
                    std::vector<Observation> observations, const CalibrateOptions& o) {
  Group g;
  g.key = profile.key();
  g.display = profile.display;
  g.before = before_values(profile, accelerator);
  g.accelerators.insert(accelerator.id);
  g.observations = std::move(observations);
  if (g.observations.empty())
    throw InputError("calibrate: no observation to fit " + g.key + " on");
  return fit_group(g, o);
}

GroupFit fit_framework(const std::string& framework, std::vector<Observation> observations,
                       const CalibrateOptions& o) {
  Group g = framework_group(framework);
  g.observations = std::move(observations);
  if (g.observations.empty())
    throw InputError("calibrate: no observation to fit framework " + g.key + " on");
  return fit_group(g, o);
}

Json engine_settings(const GroupFit& g) {
  Json settings = Json::object();
  for (const auto& p : g.parameters)
    if (p.identified) settings[p.name] = p.after;
  return settings;
}

Json calibration_document(const GroupFit& g) {
  return {{g.section, {{g.engine_key, engine_settings(g)}}}};
}

CalibrationFit calibrate(const std::vector<Record>& records, const Catalog& catalog,
                         const CalibrateOptions& o) {
  // Keyed by section and profile, so an engine and a framework of one name stay apart.
  std::map<std::pair<std::string, std::string>, Group> groups;
  std::vector<std::string> unpredicted;
  for (const Record& r : records) {
    const std::string id = r.id.empty() ? "(record without id)" : r.id;
    const Prediction p = predict(r, catalog);
    if (!p.si) {
      unpredicted.push_back(id + ": " + p.unpredicted);
      continue;
    }
    Group* group = nullptr;
    std::string accelerator = r.hardware.accelerator, precision;
    if (r.workload.mode == Mode::training) {
      // The framework train::answer applies to the record (megatron unless stated).
      const std::string fw = r.stack.framework.value_or("megatron");
      group = &groups[{"frameworks", fw}];
      if (group->observations.empty()) *group = framework_group(fw);
      precision = r.stack.precision.value_or("bf16");
    } else {
      const infer::Deployment d = infer::make_deployment(catalog, deployment_options(r, {}));
      group = &groups[{"engines", d.engine_profile->key()}];
      if (group->observations.empty()) {
        group->key = d.engine_profile->key();
        group->display = d.engine_profile->display;
        group->before = before_values(*d.engine_profile, d.gpu);
      }
      accelerator = d.gpu.id;
      precision = profile_precision(r);
    }
    Group& g = *group;
    Observation ob;
    ob.id = id;
    ob.measured = r.measured.value;
    ob.lower_is_better = is_latency(r.measured.metric);
    const double to_unit = r.measured.value / r.measured.si;
    ob.predict = [&r, &catalog, to_unit](const std::shared_ptr<const perf::Efficiency>& e) {
      PredictOptions po;
      po.efficiency = e;
      const Prediction q = predict(r, catalog, po);
      return q.si ? std::optional<double>(*q.si * to_unit) : std::nullopt;
    };
    g.observations.push_back(std::move(ob));
    g.accelerators.insert(accelerator);
    g.precisions.insert(precision);
  }
  if (groups.empty())
    throw InputError(fmt::format("calibrate: none of the {} records can be predicted{}", records.size(),
                                 unpredicted.empty() ? "" : " (first: " + unpredicted.front() + ")"));
  CalibrationFit f;
  Json sections = {{"engines", Json::object()}, {"frameworks", Json::object()}};
  Json fitted_on = Json::object();
  for (auto& [key, g] : groups) {
    GroupFit gf = fit_group(g, o);
    if (&g == &groups.begin()->second) gf.unpredicted = unpredicted;
    Json params = Json::object();
    for (const auto& p : gf.parameters)
      if (p.identified)
        params[p.name] = {{"before", p.before}, {"after", p.after},
                          {"interval_80", {p.low.value_or(p.after), p.high.value_or(p.after)}}};
    if (const Json settings = engine_settings(gf); !settings.empty())
      sections[gf.section][gf.engine_key] = settings;
    fitted_on[gf.section == "engines" ? gf.engine_key : "framework " + gf.engine_key] = {
        {gf.section == "engines" ? "engine" : "framework", gf.display},
        {"accelerators", gf.accelerators},
        {"precisions", gf.precisions},
        {"records", gf.residuals.size()},
        {"parameters", params},
        {"residual_sd_log", gf.residual_sd_log},
        {"median_abs_error_before", gf.median_abs_error_before},
        {"median_abs_error_after", gf.median_abs_error_after}};
    f.groups.push_back(std::move(gf));
  }
  f.profile = sections;
  if (f.profile["frameworks"].empty()) f.profile.erase("frameworks");
  f.profile["fitted_on"] = {{"groups", fitted_on}, {"files", o.files}};
  return f;
}

std::string to_text(const CalibrationFit& f) {
  std::string out;
  for (const auto& g : f.groups) {
    out += fmt::format("{} ({}), {} record(s) on {}; precisions {}\n", g.engine_key, g.display,
                       g.residuals.size(), fmt::join(g.accelerators, ", "),
                       fmt::join(g.precisions, ", "));
    out += fmt::format("  {:<32} {:>12} {:>12} {:>26}\n", "PARAMETER", "BEFORE", "AFTER",
                       "80 % INTERVAL");
    for (const auto& p : g.parameters) {
      const std::string interval =
          p.low ? fmt::format("{:.4g} - {:.4g}", *p.low, *p.high) : std::string("-");
      out += fmt::format("  {:<32} {:>12.4g} {:>12.4g} {:>26}\n", p.name, p.before, p.after,
                         p.identified ? interval : "kept");
      if (!p.why_not.empty()) out += "      " + p.why_not + "\n";
    }
    out += fmt::format("  median |error| {:.1f} % -> {:.1f} %, median signed {:+.1f} % -> {:+.1f} %, "
                       "residual spread (sd of log error) {:.1f} %\n",
                       100 * g.median_abs_error_before, 100 * g.median_abs_error_after,
                       100 * g.median_signed_before, 100 * g.median_signed_after,
                       100 * g.residual_sd_log);
    out += "  signed error: > 0 optimistic (more throughput or less time than measured)\n";
    out += fmt::format("  {:<40} {:>12} {:>12} {:>12} {:>9} {:>9}\n", "RECORD", "MEASURED",
                       "BEFORE", "AFTER", "SIGNED", "AFTER");
    for (const auto& r : g.residuals)
      out += fmt::format("  {:<40} {:>12.4g} {:>12.4g} {:>12.4g} {:>+8.1f}% {:>+8.1f}%\n",
                         r.id.substr(0, 40), r.measured, r.before, r.after, 100 * r.error_before,
                         100 * r.error_after);
    for (const auto& u : g.unpredicted) out += "  not used: " + u + "\n";
  }
  return out;
}

Json to_json(const CalibrationFit& f) {
  Json groups = Json::array();
  for (const auto& g : f.groups) {
    Json params = Json::array();
    for (const auto& p : g.parameters) {
      Json j = {{"name", p.name}, {"before", p.before}, {"after", p.after}, {"identified", p.identified}};
      j["interval_80"] = p.low ? Json::array({*p.low, *p.high}) : Json(nullptr);
      if (!p.why_not.empty()) j["note"] = p.why_not;
      params.push_back(j);
    }
    Json res = Json::array();
    for (const auto& r : g.residuals)
      res.push_back({{"id", r.id}, {"measured", r.measured}, {"before", r.before}, {"after", r.after},
                     {"signed_error_before", r.error_before}, {"signed_error_after", r.error_after}});
    groups.push_back({{g.section == "engines" ? "engine" : "framework", g.engine_key},
                      {"display", g.display},
                      {"accelerators", g.accelerators},
                      {"parameters", params},
                      {"residuals", res},
                      {"not_used", g.unpredicted},
                      {"median_abs_error_before", g.median_abs_error_before},
                      {"median_abs_error_after", g.median_abs_error_after},
                      {"median_signed_error_before", g.median_signed_before},
                      {"median_signed_error_after", g.median_signed_after},
                      {"residual_sd_log", g.residual_sd_log}});
  }
  return {{"groups", groups}, {"profile", f.profile}};
}

}  // namespace memwall::measure
