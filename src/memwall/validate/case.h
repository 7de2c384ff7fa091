// A published, measured case (validation/dev-cases.json format) and memwall's prediction
// for it. Each kind has its own predictor; the runner collects errors per kind.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/perf/efficiency.h"
#include "memwall/uncertainty/model.h"

namespace memwall::validate {

struct CaseResult {
  std::string id, kind, metric, unit;
  std::string source;               // the publication (source_key of the case's "source")
  std::string group;                // the case's optional "group" (reported as "kind/group")
  double measured = 0;
  std::optional<double> predicted;  // in the case's unit; empty when the case cannot be expressed
  std::string skipped_reason;       // why not, when empty
  std::string assumptions;          // what memwall assumed that the source left unstated
  uncertainty::Regime regime;       // what dominated the prediction (set by the predictor)
  std::optional<uncertainty::Interval> held_out;  // 80 % interval fitted without its source
  double abs_pct_error() const;     // |predicted - measured| / measured x 100
  // (predicted - measured) / measured x 100, negated for costs (unit s, ms, us, GPU-hours), so
  // that > 0 always means optimistic: more throughput or less time than measured (too little
  // hardware bought).
  double signed_pct_error() const;
  std::vector<std::string> workload;  // regimes_of() (runner.h): inference workload regimes
  // What an inference prediction ran on, for calibrating by group (calibrate_on.h): the resolved
  // engine profile's key ("vllm@0.8"), the accelerator id and "weights/KV" precisions.
  std::string engine_profile, accelerator, precisions;
  std::string framework;  // training: the calibrated stack (TrainingCase::framework)
};

// One predictor per kind; each fills `predicted` or `skipped_reason`.
// `efficiency`: the parameters to predict with (a calibration); null: the built-in ones.
CaseResult predict_inference_case(const Json& c, const Catalog& catalog,
                                  std::shared_ptr<const perf::Efficiency> efficiency = nullptr);
// Training: a calibration's frameworks entry for the case's stack (TrainingCase::framework)
// replaces the estimator's built-in compute share, overlap efficiency and host time per step.
CaseResult predict_training_case(const Json& c, const Catalog& catalog,
                                 std::shared_ptr<const perf::Efficiency> efficiency = nullptr);
CaseResult predict_microbench_case(const Json& c, const Catalog& catalog);
CaseResult predict_memory_case(const Json& c, const Catalog& catalog);
// A model on one GPU with weights, experts or KV in host memory (offload/placement.h).
CaseResult predict_offload_case(const Json& c, const Catalog& catalog);
// Collective-bandwidth microbenchmarks (nccl-tests); predict_microbench_case delegates to it.
CaseResult predict_net_microbench_case(const Json& c, const Catalog& catalog);

// A measurement record (docs/measurements.md) in a case list: no "kind", a structured "metric".
bool is_record(const Json& c);
// Reads the record strictly (InputError naming the field of `where`) and predicts it.
CaseResult predict_record_case(const Json& c, const Catalog& catalog, const std::string& where);

// Reading the free text and loose fields of published cases.
bool has(const std::string& text, const char* word);         // word occurs in text
std::string str_field(const Json& obj, const char* key);      // "" when absent or not a string
std::optional<int64_t> int_field(const Json& obj, const char* key);  // rounded; empty if not a number

// Common header fields of a case into a result with nothing predicted yet.
CaseResult start_result(const Json& c);

// Why a predictor could not express a case, from the exception it threw (`e`, rethrown here):
// "cannot express" (InputError), "infeasible as described" (InfeasibleError) or "case lacks a
// field" (a JSON access); any other exception propagates to predict_case.
std::string skipped_because(const std::exception_ptr& e);

}  // namespace memwall::validate
