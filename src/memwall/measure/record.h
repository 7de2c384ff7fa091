// A measurement record: one measured number with everything that decides it (model, hardware,
// software stack, workload) as typed fields, in the format of docs/measurements.md
// (schema/measurements.schema.json). Benchmark importers write records, `memwall validate` and
// `memwall calibrate` read them. The reader refuses by name what it cannot map: an unknown field,
// metric, statistic or unit, or a value out of range, is an InputError (exit 2); nothing is
// inferred from an id or a free-text label.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/precision.h"

namespace memwall::measure {

inline constexpr const char* kFormat = "memwall-measurements/1";

// What was measured (the closed list of docs/measurements.md).
enum class Metric {
  ttft,                 // arrival to first output token
  tpot,                 // mean time between output tokens after the first, per request
  itl,                  // each gap between consecutive output tokens
  e2e_latency,          // arrival to last token
  output_throughput,    // generated tokens per second, whole deployment
  total_throughput,     // prompt + generated tokens per second, whole deployment
  prompt_throughput,    // prompt tokens per second of the prefill: batch x input / TTFT (static
                        // batch; llama-bench's pp test)
  request_throughput,   // completed requests per second
  training_throughput,  // training tokens per second, whole job
  model_tflops,         // model FLOP/s per device (Narayanan et al. 2021 eq. 3 convention)
  mfu,                  // model FLOP/s per device / dense peak
  step_time,            // one optimizer step
  gpu_hours,            // device-hours to train the stated tokens
  memory,               // peak device memory
};
enum class Statistic { value, mean, median, p90, p95, p99 };
// A throughput for the whole deployment or divided by its devices.
enum class Scope { total, per_device };
// How the load was offered.
enum class Mode {
  static_batch,  // one batch of `batch` sequences, prompt then every output token
  offline,       // an endless queue (every request at once): the engine's steady state
  concurrency,   // `concurrency` clients, each sends its next request when one finishes
  request_rate,  // Poisson arrivals at `request_rate` per second
  training,      // a training job
};

std::string_view to_string(Metric m);
std::string_view to_string(Statistic s);
// Where the requests entered the engine: in-process (the engine's own offline benchmark, no
// server), or the OpenAI-compatible HTTP server's completions or chat-completions route (whose
// front end takes each request in: EngineProfile::frontend_per_request).
enum class Endpoint { none, completions, chat };

std::string_view to_string(Mode m);
std::string_view to_string(Endpoint e);
bool is_latency(Metric m);  // ttft, tpot, itl, e2e_latency, step_time: lower is better, seconds
bool is_training(Metric m);

// A sequence length: fixed, or drawn (uniform over [min, max], lognormal with a coefficient of
// variation) with its mean.
struct Lengths {
  std::string distribution = "fixed";  // fixed | uniform | lognormal
  double mean = 0;
  std::optional<int64_t> min, max;  // uniform
  std::optional<double> cv;         // lognormal
};

struct Model {
  std::string id;        // the zoo id or the config.json path memwall resolved it to
  std::string as_given;  // what the record said ("meta-llama/Llama-3.1-8B-Instruct")
};

struct Hardware {
  std::string accelerator;  // catalog id (resolved from an id or alias)
  int count = 1;            // devices in the measured deployment or job
  std::optional<std::string> node, fabric, host_cpu;
};

struct Stack {
  // Inference: engine (data/engines id) and version; training: framework (train/framework.h).
  std::optional<std::string> engine, framework, version;
  int tp = 1, pp = 1, ep = 1, dp = 1, cp = 1, vpp = 1;
  std::optional<Precision> weight_precision, activation_precision, kv_precision;
  std::optional<int> weight_group_size;
  std::optional<Fp8Recipe> fp8_recipe;
  std::optional<int64_t> max_num_seqs, max_num_batched_tokens;
  std::optional<bool> chunked_prefill, cuda_graphs, sequence_parallel;
  std::optional<int> scheduler_steps;
  std::optional<std::string> attention_backend;  // recorded; not a timing input yet
  std::optional<double> memory_fraction;         // gpu_memory_utilization and its kin
  // Training.
  std::optional<std::string> precision;  // bf16 | fp16 | fp8
  std::optional<int> zero;
  std::optional<std::string> recompute;  // none | selective | full
  std::optional<int64_t> micro_batch, global_batch;
};

struct Workload {
  Mode mode = Mode::static_batch;
  std::optional<int64_t> batch, concurrency, requests;
  std::optional<double> request_rate;  // requests per second
  std::optional<Endpoint> endpoint;    // not stated: unknown
  std::optional<Lengths> input, output;
  std::optional<int64_t> seq_len;  // training
  std::optional<double> tokens;    // training: tokens to train (gpu_hours)
};

struct Measured {
  Metric metric = Metric::ttft;
  Statistic statistic = Statistic::value;
  Scope scope = Scope::total;
  double value = 0;   // as recorded, in `unit`
  std::string unit;   // as recorded ("ms", "tokens/s", "%", "GiB" ...)
  double si = 0;      // in the metric's base unit: s, tokens/s, requests/s, FLOP/s, fraction, B, h
};

struct Record {
  std::string id;      // free text, never interpreted
  std::string source;  // where the number came from (a publication, a file and its hash)
  Model model;
  Hardware hardware;
  Stack stack;
  Workload workload;
  Measured measured;
};

// The records of a document {"format": "memwall-measurements/1", "records": [...]} (or a bare
// list of records). `where` names the document in messages. Names (model, accelerator, node,
// fabric, engine) are resolved against `catalog` and refused by name when unknown.
std::vector<Record> parse_measurements(const Json& doc, const std::string& where,
                                       const Catalog& catalog);
// One record; `where` names it ("FILE: records[3]").
Record parse_record(const Json& r, const std::string& where, const Catalog& catalog);
// True when `doc` declares the format (its "format" key), so a reader can tell it from the
// published-case format of validation/.
bool is_measurement_document(const Json& doc);

// The record in the format it was read from, with the names as resolved.
Json to_json(const Record& r);
Json to_json(const std::vector<Record>& records);

}  // namespace memwall::measure
