// Calibration to the user's stack: the engine parameters that measurement records identify,
// fitted by bounded robust least squares on the log error of memwall's predictions, with their
// uncertainty; every other parameter keeps its built-in value. The result is a calibration
// profile (perf/efficiency.h apply_calibration: engines.<engine@version>) that every face takes
// with --calibration, and it records what it was fitted on.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/measure/record.h"
#include "memwall/perf/efficiency.h"

namespace memwall::measure {

// One engine parameter as it is fitted.
struct FittedParameter {
  std::string name;    // the calibration key (compute_in_situ_fraction, step_overhead_us ...)
  double before = 0;   // the built-in value for this engine and accelerator
  double after = 0;    // fitted (= before when not identified)
  std::optional<double> low, high;  // 80 % interval of the fitted value; empty when not fitted
  bool identified = false;
  std::string why_not;  // when not identified: what the records lack and which run would add it
};

struct Residual {
  std::string id;
  double measured = 0, before = 0, after = 0;  // in the record's unit
  double error_before = 0, error_after = 0;     // signed, > 0 optimistic (Prediction::signed_error)
};

// The fit of one engine profile (the records that resolve to it).
struct GroupFit {
  std::string section = "engines";  // the calibration section: engines, or frameworks (training)
  std::string engine_key;  // the calibration key: the resolved profile, "vllm@0.8", or framework
  std::string display;
  std::vector<std::string> accelerators, precisions;
  std::vector<FittedParameter> parameters;
  std::vector<Residual> residuals;
  std::vector<std::string> unpredicted;  // "id: reason" of records memwall cannot predict
  double median_abs_error_before = 0, median_abs_error_after = 0;  // |signed error|
  double median_signed_before = 0, median_signed_after = 0;
  // Spread of the records around the fitted model: the log residuals' standard deviation (the
  // intervals after calibration are never narrower than it).
  double residual_sd_log = 0;
};

struct CalibrateOptions {
  std::vector<std::string> files;  // recorded in the profile's provenance, with their sha256
  int max_iterations = 40;
};

struct CalibrationFit {
  std::vector<GroupFit> groups;
  Json profile;  // {"engines": {...}, "fitted_on": {...}}
};

// One measured number as the fitter sees it: the value and memwall's prediction of it under
// given parameters (in the same unit). Records (below) and the published cases of validate
// (--calibrate-on) both become observations.
struct Observation {
  std::string id;
  double measured = 0;           // > 0
  bool lower_is_better = false;  // times and GPU-hours: the signed error is negated
  std::function<std::optional<double>(const std::shared_ptr<const perf::Efficiency>&)> predict;
};

// Fits the parameters of one engine profile (as resolved on `accelerator`, which gives the
// built-in values) to observations that all run on it. InputError for none.
GroupFit fit_engine(const perf::EngineProfile& profile, const Accelerator& accelerator,
                    std::vector<Observation> observations, const CalibrateOptions& o = {});
// Fits the training framework `framework` (data/frameworks/training.json id: its compute share,
// overlap efficiency and host time per step, perf::FrameworkCalibration) to observations of jobs
// on it; the built-in values are the training estimator's. InputError for none or an unknown id.
GroupFit fit_framework(const std::string& framework, std::vector<Observation> observations,
                       const CalibrateOptions& o = {});
// The calibration-file settings of a fit: {parameter: value} of what was fitted.
Json engine_settings(const GroupFit& g);
// The calibration document of one fit: {section: {key: settings}}.
Json calibration_document(const GroupFit& g);

// Inference records are fitted per engine profile, training records per framework
// (stack.framework, megatron unless stated). InputError when no record can be predicted.
CalibrationFit calibrate(const std::vector<Record>& records, const Catalog& catalog,
                         const CalibrateOptions& o = {});

std::string to_text(const CalibrationFit& f);
Json to_json(const CalibrationFit& f);

}  // namespace memwall::measure
