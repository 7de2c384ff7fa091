// What the importers share (import.cc): the parts of a record the flags give, lengths from a flag
// or from a file's per-request list, and the last check of every imported record by
// parse_record. Internal to src/memwall/measure.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/measure/import.h"
#include "memwall/measure/record.h"

namespace memwall::measure::detail {

// A record's model, hardware and stack from the flags and the file's own model name
// (`file_model`, read from the file's field `file_model_field`; --model replaces it, with a note).
// `engine_why` says why --engine is required (what the file holds instead).
Json record_base(const ImportOptions& o, const std::string& where,
                 const std::optional<std::string>& file_model, const std::string& file_model_field,
                 const std::string& engine_why, const Catalog& catalog,
                 std::vector<std::string>& notes);

// Lengths from the flag `option` (--input, --output): "N", "fixed:N", "uniform:LO,HI",
// "lognormal:MEAN,CV"; InputError "`option`: required: `why`" when the flag is not given.
Json lengths_from_flag(const std::optional<std::string>& flag, const std::string& option,
                       const std::string& why);

// Lengths from the file's per-request list at `field`; `flag` (fixed | uniform | uniform:LO,HI |
// lognormal) says how to read a list whose lengths vary. With `skip_zeros`, zero entries (failed
// requests) are left out, with a note.
Json lengths_from_list(const Json& list, const std::string& field,
                       const std::optional<std::string>& flag, const std::string& option,
                       bool skip_zeros, std::vector<std::string>& notes);

// The lengths of a file that summarises them (count, min, max, mean and population standard
// deviation over the requests, as GuideLLM and AIPerf write them) read as lengths_from_list reads
// a list: fixed when min = max, otherwise as `flag` says (the list's forms).
struct LengthStats {
  size_t requests = 0;
  int64_t min = 0, max = 0;
  double mean = 0, std_dev = 0;
};
Json lengths_from_stats(const LengthStats& stats, const std::string& field,
                        const std::optional<std::string>& flag, const std::string& option,
                        std::vector<std::string>& notes);

// The runs of a result file: one JSON object, or one object per line (JSON Lines, as
// --append-result and SGLang's --output-file append them); each with where it came from
// (`where`, or `where:LINE`). With `python_tokens`, the bare tokens Infinity, -Infinity and NaN
// that Python's json.dumps writes for float('inf') and float('nan') are read as the strings
// "Infinity", "-Infinity" and "NaN" (a reader then accepts them only where it says so).
std::vector<std::pair<Json, std::string>> json_lines(const std::string& text,
                                                     const std::string& where,
                                                     bool python_tokens = false);
// InputError naming the first field of the object `obj` (at `where`) outside `allowed`, with
// `allowed_text` as what is allowed; InputError when `obj` is no object.
void only_fields(const Json& obj, const std::string& where, const std::set<std::string>& allowed,
                 const std::string& allowed_text);
// The field `key` of `obj`, or nullptr when it is absent or null.
const Json* field_or_null(const Json& obj, const std::string& key);
// The text field `key`, or nullopt when absent or null; InputError when it is not text.
std::optional<std::string> opt_string(const Json& obj, const char* key, const std::string& where);

// What a measured 0 means: a metric no request measured (a non-streaming endpoint has no TTFT or
// ITL, a one-token output no TPOT), left out with a note; or a value that must be measured,
// refused by name.
enum class ZeroValue { noted, refused };
// One record: `base` (model, hardware, stack, workload, source) with id `id` and the metric
// `name`, `statistic`, `value` and `unit`, read from the file's field `where`.`key`; appended to
// `out`. Every importer adds its records through here.
void add_metric_record(const Json& base, const std::string& id, const std::string& where,
                       const std::string& key, double value, const char* name,
                       const char* statistic, const char* unit, ZeroValue zero,
                       std::vector<Json>& out, std::vector<std::string>& notes);

// A number of the file at `field` (a finite number, >= 0); InputError naming it otherwise.
double file_number(const Json& v, const std::string& field);
// A whole number of the file at `field`, from `lo`; InputError naming it otherwise.
int64_t file_count(const Json& v, const std::string& field, int64_t lo);

// Every record as parse_record reads it (the importer's output is checked like any user file).
std::vector<Record> checked(const std::vector<Json>& records, const std::string& where,
                            const Catalog& catalog);

// The line without its ANSI colour sequences (ESC [ parameters final-byte), which torchtitan's and
// nanotron's loggers print around fields.
std::string without_ansi(const std::string& line);

// `s` without its leading and trailing blanks (spaces, tabs, carriage returns).
std::string trimmed(const std::string& s);
// The fields "key: value | key: value | ..." of a log line after its header (Megatron-LM's and
// nanotron's lines), key trimmed, value as written; the key ends at the field's first colon, or
// its last with `last_colon` (Megatron's keys hold colons: "... (TFLOP/s/GPU)"). A field without
// a colon is an InputError at `where` naming `schema`.
std::vector<std::pair<std::string, std::string>> bar_fields(const std::string& text,
                                                            const std::string& where,
                                                            bool last_colon,
                                                            const std::string& schema);

// An iteration line's "N/ M |" (Megatron-LM) or "N / M |" (nanotron) at `pos`: N, M and the
// position of the '|'; nullopt when the text there is not that (another line that mentions
// iterations).
struct IterationHeader {
  int64_t iteration = 0, of = 0;
  size_t bar = 0;
};
std::optional<IterationHeader> iteration_header(const std::string& text, size_t pos);

// A training job's record base (model, hardware, stack, training workload, source) from the flags
// and the settings the log itself printed (each printed value beside a flag that disagrees is
// refused naming the flag). `log` names the log in messages ("a torchtitan log"); `*_name` say
// where the run sets each size ("parallelism.tensor_parallel_degree"). DP is --gpus / (TP x PP x
// CP) and must make the global batch a whole number of micro-batches.
struct TrainingJob {
  std::string log, framework, source;
  std::optional<int64_t> micro_batch, global_batch, seq_len, cp;  // printed by the log
  std::string tp_name, pp_name, micro_name, global_name, seq_name;
};
Json training_base(const ImportOptions& o, const TrainingJob& job, std::vector<std::string>& notes);

// The importers, one per format (import_vllm.cc ...): JSON records, notes appended.
std::vector<Json> import_vllm_serve(const std::string& text, const std::string& where,
                                    const ImportOptions& o, const Catalog& catalog,
                                    std::vector<std::string>& notes);
std::vector<Json> import_vllm_throughput(const std::string& text, const std::string& where,
                                         const ImportOptions& o, const Catalog& catalog,
                                         std::vector<std::string>& notes);
std::vector<Json> import_vllm_latency(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes);
std::vector<Json> import_llama_bench(const std::string& text, const std::string& where,
                                     const ImportOptions& o, const Catalog& catalog,
                                     std::vector<std::string>& notes);
std::vector<Json> import_guidellm(const std::string& text, const std::string& where,
                                  const ImportOptions& o, const Catalog& catalog,
                                  std::vector<std::string>& notes);
// genai-perf and aiperf (o.format): the profile export's metric objects.
std::vector<Json> import_profile_export(const std::string& text, const std::string& where,
                                        const ImportOptions& o, const Catalog& catalog,
                                        std::vector<std::string>& notes);
// Megatron-LM / NeMo training_log lines (import_megatron.cc).
std::vector<Json> import_megatron_log(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes);
// inference-perf's stage_<N>_lifecycle_metrics.json (import_inference_perf.cc).
std::vector<Json> import_inference_perf(const std::string& text, const std::string& where,
                                        const ImportOptions& o, const Catalog& catalog,
                                        std::vector<std::string>& notes);
// torchtitan's metrics lines (import_torchtitan.cc).
std::vector<Json> import_torchtitan_log(const std::string& text, const std::string& where,
                                        const ImportOptions& o, const Catalog& catalog,
                                        std::vector<std::string>& notes);
// nanotron's iteration lines (import_nanotron.cc).
std::vector<Json> import_nanotron_log(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes);
// llm-d-benchmark's Benchmark Report v0.2 (import_llmd.cc).
std::vector<Json> import_llmd_report(const std::string& text, const std::string& where,
                                     const ImportOptions& o, const Catalog& catalog,
                                     std::vector<std::string>& notes);
std::vector<Json> import_sglang_serve(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes);

}  // namespace memwall::measure::detail
