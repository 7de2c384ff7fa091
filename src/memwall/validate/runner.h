// The validation runner: reads published, measured cases (validation/dev-cases.json format), predicts each with the predictor of its kind, and reports per-case absolute percentage
// error with the median and 90th percentile per kind, plus the cases it could not express and why.
#pragma once

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
  double median_pct_error = 0;      // signed: > 0 when optimistic (more throughput / less time)
};

// The same statistics over the predicted cases of one kind that share a regime (inference:
// "output <= 256" / "output > 256", "tp 8", "fp8", "moe", "continuous" ...), so that an error that
// is one-sided in one regime cannot hide in the kind's median.
struct RegimeSummary {
  std::string kind, regime;
  int predicted = 0;
  double median_abs_pct_error = 0, p90_abs_pct_error = 0, median_pct_error = 0;
};

struct Report {
  std::vector<CaseResult> cases;
  std::vector<KindSummary> kinds;
  std::vector<RegimeSummary> regimes;
};

// The regimes a case belongs to (inference cases only; empty for other kinds).
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

Json to_json(const Report& r);
std::string to_text(const Report& r);      // the table for the terminal
std::string to_markdown(const Report& r);  // validation/REPORT.md body

}  // namespace memwall::validate
