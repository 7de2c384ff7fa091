// The validation runner: reads published, measured cases (validation/dev-cases.json format), predicts each with the predictor of its kind, and reports per-case absolute percentage
// error with the median and 90th percentile per kind, plus the cases it could not express and why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/embedded.h"
#include "memwall/validate/case.h"

namespace memwall::validate {

struct KindSummary {
  std::string kind;
  int predicted = 0;
  int skipped = 0;
  double median_abs_pct_error = 0;  // over predicted cases
  double p90_abs_pct_error = 0;     // nearest-rank 90th percentile
  // Set on the pooled row "kind (all)" of a kind with case groups (its original set and every
  // group together), whose breakdown has no row of its own.
  std::optional<double> median_signed_pct_error;
};

// One row of the report by source and regime (breakdown.h); dimension "all" is the whole kind.
struct GroupSummary {
  std::string kind, dimension, value;
  int predicted = 0;
  double median_signed_pct_error = 0;  // + optimistic, - pessimistic (CaseResult::signed_pct_error)
  double median_abs_pct_error = 0;
  double p90_abs_pct_error = 0;
  // Share of cases inside their leave-one-source-out interval and those intervals' median width in
  // % of the predicted value; empty when no case of the group has one (a source alone in its kind).
  std::optional<double> coverage, median_width_pct;
};

struct Report {
  std::vector<CaseResult> cases;
  std::vector<KindSummary> kinds;
  std::vector<GroupSummary> groups;  // filled by add_breakdown (breakdown.h)
};

// The workload regimes an inference case belongs to ("output <= 256", "tp 8", "fp8", the vendor,
// "continuous", "moe"), reported as the "workload" dimension of the groups (breakdown.h) so that an
// error that is one-sided in one regime cannot hide in the kind's median; empty for other kinds.
std::vector<std::string> regimes_of(const Json& c, const Catalog& catalog);

// Dispatches on the case's "kind" (inference, training, microbench, memory).
CaseResult predict_case(const Json& c, const Catalog& catalog);

// Runs every case of `cases` (a JSON array; `kind` filters when not empty). InputError for a
// document that is not an array of objects.
Report run_cases(const Json& cases, const Catalog& catalog, const std::string& kind = "");
Report run_file(const std::string& path, const Catalog& catalog, const std::string& kind = "");

// The repository's case files (validation/dev-cases.json, validation/extra-cases.json), compiled
// into the binary by validation/CMakeLists.txt; paths are relative to validation/.
const std::vector<data::EmbeddedFile>& embedded_case_files();
// The built-in case file `name` ("dev-cases.json", "extra-cases.json") parsed; InputError naming
// the files there are for any other name.
Json builtin_cases(const std::string& name);

// Median and nearest-rank p90 of the values (0 for none).
double median(std::vector<double> v);
double percentile90(std::vector<double> v);

// The group of dimension "all" of `kind` (the whole kind), null before add_breakdown.
const GroupSummary* whole_kind(const Report& r, const std::string& kind);

Json to_json(const Report& r);
std::string to_text(const Report& r);      // the table for the terminal
std::string to_markdown(const Report& r);  // validation/REPORT.md body

}  // namespace memwall::validate
