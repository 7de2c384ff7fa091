// llama.cpp's benchmark, read to its upstream schema:
//   llama-bench: `llama-bench -o json` (a JSON array of tests) or `-o jsonl` (one per line),
//     ggml-org/llama.cpp tools/llama-bench/llama-bench.cpp at commit
//     0104b151c56d54143e2e3554aabe9e2b2b8dbdba: test::get_fields() (build_commit ... n_prompt,
//     n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) typed by
//     test::get_field_type, then json_printer's samples_ns and samples_ts. A test is pp (n_prompt
//     tokens in batches of n_batch, ubatches of n_ubatch), tg (n_gen single-token decodes) or pg
//     (both), after n_depth tokens already in the context (untimed); avg_ts is the mean over the
//     repetitions of (n_prompt + n_gen) / time.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema =
    "tools/llama-bench/llama-bench.cpp at llama.cpp commit 0104b151c56d";

// The fields json_printer writes (get_fields, then the two sample lists).
const std::set<std::string>& known_fields() {
  static const std::set<std::string> f = {
      "build_commit", "build_number", "cpu_info", "gpu_info", "backends", "model_filename",
      "model_type", "model_size", "model_n_params", "n_batch", "n_ubatch", "n_threads",
      "cpu_mask", "cpu_strict", "poll", "type_k", "type_v", "n_gpu_layers", "n_cpu_moe",
      "split_mode", "main_gpu", "no_kv_offload", "flash_attn", "devices", "tensor_split",
      "tensor_buft_overrides", "load_mode", "embeddings", "no_op_offload", "no_host",
      "fit_target", "fit_min_ctx", "n_prompt", "n_gen", "n_depth", "test_time", "avg_ns",
      "stddev_ns", "avg_ts", "stddev_ts", "samples_ns", "samples_ts"};
  return f;
}

// The precision of a GGUF tensor type that memwall times exactly; nullopt for the quantised
// block formats (Q4_K, Q8_0 ...), whose memwall precision the user states.
std::optional<std::string> plain_type(const std::string& ggml_type) {
  if (ggml_type == "f16" || ggml_type == "F16") return "fp16";
  if (ggml_type == "bf16" || ggml_type == "BF16") return "bf16";
  if (ggml_type == "f32" || ggml_type == "F32") return "fp32";
  return std::nullopt;
}

int64_t count_at(const Json& run, const char* key, const std::string& where, int64_t lo) {
  return file_count(require_field(run, key, where), where + "." + key, lo);
}

