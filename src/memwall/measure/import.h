// Importers: the benchmark files users already have, read into measurement records (record.h,
// docs/measurements.md "Importers"). Each format is read to its upstream schema (the file and
// commit are cited beside each reader). What a file does not carry (the accelerator, the engine
// that served, the parallel sizes, often the lengths) comes from ImportOptions; what is still
// missing is refused by name (InputError, exit 2). A field of the file that cannot be mapped is
// refused by name when it changes what was measured (gamma arrivals, a ramp-up, speculative
// decoding), and listed in `notes` as not imported otherwise (free-form metadata, statistics
// outside memwall's list): nothing is dropped silently, no number or unit is guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/measure/record.h"

namespace memwall::measure {

// The formats import_file reads, in the order of docs/measurements.md.
std::vector<std::string> import_formats();

struct ImportOptions {
  std::string format;  // one of import_formats()
  // Replace or complete the file's own fields; names as `memwall infer` takes them.
  std::optional<std::string> model;        // zoo id, Hugging Face repository id or config.json
  std::optional<std::string> accelerator;  // --gpu
  std::optional<int> devices;              // --gpus: hardware.count (default tp x pp x dp)
  std::optional<int> tp, pp, ep, dp;
  std::optional<std::string> node, fabric, host_cpu;
  std::optional<std::string> engine, engine_version;
  std::optional<std::string> weight_precision, activation_precision, kv_precision;
  std::optional<int64_t> max_num_seqs, max_num_batched_tokens;
  std::optional<double> memory_fraction;  // --memory-utilization
  // Lengths per request: "N", "fixed:N", "uniform:LO,HI", "lognormal:MEAN,CV"; where the file
  // lists each request's length, how to read that list: "fixed", "uniform", "uniform:LO,HI",
  // "lognormal".
  std::optional<std::string> input, output;
  std::optional<int64_t> batch;  // vllm-latency: the --batch-size of the run
  // inference-perf: the run's load.type (poisson or concurrent), which its stage reports omit.
  std::optional<std::string> load_type;
  // Training logs (megatron-log): the job's settings the log does not print.
  std::optional<std::string> framework, framework_version;
  std::optional<int> cp, vpp, zero;
  std::optional<std::string> training_precision;  // --precision: bf16 | fp16 | fp8
  std::optional<std::string> recompute;           // none | selective | full
  std::optional<int64_t> micro_batch, global_batch, seq_len;
};

// The records of the benchmark file `path` in format `o.format`, each one parse_record accepts.
// `notes` receives one line per thing that was not imported or was taken from a flag.
std::vector<Record> import_file(const std::string& path, const ImportOptions& o,
                                const Catalog& catalog, std::vector<std::string>& notes);
// The same for the file's text (`where` names it in messages and in each record's source).
std::vector<Record> import_text(const std::string& text, const std::string& where,
                                const ImportOptions& o, const Catalog& catalog,
                                std::vector<std::string>& notes);

}  // namespace memwall::measure
