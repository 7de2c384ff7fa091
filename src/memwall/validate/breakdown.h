// The validation report by source and by regime: for each kind, every value of every regime
// dimension (uncertainty/regime.h: bound, hardware, precision, engine, offload, scale) and every
// source gets the median signed error, the median and p90 absolute error, and the coverage of the
// leave-one-source-out 80 % intervals (uncertainty/model.h) with their median width. Other
// per-regime tables fold in as more dimensions of the same rows.
#pragma once

#include <optional>
#include <map>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/uncertainty/model.h"
#include "memwall/validate/runner.h"

namespace memwall::validate {

// The residuals ln(predicted / measured) of the report's predicted cases.
std::vector<uncertainty::Residual> residuals(const Report& r);

// Fills each predicted case's held-out interval and the report's groups (leave-one-source-out
// with the widening factors of `widening`).
void add_breakdown(Report& r, const uncertainty::Widening& widening);

// The uncertainty model fitted on the report's residuals (widening factors: the stated defaults of
// uncertainty::Widening), with `provenance` and the leave-one-source-out coverage per kind: the
// content of data/uncertainty.json. `calibrated`: per kind, the scatter after calibration
// (CalibrateOnReport::scatter of `validate --calibrate-on 2`), stored as Model::calibrated.
Json fit_uncertainty(const Report& r, Json provenance,
                     const std::map<std::string, uncertainty::CalibratedScatter>& calibrated = {});

// "inference 82 % (31 of 38), training 80 % (45 of 56)": the held-out coverage per plain kind,
// case groups ("kind/group") included.
std::string coverage_by_kind(const Report& r);

Json groups_json(const Report& r);
std::string groups_text(const Report& r);
std::string groups_markdown(const Report& r);

// Width of an interval in % of the predicted value: (e^h - e^-h) x 100.
double width_pct(const uncertainty::Interval& i);
// "80 %" (value x scale, `sep` before the sign), "-" when unknown.
std::string pct_or_dash(const std::optional<double>& v, double scale, const char* sep = "");

}  // namespace memwall::validate
