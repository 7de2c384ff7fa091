// An engine's operating point (engine_metrics.h) as measurement records (measure/record.h), so
// that memwall predicts it with the estimators every record goes through (measure/predict.h)
// and `memwall calibrate --prometheus` fits it with the one fitter (measure/calibrate.h).
//
// The records are a closed-loop load (mode concurrency) holding the observed mean running
// requests, each request of the mean prompt and generation length of the window:
//   - itl mean: the inter-token histogram's mean (vLLM's TPOT / inter-token latency, SGLang's
//     inter-token latency), the time of one iteration of that steady state;
//   - output_throughput: the generation token counter's rate;
//   - ttft mean and e2e_latency mean, only while requests did not wait (mean waiting < 0.5): a
//     waiting request's TTFT holds queueing the steady state does not.
// What the series cannot say comes from the flags (measure::ImportOptions, as `memwall import`
// takes them): the accelerator and parallel sizes always; the lengths when the length histograms
// are missing; the model when the series carry no model_name. What is still missing is an
// InputError naming the flag.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/measure/import.h"
#include "memwall/measure/predict.h"
#include "memwall/measure/record.h"
#include "memwall/monitor/engine_metrics.h"

namespace memwall::monitor {

struct EngineRecords {
  std::vector<measure::Record> records;
  std::vector<std::string> notes;  // values taken from flags, records not made and why
};

// `where` names the window in ids, sources and messages ("prometheus URL job ... 3600 s to T").
EngineRecords operating_point_records(const EngineOperatingPoint& p, measure::ImportOptions o,
                                      const std::string& where, const Catalog& catalog);

// memwall's estimate beside each measured number of the operating point.
struct PointEstimate {
  std::string metric;   // "itl mean", "output_throughput" ...
  double measured = 0;  // in the record's base unit (s, tokens/s)
  std::optional<double> predicted;
  std::optional<double> signed_error;  // > 0 optimistic (measure::Prediction::signed_error)
  std::string unpredicted;
};

struct OperatingPointEstimate {
  std::vector<PointEstimate> rows;
  std::vector<std::string> notes;
  std::string not_estimated;  // why there is no estimate (a flag missing ...); empty otherwise
  int64_t running = 0, input_tokens = 0, output_tokens = 0;  // the point it was made at
};

// The estimate for the operating point on the deployment of `o`; an InputError of the records
// becomes `not_estimated` (one job lacking a flag does not stop the others' report).
OperatingPointEstimate estimate_operating_point(const EngineOperatingPoint& p,
                                                const measure::ImportOptions& o,
                                                const std::string& where, const Catalog& catalog,
                                                const measure::PredictOptions& po);

Json to_json(const OperatingPointEstimate& e);
std::string format_estimate(const OperatingPointEstimate& e);

}  // namespace memwall::monitor