void bench_test(const Json& run, const std::string& where, const ImportOptions& flags,
                const Catalog& catalog, std::vector<Json>& out, std::vector<std::string>& notes) {
  only_fields(run, where, known_fields(),
              fmt::format("a field of {} (another version's field: tell memwall which build "
                          "wrote it)",
                          kSchema));
  ImportOptions o = flags;
  if (o.engine && *o.engine != "llama.cpp")
    throw InputError("--engine", *o.engine, "llama.cpp (llama-bench times llama.cpp)");
  o.engine = "llama.cpp";

  // What changes what was timed in a way a record cannot state: refused by name.
  const int64_t n_prompt = count_at(run, "n_prompt", where, 0);
  const int64_t n_gen = count_at(run, "n_gen", where, 0);
  const int64_t n_depth = count_at(run, "n_depth", where, 0);
  if (n_depth > 0)
    throw InputError(where + ".n_depth", std::to_string(n_depth),
                     "0: the n_depth context tokens are filled before the timed part, and memwall's "
                     "static batch times its prompt");
  if ((n_prompt > 0) == (n_gen > 0))
    throw InputError(where + ".n_prompt / n_gen", fmt::format("{} / {}", n_prompt, n_gen),
                     "a pp test (n_gen 0) or a tg test (n_prompt 0); a pg test's one time over "
                     "both is not a metric memwall records");
  if (const Json* v = field_or_null(run, "no_kv_offload"); v && *v != false)
    throw InputError(where + ".no_kv_offload", v->dump(),
                     "false (the KV cache in host memory is not what the record describes)");
  if (const Json* v = field_or_null(run, "n_cpu_moe"); v && *v != 0)
    throw InputError(where + ".n_cpu_moe", v->dump(), "0 (MoE experts on the CPU: an offload run)");
  if (const Json* v = field_or_null(run, "embeddings"); v && *v != false)
    throw InputError(where + ".embeddings", v->dump(), "false (a generation benchmark)");

  // Precisions: GGUF's plain float types exactly; quantised types from the flags.
  const auto model_type = opt_string(run, "model_type", where);
  const std::string last_word =
      model_type ? model_type->substr(model_type->find_last_of(' ') + 1) : std::string();
  if (!o.weight_precision) {
    const auto plain = plain_type(last_word);
    if (!plain)
      throw InputError(fmt::format(
          "--weight-precision: required: {}.model_type '{}' is a GGUF type memwall does not map "
          "by itself: give the precision it should be timed at (e.g. int4 for Q4_K_M, int8 for "
          "Q8_0)",
          where, model_type.value_or("?")));
    o.weight_precision = plain;
  }
  for (const char* kv : {"type_k", "type_v"}) {
    const auto t = opt_string(run, kv, where);
    if (!t) continue;
    const auto plain = plain_type(*t);
    if (!o.kv_precision && !plain)
      throw InputError(fmt::format(
          "--kv-precision: required: {}.{} is '{}', a quantised KV type memwall does not map by "
          "itself",
          where, kv, *t));
    if (!o.kv_precision) o.kv_precision = plain;
  }
  // All layers on the accelerator: llama-bench's default (99) and what memwall's record times.
  const int64_t ngl = count_at(run, "n_gpu_layers", where, 0);
  if (o.model) {
    const ModelSpec* known = catalog.find_model(*o.model);
    if (!known) known = catalog.find_model_by_hf_repo(*o.model);
    const ModelSpec m = known ? *known : catalog.model(*o.model);
    if (ngl < m.layers)
      throw InputError(where + ".n_gpu_layers", std::to_string(ngl),
                       fmt::format("at least the model's {} layers (fewer ran part of the model "
                                   "on the CPU: an offload run)",
                                   m.layers));
  }
  // The physical batch the prompt is processed in.
  if (!o.max_num_batched_tokens) o.max_num_batched_tokens = count_at(run, "n_ubatch", where, 1);

  Json base = record_base(o, where, std::nullopt, "", "", catalog, notes);
  const auto gpu_info = opt_string(run, "gpu_info", where);
  const auto build = opt_string(run, "build_commit", where);
  base["source"] = fmt::format("llama-bench result {}{} ({})", where,
                               build ? ", build " + *build : std::string(), kSchema);
  const double avg_ts = file_number(require_field(run, "avg_ts", where), where + ".avg_ts");
  Json r = base;
  if (n_prompt > 0) {
    r["workload"] = {{"mode", "static_batch"}, {"batch", 1}, {"input_tokens", n_prompt},
                     {"output_tokens", 1}};
    add_metric_record(r, fmt::format("pp{}@{}", n_prompt, where), where, "avg_ts", avg_ts,
                      "prompt_throughput", "value", "tokens/s", ZeroValue::refused, out, notes);
  } else {
    // n_gen single-token decodes from an empty context: a one-token prompt and n_gen - 1 more
    // steps are the same n_gen steps.
    r["workload"] = {{"mode", "static_batch"}, {"batch", 1}, {"input_tokens", 1},
                     {"output_tokens", n_gen}};
    add_metric_record(r, fmt::format("tg{}@{}", n_gen, where), where, "avg_ts", avg_ts,
                      "output_throughput", "value", "tokens/s", ZeroValue::refused, out, notes);
  }
  std::vector<std::string> listed;
  for (const char* k : {"gpu_info", "backends", "flash_attn", "split_mode", "n_threads",
                        "stddev_ts", "samples_ts"})
    if (run.contains(k)) listed.push_back(k);
  notes.push_back(fmt::format("{}: not imported: {}{}", where, fmt::join(listed, ", "),
                              gpu_info ? fmt::format(" (gpu_info '{}': --gpu is what memwall times)",
                                                     *gpu_info)
                                       : std::string()));
}

}  // namespace

std::vector<Json> import_llama_bench(const std::string& text, const std::string& where,
                                     const ImportOptions& o, const Catalog& catalog,
                                     std::vector<std::string>& notes) {
  std::vector<Json> out;
  // -o json: one array of tests; -o jsonl: one test per line.
  std::vector<std::pair<Json, std::string>> tests;
  Json doc;
  bool array = false;
  try {
    doc = parse_document(text, where);
    array = doc.is_array();
  } catch (const InputError&) {
  }
  if (array) {
    for (size_t i = 0; i < doc.size(); ++i) {
      const std::string w = fmt::format("{}[{}]", where, i);
      if (!doc[i].is_object()) throw InputError(w, doc[i].dump().substr(0, 80), "a test object");
      tests.emplace_back(doc[i], w);
    }
  } else {
    tests = json_lines(text, where);
  }
  if (tests.empty()) throw InputError(where, "[]", "at least one llama-bench test");
  for (const auto& [t, w] : tests) bench_test(t, w, o, catalog, out, notes);
  return out;
}

}  // namespace memwall::measure::detail
