// A fleet as a Prometheus server sees it: the series of dcgm-exporter, AMD's device-metrics-
// exporter, Ascend's npu-exporter and memwall's own exporter, mapped onto memwall's readings by
// the table in data/monitor/exporters.json (units converted, each name with its source) and
// grouped per node, per GPU and per job from the labels exporters and Kubernetes put on them.
// A reading no exporter of a GPU exposes stays unknown, never zero. The advisor then runs per job
// and per GPU on the mapped samples.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/monitor/advisor.h"
#include "memwall/monitor/prometheus_query.h"
#include "memwall/monitor/sample.h"

namespace memwall::monitor {

// One exported metric name and the reading it feeds.
struct ExporterMetric {
  std::string set;      // "dcgm-exporter", "amd", "ascend", "memwall"
  std::string name;     // the Prometheus metric name
  std::string reading;  // a GpuSample key (sample_keys()) or "name"
  enum class Kind { value, sum, bitmask, reason_flag, identity } kind = Kind::value;
  bool optional = false;                     // sum: the total is known without it
  double scale = 1;                          // exported unit -> the reading's unit
  std::map<std::string, std::string> match;  // labels a series must carry (e.g. clock_type)
  int rank = 0;  // position in the table: of two names for one reading, the lower rank wins
};

struct ExporterTable {
  std::vector<ExporterMetric> metrics;
  std::vector<std::string> node_labels, uuid_labels, index_labels, instance_labels, name_labels;
  // The job's labels under one name each (pod) with the names exporters use (pod, pod_name).
  std::vector<std::pair<std::string, std::vector<std::string>>> job_labels;
  std::vector<std::string> sets;
};

// The built-in table (data/monitor/exporters.json), parsed once.
const ExporterTable& exporter_table();
// Parses a table document (the object under "exporters"); InputError naming the field.
ExporterTable exporter_table_from_json(const Json& j, const std::string& where);

// The PromQL selector of every mapped name, with the caller's label matchers added:
// {__name__=~"A|B|...",namespace="llm"}. `job_selector` is a comma-separated list of label
// matchers without braces (InputError naming --job when it holds braces or is too long).
std::string fleet_query(const ExporterTable& t, const std::string& job_selector);

// The deployment labels of a pod's series: label -> the values seen. memwall's deploy emitter
// puts memwall.io/model, memwall.io/tp ... on its pods, and Prometheus's Kubernetes pod
// discovery, relabelled with labelmap, writes them as memwall_io_model ... (label_deployment.h).
using DeploymentLabels = std::map<std::string, std::set<std::string>>;
inline constexpr const char* kDeploymentLabelPrefix = "memwall_io_";
// Adds the labels of one series that start with kDeploymentLabelPrefix.
void collect_deployment_labels(const std::map<std::string, std::string>& labels,
                               DeploymentLabels& into);

// One GPU (or NPU) of one job on one node, with its samples in time order.
struct FleetGpu {
  std::string node;  // from Hostname/hostname/node, else Prometheus's instance
  std::string gpu;   // the UUID label's value, else the device index label's
  std::string job;   // "namespace=..,pod=..,container=.." etc.; empty without job labels
  std::string pod;   // "namespace=..,pod=..": the job's pod; empty without a pod label
  DeploymentLabels deployment_labels;  // of its series
  std::optional<int> device_index;  // the exporter's index label, when numeric
  std::set<std::string> sources;    // the name sets its series came from
  std::vector<GpuSample> samples;   // index = this GPU's position in the fleet
};

// Maps and groups the series of an answer. A series with a mapped name but no GPU label, a
// value that is infinite or outside its reading's range after conversion is an InputError naming
// the metric, its labels and the reading; NaN values are unknown readings.
std::vector<FleetGpu> fleet_from_series(const std::vector<PromSeries>& series,
                                        const ExporterTable& t);

struct FleetOptions {
  std::string url;
  Seconds window{900.0};        // 0: one instant query (the latest values)
  std::optional<Seconds> step;  // default: window / 240, at least 1 s
  std::string job_selector;
  PromClientOptions client;
  std::optional<double> end_time_s;  // default: now
  bool require_gpus = true;          // false: no mapped GPU series is an empty fleet, not exit 3
};

struct Fleet {
  std::string url, query;
  double start_s = 0, end_s = 0, step_s = 0, window_s = 0;
  std::vector<FleetGpu> gpus;
};

// "15m", "1h", "90s", "2d", "900" (seconds) -> seconds; InputError naming `field` otherwise.
Seconds parse_window(const std::string& text, const std::string& field);

// The step of a range query over `window`: `step` when given, else about 240 points per series.
double range_step_s(Seconds window, const std::optional<Seconds>& step);

// The job of a series: its job labels under their one name each, "namespace=..,pod=.."; empty
// without job labels.
std::string job_of(const std::map<std::string, std::string>& labels,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& job_labels);

// The pod of a series: its namespace and pod labels as job_of writes them ("namespace=..,pod=..");
// empty without a pod label.
std::string pod_of(const std::map<std::string, std::string>& labels,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& job_labels);

// "Prometheus at URL has no series of `names` in the last N s matching SELECTOR; ...".
std::string no_series_message(const FleetOptions& o, const std::string& names);

// Queries the server (range, or instant for a zero window) and maps the answer.
Fleet fetch_fleet(const FleetOptions& o);

// The deployment a job's series name through their labels, and memwall's estimate for it
// (label_deployment.h), when the flags give none.
struct JobDeployment {
  std::optional<Expected> expected;   // empty where the labels or the workload fall short
  std::vector<std::string> used;      // "accelerator nvidia-h100-sxm (memwall_io_accelerator=...)"
  std::vector<std::string> unmapped;  // "memwall_io_tp='two': not a whole number from 1 to 1024"
  std::vector<std::string> notes;     // why there is no estimate
};

struct JobAdvice {
  std::string job;
  std::vector<int> gpus;  // indices into Fleet::gpus
  Advice advice;          // over every sample of those GPUs, against the estimate if given
  std::optional<JobDeployment> deployment;  // read from the labels (no --model/--gpu)
};

struct FleetAdvice {
  std::vector<JobAdvice> jobs;
  std::vector<Advice> gpus;  // per GPU, in Fleet::gpus order, without the estimate
};

// The advisor per job and per GPU, against `expected` (the flags' deployment) or, for a job in
// `from_labels`, against the deployment its labels name.
FleetAdvice advise_fleet(const Fleet& f, const std::optional<Expected>& expected,
                         const std::map<std::string, JobDeployment>& from_labels = {});

Json to_json(const Fleet& f, const FleetAdvice* advice);
// The lines that say which labels formed a job's deployment, which were not mapped and why
// there is no estimate.
std::string format_job_deployment(const JobDeployment& d);
std::string format_fleet(const Fleet& f, const FleetAdvice* advice);

}  // namespace memwall::monitor
