// Measurement records (measure/record.h, docs/measurements.md) as validation cases: the record is
// read strictly, predicted by measure::predict and reported in its own unit beside the published
// cases' results.
#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/measure/predict.h"
#include "memwall/measure/record.h"
#include "memwall/uncertainty/model.h"
#include "memwall/validate/case.h"

namespace memwall::validate {

bool is_record(const Json& c) {
  return c.is_object() && !c.contains("kind") && c.contains("metric") && c["metric"].is_object();
}

CaseResult predict_record_case(const Json& c, const Catalog& catalog, const std::string& where) {
  const measure::Record rec = measure::parse_record(c, where, catalog);
  CaseResult r;
  r.id = rec.id.empty() ? where : rec.id;
  r.kind = rec.workload.mode == measure::Mode::training ? "training" : "inference";
  const measure::Measured& m = rec.measured;
  r.metric = m.statistic == measure::Statistic::value
                 ? std::string(measure::to_string(m.metric))
                 : fmt::format("{} {}", measure::to_string(m.metric), measure::to_string(m.statistic));
  // Times in their canonical spelling, so the signed error flips them (CaseResult).
  r.unit = measure::is_latency(m.metric) && m.metric != measure::Metric::gpu_hours ? to_lower(m.unit)
                                                                                  : m.unit;
  r.source = uncertainty::source_key(rec.source.empty() ? where : rec.source);
  r.regime.kind = r.kind;
  r.measured = m.value;
  const measure::Prediction p = measure::predict(rec, catalog);
  r.assumptions = p.assumptions;
  if (p.si)
    r.predicted = *p.si * (m.value / m.si);  // back to the record's unit
  else
    r.skipped_reason = p.unpredicted;
  return r;
}

}  // namespace memwall::validate
