// `memwall validate --calibrate-on K`: what a user's own first measurements buy. Within each
// publication and (accelerator, engine profile, precisions) group of the inference cases, the
// engine parameters are fitted (measure/calibrate.h) on the group's first K cases in file order
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
};

struct CalibrateOnReport {
  int k = 0;
  int groups = 0, groups_fitted = 0;
  std::vector<CaseResult> before, after;  // the held-out cases, uncalibrated and calibrated
  std::vector<CalibrateOnRow> rows;
  std::vector<std::string> fits;  // per fitted group: what was fitted, before -> after
};

// InputError for k < 1 or a document that is not a list of cases.
CalibrateOnReport calibrate_on(const Json& cases, const Catalog& catalog, int k);

std::string to_text(const CalibrateOnReport& r);
Json to_json(const CalibrateOnReport& r);

}  // namespace memwall::validate
