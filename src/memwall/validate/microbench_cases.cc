// Predictions for the "microbench" cases of the validation set from the perf model's achievable
// ceilings: STREAM-style bandwidth = datasheet bandwidth x sustained fraction; best-shape matmul
// (MAMF finder) = dense peak x GEMM efficiency at the stated shape. Collective bandwidths go to the
// network model (predict_net_microbench_case).
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/perf/roofline.h"
#include "memwall/validate/case.h"
#include "memwall/validate/names.h"

namespace memwall::validate {
CaseResult predict_microbench_case(const Json& c, const Catalog& catalog) {
  CaseResult r = start_result(c);
  const std::string metric = to_lower(r.metric);
  const Json empty = Json::object();
  const Json& cfg = c.contains("config") && c["config"].is_object() ? c["config"] : empty;
  const std::string test = to_lower(str_field(cfg, "test"));
  if (has(metric, "bus bandwidth") || has(metric, "all-reduce") || has(test, "_perf"))
    return predict_net_microbench_case(c, catalog);
  try {
    std::string note;
    const Json& hw = c.at("hardware");
    const Accelerator& a = catalog.accelerator(hardware_id(str_field(hw, "gpu"), catalog, note));
    const perf::Efficiency& e = perf::default_efficiency();
    const std::string unit = to_lower(r.unit);
    if (has(metric, "dram bandwidth") || has(to_lower(str_field(cfg, "kernel")), "triad")) {
      if (!a.memory_bandwidth) throw InputError(a.id + ": memory bandwidth unknown");
      const double bw = a.memory_bandwidth->value() *
                        e.memory_bandwidth_fraction.lookup(a, Precision::bf16);
      r.predicted = bw / (unit == "gb/s" ? 1e9 : 1.0);
    } else if (has(metric, "matmul")) {
      const std::string dtype = to_lower(str_field(cfg, "dtype"));
      const Precision p = parse_precision_or_throw(dtype.substr(0, dtype.find(' ')), "config.dtype");
      long long m = 0, n = 0, k = 0;
      const std::string shape = str_field(cfg, "best_shape_MxNxK");
      if (std::sscanf(shape.c_str(), "%lldx%lldx%lld", &m, &n, &k) != 3)
        throw InputError("config.best_shape_MxNxK", shape, "MxNxK");
      const auto peak = a.peak(p);
      if (!peak) throw InputError(a.id + ": no dense peak for " + dtype);
      r.predicted = peak->value() * perf::gemm_efficiency(m, n, k, a, p, e) /
                    (unit == "tflop/s" ? 1e12 : 1.0);
    } else {
      r.skipped_reason = "metric '" + r.metric + "' is not a microbenchmark memwall predicts";
      return r;
    }
    r.assumptions = note;
  } catch (...) {
    r.skipped_reason = skipped_because(std::current_exception());
  }
  return r;
}

}  // namespace memwall::validate
