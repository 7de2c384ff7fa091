// memwall's prediction of a measurement record (record.h): the record's deployment, stack and
// workload become the estimator's inputs, and the answer is read as the record's metric.
//   - static_batch: infer::estimate of one batch (every sequence alike, so a percentile is the mean);
//   - offline: the continuous-batching steady state under the engine's limits, or, with `requests`
//     stated, those requests sent at once and simulated to the last completion;
//   - concurrency: the steady state with the engine holding min(concurrency, its limits) sequences
//     (each client always has a request in flight) for means and throughputs; the serving
//     simulator, closed loop, for percentiles;
//   - request_rate: the serving simulator with Poisson arrivals;
//   - training: train::answer for one step (gpu_hours over workload.tokens).
// What memwall does not predict for a record is said in `unpredicted`, never approximated silently.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/infer/deployment.h"
#include "memwall/measure/record.h"
#include "memwall/perf/efficiency.h"

namespace memwall::measure {

struct Prediction {
  std::optional<double> si;  // in the metric's base unit (Measured::si)
  std::string unpredicted;   // why not, when si is empty
  std::string assumptions;   // what the record left unstated and memwall assumed
  // (predicted - measured) / measured, negated for latencies and GPU-hours, so > 0 is optimistic.
  std::optional<double> signed_error(const Record& r) const;
};

struct PredictOptions {
  // The parameters to predict with (a calibration applied over the built-in ones); null: built-in.
  std::shared_ptr<const perf::Efficiency> efficiency;
  // Requests a simulated record runs when it states none.
  int64_t default_requests = 1000;
};

// The deployment the record describes (its names resolved by make_deployment later).
infer::DeploymentOptions deployment_options(const Record& r, const PredictOptions& o);

// Never throws for a record it cannot predict (unpredicted says why); InputError and
// InfeasibleError of the estimators are caught and reported there.
Prediction predict(const Record& r, const Catalog& catalog, const PredictOptions& o = {});

}  // namespace memwall::measure
