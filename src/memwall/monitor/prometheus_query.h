// A client of the Prometheus HTTP API (prometheus.io/docs/prometheus/latest/querying/api/):
// instant queries (GET /api/v1/query) and range queries (GET /api/v1/query_range), with a
// connection and read timeout, a cap on the response size and strict parsing of the answer:
// `status` "success", `data.resultType` "vector" or "matrix", each sample a [time, "value"] pair
// whose value is a string (decimal, "NaN", "+Inf" or "-Inf"). Anything else is an InputError
// naming the field. memwall is Prometheus's client here (federation, Thanos or Mimir scale it).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memwall/core/units.h"

namespace memwall::monitor {

// One time series of an answer: its labels (with __name__ where the query kept it) and its
// samples as (Unix time in seconds, value); NaN values are kept as NaN.
struct PromSeries {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<double, double>> points;
};

struct PromClientOptions {
  Seconds timeout{10.0};                  // connection and read timeout, each
  size_t max_response_bytes = 64u << 20;  // a larger answer is refused (exit 3)
};

// Parses an API answer; `where` (e.g. "prometheus query_range") prefixes the messages.
// InputError naming the field for anything not a vector or matrix success answer.
std::vector<PromSeries> parse_query_response(std::string_view body, const std::string& where);

// A sample value as the API writes it: decimal, "NaN", "+Inf", "-Inf" (InputError otherwise).
double parse_sample_value(const std::string& text, const std::string& where);

class PrometheusClient {
 public:
  // `url`: http[s]://HOST[:PORT][/PATH PREFIX]; InputError naming --prometheus otherwise.
  explicit PrometheusClient(const std::string& url, const PromClientOptions& o = {});
  ~PrometheusClient();
  PrometheusClient(const PrometheusClient&) = delete;
  PrometheusClient& operator=(const PrometheusClient&) = delete;

  // Evaluates `expr` at `time_s` (default: now on the server).
  std::vector<PromSeries> query(const std::string& expr,
                                std::optional<double> time_s = std::nullopt);
  // Evaluates `expr` every `step_s` from `start_s` to `end_s` (Unix seconds).
  std::vector<PromSeries> query_range(const std::string& expr, double start_s, double end_s,
                                      double step_s);

  const std::string& url() const { return url_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string url_;
};

}  // namespace memwall::monitor
