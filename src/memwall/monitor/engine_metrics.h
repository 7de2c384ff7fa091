// The inference engines' own metrics over Prometheus: vLLM's `vllm:*` and SGLang's `sglang:*`
// series, mapped by the "engines" table of data/monitor/exporters.json (each name with the
// versions it belongs to and its definition file), turned into the operating point a job
// achieved over a window: mean running and waiting requests and KV-cache usage (gauges), prompt
// and generation tokens/s, finished requests/s and preemptions (counter increases), and TTFT,
// inter-token (TPOT) and e2e latency means and p50/p99 (histogram bucket increases, the quantile
// interpolated as PromQL's histogram_quantile does). A reading no series gives stays unknown,
// never zero; a malformed or self-contradicting series is an InputError naming it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/monitor/fleet.h"
#include "memwall/monitor/prometheus_query.h"

namespace memwall::monitor {

// One engine metric name and the reading it feeds.
struct EngineMetric {
  std::string set;     // "vllm", "sglang"
  std::string engine;  // the data/engines id of the engine that exposes it
  std::string name;    // the exposed name (a histogram's base name)
  enum class Type { gauge, counter, histogram } type = Type::gauge;
  std::string reading;  // one of engine_readings()
  int rank = 0;         // position in the table: of two names for one reading, the lower wins
};

struct EngineTable {
  std::vector<EngineMetric> metrics;
  std::vector<std::string> sets;
  // The job's labels under one name each, as the exporter table has them (fleet.h).
  std::vector<std::pair<std::string, std::vector<std::string>>> job_labels;
};

// The readings the table maps onto, in report order.
const std::vector<std::string>& engine_readings();

// The built-in table (data/monitor/exporters.json "engines"), parsed once.
const EngineTable& engine_table();
// Parses the "engines" object; `job_labels` from the exporter table. InputError naming the field.
EngineTable engine_table_from_json(const Json& j, const ExporterTable& exporters,
                                   const std::string& where);

// {__name__=~"vllm:num_requests_running|vllm:ttft_bucket|...",namespace="llm"}: every mapped
// name (histograms by their _bucket, _sum and _count series) with the caller's label matchers
// (as fleet_query takes them; InputError naming --job otherwise).
std::string engine_query(const EngineTable& t, const std::string& job_selector);

// The q-quantile of a classic histogram from its cumulative bucket counts (upper bound, count),
// as PromQL's histogram_quantile (prometheus/prometheus@8035c04 promql/quantile.go
// BucketQuantile): the rank q x count(+Inf) falls in the first bucket whose cumulative count
// reaches it and is interpolated linearly inside it, from 0 for the lowest bucket (when its upper
// bound is positive); in the +Inf bucket the second-highest upper bound is returned. Empty when
// there are no observations, fewer than two buckets or no +Inf bucket.
std::optional<double> bucket_quantile(double q, std::vector<std::pair<double, double>> buckets);

// A histogram over the window, in its own unit (seconds for latencies, tokens for lengths): the
// mean (sum increase / count increase) and p50/p99 of the bucket increases.
struct HistogramSummary {
  std::optional<double> mean, p50, p99;
  double observations = 0;  // count increase over the window
};

// What one engine of one job achieved over the window.
struct EngineOperatingPoint {
  std::string job;              // the job labels as fleet.h writes them; empty without job labels
  std::string set;              // "vllm", "sglang"
  std::string engine;           // the data/engines id
  std::string model;            // the model_name label (the served model name); empty when absent
  std::string pod;              // "namespace=..,pod=.." (fleet.h pod_of); empty without a pod label
  DeploymentLabels deployment_labels;  // memwall_io_* labels of its series
  std::set<std::string> names;  // the mapped names whose series were read
  double first_s = 0, last_s = 0;
  std::optional<double> running_requests, waiting_requests, kv_cache_usage_ratio;  // means
  std::optional<double> prompt_tokens_per_s, generation_tokens_per_s, finished_requests_per_s;
  std::optional<double> preemptions;  // over the window
  HistogramSummary ttft, inter_token, e2e;
  std::optional<double> mean_prompt_tokens, mean_generation_tokens;  // per finished request
  // Token counters per finished request (a hint where the length histograms are missing).
  std::optional<double> prompt_tokens_per_request, generation_tokens_per_request;
};

// Maps and groups the series of a range (or instant) answer per job, engine and model. Series of
// names the table does not map are ignored. InputError naming the series for: a value below 0
// or infinite, a KV usage above 1, a bucket without a numeric `le`, a histogram without a +Inf
// bucket, cumulative bucket counts that fall as `le` rises, or a `_count` that disagrees with
// the +Inf bucket. An instant answer (one point per series) gives the gauges only.
std::vector<EngineOperatingPoint> engine_points_from_series(const std::vector<PromSeries>& series,
                                                            const EngineTable& t);

struct EngineWindow {
  std::string url, query;
  double start_s = 0, end_s = 0, step_s = 0, window_s = 0;
  std::vector<EngineOperatingPoint> points;
};

// Queries the server over the window of `o` (its end, step and job selector as fetch_fleet
// takes them) and maps the answer; no points when no engine series match.
EngineWindow fetch_engines(const FleetOptions& o);

Json to_json(const EngineOperatingPoint& p);
std::string format_operating_point(const EngineOperatingPoint& p);

}  // namespace memwall::monitor
