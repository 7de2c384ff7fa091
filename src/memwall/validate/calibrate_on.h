// `memwall validate --calibrate-on K`: what a user's own first measurements buy. Within each
// publication and (accelerator, engine profile, precisions) group of the inference cases, or
// (accelerator, framework, precision) group of the training cases, the engine's or framework's
// parameters are fitted (measure/calibrate.h) on the group's first K cases in file order
// and the group's other cases are predicted with the fit; their errors are reported next to the
// uncalibrated errors of the same cases. Groups of K cases or fewer have nothing held out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/validate/case.h"

namespace memwall::validate {

struct CalibrateOnRow {
  std::string dimension, value;  // "all" / "all", "source" / its key
  int cases = 0;                 // held-out cases
  double median_abs_before = 0, p90_abs_before = 0, median_signed_before = 0;  // %
  double median_abs_after = 0, p90_abs_after = 0, median_signed_after = 0;     // %
  // Share of the cases inside their 80 % interval: before, the built-in interval fitted without
  // the case's source; after, the calibrated interval (uncertainty::calibrated_interval) of the
  // group's fit, moderated with the pooled scatter fitted without the case's source. Empty when
  // no case of the row has one. Median widths (high - low) / value in %.
  std::optional<double> coverage_before, coverage_after, median_width_before, median_width_after;
};

struct CalibrateOnReport {
  int k = 0;
  std::string kind = "inference";
  // Each group fitted on all its cases, the predicted ones included (calibrate_on's in_sample).
  bool in_sample = false;
  int groups = 0, groups_fitted = 0;
  // The held-out cases, uncalibrated and calibrated; each one's interval in held_out (before: the
  // built-in one fitted without its source; after: the calibrated one, CalibrateOnRow).
  std::vector<CaseResult> before, after;
  std::vector<std::string> group_of;  // per held-out case: its group key
  // The scatter of the held-out cases after calibration, fitted on every group
  // (uncertainty::fit_calibrated_scatter): what `validate --fit-uncertainty` stores.
  uncertainty::CalibratedScatter scatter;
  std::vector<CalibrateOnRow> rows;
  std::vector<std::string> fits;  // per fitted group: what was fitted, before -> after
};

// `kind`: inference (engine parameters per engine profile) or training (the framework's compute
// share, overlap efficiency and host time per step, per TrainingCase::framework). InputError for
// k < 1, another kind, or a document that is not a list of cases.
// `in_sample`: each group is fitted on all its cases, the ones predicted included, and the same
// cases as without it are reported: the floor any fit of these parameters reaches on them (an
// oracle that sees the answers, never a forecast; docs/validate.md "Calibrate on K").
CalibrateOnReport calibrate_on(const Json& cases, const Catalog& catalog, int k,
                               const std::string& kind = "inference", bool in_sample = false);

std::string to_text(const CalibrateOnReport& r);
Json to_json(const CalibrateOnReport& r);
// The report as Markdown (validation/REPORT.md's "Calibrated on the first K cases" sections).
std::string to_markdown(const CalibrateOnReport& r);

// `memwall validate --profile-drift`: are the built-in engine profiles where their own evidence
// puts them? Every (engine profile, accelerator) group of the inference cases, all publications
// pooled, is fitted with calibrate's fitter on all its cases; a built-in value outside the 80 %
// interval of its fit has drifted from the dev cases (docs/validate.md "Profile drift").
struct ProfileDrift {
  std::string engine_profile, accelerator;
  int cases = 0;
  std::vector<std::string> sources;
  std::string parameter;
  double built_in = 0, fitted = 0, low = 0, high = 0;
  bool drifted = false;  // built_in outside [low, high]
};
struct ProfileDriftReport {
  int groups = 0;                    // (engine, accelerator) groups with predicted cases
  std::vector<ProfileDrift> parameters;  // every identified parameter of every group
  int drifted() const;
};
ProfileDriftReport profile_drift(const Json& cases, const Catalog& catalog);
std::string to_text(const ProfileDriftReport& r);
Json to_json(const ProfileDriftReport& r);

}  // namespace memwall::validate
