// The vLLM benchmark files, read to their upstream schemas:
//   vllm-serve: `vllm bench serve --save-result` (and benchmarks/benchmark_serving.py, which
//     calls it), vllm-project/vllm vllm/benchmarks/serve.py at commit
//     009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1: main_async's "Save config and results to json"
//     (date, endpoint_type, backend, label, model_id, tokenizer_id, num_prompts, --metadata
//     KEY=VALUE strings, request_rate or "inf", burstiness, max_concurrency, ramp_up_*) merged
//     with benchmark()'s `result` dict and process_one_metric's mean_/median_/std_/pNN_X_ms;
//     --append-result writes one such object per line.
//   vllm-throughput: `vllm bench throughput --output-json` (benchmarks/benchmark_throughput.py),
//     vllm/benchmarks/throughput.py at commit 1a91bc2dc0dd379cb803bfcadd8a312e0da5d45f, main():
//     elapsed_time, num_requests, total_num_tokens, requests_per_second, tokens_per_second.
//   vllm-latency: `vllm bench latency --output-json` (benchmarks/benchmark_latency.py),
//     vllm/benchmarks/latency.py at commit 7142f6aec85470b9c74db675652897a14d4c644f, main():
//     avg_latency, latencies, percentiles {"10", "25", "50", "75", "90", "99"} in seconds.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kServeSchema = "vllm/benchmarks/serve.py at vllm commit 009e6d4a1cd6";

// The per-request latency metrics of serve.py's process_one_metric, and memwall's name for each
// (empty: not a memwall metric).
const std::vector<std::pair<std::string, std::string>>& serve_metrics() {
  static const std::vector<std::pair<std::string, std::string>> m = {
      {"ttft", "ttft"},        {"tpot", "tpot"},          {"itl", "itl"},
      {"e2el", "e2e_latency"}, {"client_queue_time", ""}, {"e2el_including_client_queue", ""}};
  return m;
}

// "p99_tpot_ms" -> {"p99", "tpot"}; empty when the key is no statistic key.
std::optional<std::pair<std::string, std::string>> statistic_key(const std::string& key) {
  if (key.size() < 4 || key.compare(key.size() - 3, 3, "_ms") != 0) return std::nullopt;
  const std::string body = key.substr(0, key.size() - 3);
  const size_t us = body.find('_');
  if (us == std::string::npos) return std::nullopt;
  const std::string stat = body.substr(0, us), metric = body.substr(us + 1);
  const bool stat_ok = stat == "mean" || stat == "median" || stat == "std" ||
                       (stat.size() > 1 && stat[0] == 'p' &&
                        stat.find_first_not_of("0123456789.", 1) == std::string::npos);
  bool metric_ok = false;
  for (const auto& [k, v] : serve_metrics()) metric_ok = metric_ok || k == metric;
  if (!stat_ok || !metric_ok) return std::nullopt;
  return std::pair{stat, metric};
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

void serve_run(const Json& run, const std::string& where, const ImportOptions& o,
               const Catalog& catalog, std::vector<Json>& out, std::vector<std::string>& notes) {
  // Fields that change what was measured in a way the records cannot describe: refused.
  for (const auto& [k, v] : run.items()) {
    if (v.is_null()) continue;
    if (starts_with(k, "ramp_up_") || k == "rps_change_events")
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       "no ramp-up: the request rate changed during the run, and memwall's records "
                       "have one rate");
    if (starts_with(k, "spec_decode_"))
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       "no speculative decoding: memwall does not model draft tokens");
    if (starts_with(k, "diffusion_"))
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       "no diffusion decoding: memwall models autoregressive decoding");
    if (starts_with(k, "probe_"))
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       "no probe requests: they ran beside the workload and the records describe "
                       "one workload");
    if (k == "total_input_sequences" || k == "input_sequence_throughput")
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       "a generation benchmark (this is a pooling / embedding run)");
    if (k == "rtfx" && file_number(v, where + ".rtfx") > 0)
      throw InputError(where + ".rtfx", v.dump(), "0 (a text benchmark; this is a speech run)");
  }

  // The load.
  const int64_t prompts =
      file_count(require_field(run, "num_prompts", where), where + ".num_prompts", 1);
  const Json& rate = require_field(run, "request_rate", where);
  if (!run.contains("max_concurrency"))
    throw InputError(
        fmt::format("{}: required field 'max_concurrency' is missing ({} writes it, null "
                    "when not set)",
                    where, kServeSchema));
  const Json* conc = field_or_null(run, "max_concurrency");
  const bool rate_inf = rate.is_string() && rate.get<std::string>() == "inf";
  if (!rate_inf && !(rate.is_number() && file_number(rate, where + ".request_rate") > 0))
    throw InputError(where + ".request_rate", rate.dump().substr(0, 80),
                     "a number above 0 or \"inf\"");
  Json workload = Json::object();
  if (rate_inf && !conc) {
    workload = {{"mode", "offline"}, {"requests", prompts}};
  } else if (rate_inf) {
    workload = {{"mode", "concurrency"},
                {"concurrency", file_count(*conc, where + ".max_concurrency", 1)},
                {"requests", prompts}};
  } else if (conc) {
    throw InputError(fmt::format(
        "{}: request_rate {} with max_concurrency {}: arrivals at a rate capped by a concurrency "
        "limit; memwall's records have either a rate (Poisson) or a concurrency, not both",
        where, rate.dump(), conc->dump()));
  } else {
    const Json& b = require_field(run, "burstiness", where);
    if (file_number(b, where + ".burstiness") != 1)
      throw InputError(where + ".burstiness", b.dump(),
                       "1 (Poisson arrivals); other values are gamma arrivals, and memwall's "
                       "request_rate records are Poisson");
    workload = {
        {"mode", "request_rate"}, {"request_rate", rate.get<double>()}, {"requests", prompts}};
  }
  // The route the client used (serve.py --backend, saved as "backend"): its request function in
  // vllm/benchmarks/lib/endpoint_request_func.py at commit 02cfb534df5674737558730b10f23d1b7aef9b7c,
  // ASYNC_REQUEST_FUNCS: "vllm" and "openai" post to /v1/completions, "openai-chat" to
  // /v1/chat/completions (the chat template runs in the server); the audio, embedding, pooling
  // and rerank backends are no generation benchmark. Another name: the endpoint stays unknown.
  {
    const Json* b = field_or_null(run, "backend");
    if (!b) b = field_or_null(run, "endpoint_type");
    if (b && !b->is_string()) throw InputError(where + ".backend", b->dump().substr(0, 80), "a backend name");
    const std::string name = b ? b->get<std::string>() : std::string();
    if (name == "vllm" || name == "openai") {
      workload["endpoint"] = "completions";
    } else if (name == "openai-chat") {
      workload["endpoint"] = "chat";
    } else if (name == "openai-audio" || starts_with(name, "openai-embeddings") ||
               starts_with(name, "infinity-") || name == "vllm-pooling" || name == "vllm-rerank") {
      throw InputError(where + ".backend", name,
                       "a text-generation backend (vllm, openai, openai-chat); this one is an "
                       "audio, embedding, pooling or rerank run");
    } else {
      notes.push_back(fmt::format(
          "{}: backend '{}' is not one whose route memwall knows (vllm, openai: completions; "
          "openai-chat: chat): the endpoint is left unknown, and no server front-end cost is "
          "applied to a burst",
          where, b ? name : std::string("(none)")));
    }
  }
  if (rate_inf && run.contains("burstiness") && run.at("burstiness") != 1)
    notes.push_back(fmt::format("{}: burstiness {} has no effect at request_rate inf (serve.py)",
                                where, run.at("burstiness").dump()));

  // Completed and failed requests: the rates count completed ones.
  const int64_t completed =
      file_count(require_field(run, "completed", where), where + ".completed", 0);
  const int64_t failed =
      field_or_null(run, "failed") ? file_count(run.at("failed"), where + ".failed", 0) : 0;
  if (completed == 0) throw InputError(where + ".completed", "0", "at least one completed request");
  if (failed > 0)
    notes.push_back(fmt::format("{}: {} of {} requests failed; the records are of the {} completed",
                                where, failed, failed + completed, completed));

  // Lengths: each request's when --save-detailed kept them, else from the flags.
  auto lengths = [&](const char* list_key, const char* total_key,
                     const std::optional<std::string>& flag, const char* option, bool skip_zeros) {
    if (const Json* l = field_or_null(run, list_key))
      return lengths_from_list(*l, where + "." + list_key, flag, option, skip_zeros, notes);
    std::string mean = "no total";
    std::optional<double> file_mean;
    if (const Json* t = field_or_null(run, total_key)) {
      file_mean = file_number(*t, where + "." + total_key) / double(completed);
      mean = fmt::format("{} = {} over {} completed requests, mean {:.6g}", total_key, t->dump(),
                         completed, *file_mean);
    }
    Json l = lengths_from_flag(flag, option,
                               fmt::format("{} holds no {} (run with --save-detailed to keep each "
                                           "request's), only a total ({}): give the lengths the "
                                           "run used: {} N, uniform:LO,HI or lognormal:MEAN,CV",
                                           where, list_key, mean, option));
    const double stated = l.is_number() ? l.get<double>() : l.at("mean").get<double>();
    if (file_mean && *file_mean != stated)
      notes.push_back(fmt::format("{}: {} {} but the file's {}: recorded as {} says", where, option,
                                  *flag, mean, option));
    return l;
  };
  workload["input_tokens"] = lengths("input_lens", "total_input_tokens", o.input, "--input", false);
  workload["output_tokens"] =
      lengths("output_lens", "total_output_tokens", o.output, "--output", failed > 0);

  const auto backend = opt_string(run, "backend", where);
  const auto label = opt_string(run, "label", where);
  const auto date = opt_string(run, "date", where);
  Json base = record_base(
      o, where, opt_string(run, "model_id", where), "model_id",
      fmt::format("{} does not name the engine that served (backend '{}' is the client's endpoint "
                  "type): give --engine vllm, sglang, trtllm ...",
                  where, backend.value_or("?")),
      catalog, notes);
  base["workload"] = workload;
  const std::string id = fmt::format("{}@{}", label.value_or(backend.value_or("vllm-bench-serve")),
                                     date.value_or(where));
  base["source"] = fmt::format("vllm bench serve result {}{} ({})", where,
                               date ? ", date " + *date : std::string(), kServeSchema);

  std::set<std::string> used = {"num_prompts", "request_rate", "max_concurrency", "burstiness",
                                "completed",   "failed",       "input_lens",      "output_lens",
                                "model_id",    "backend",      "endpoint_type",   "label",
                                "date"};
  auto add = [&](const std::string& key, const char* name, const char* statistic,
                 const char* unit) {
    const Json* v = field_or_null(run, key);
    if (!v) return;
    used.insert(key);
    add_metric_record(base, id + "/" + key, where, key, file_number(*v, where + "." + key), name,
                      statistic, unit, ZeroValue::noted, out, notes);
  };
  for (const auto& [key, name] : serve_metrics()) {
    if (name.empty()) continue;
    for (const char* stat : {"mean", "median", "p90", "p95", "p99"})
      add(fmt::format("{}_{}_ms", stat, key), name.c_str(), stat, "ms");
  }
  add("output_throughput", "output_throughput", "value", "tokens/s");
  add("total_token_throughput", "total_throughput", "value", "tokens/s");
  add("request_throughput", "request_throughput", "value", "requests/s");

  // Everything else: listed, never dropped silently; a non-string field of no known meaning is
  // refused (metadata is KEY=VALUE text).
  static const std::set<std::string> kResultFields = {"tokenizer_id",
                                                      "duration",
                                                      "total_input_tokens",
                                                      "total_output_tokens",
                                                      "request_goodput",
                                                      "max_output_tokens_per_s",
                                                      "max_concurrent_requests",
                                                      "rtfx",
                                                      "ttfts",
                                                      "itls",
                                                      "latencies",
                                                      "start_times",
                                                      "queue_times",
                                                      "generated_texts",
                                                      "errors"};
  std::vector<std::string> not_imported, metadata;
  for (const auto& [k, v] : run.items()) {
    if (used.count(k)) continue;
    if (kResultFields.count(k) || statistic_key(k))
      not_imported.push_back(k);
    else if (v.is_string())
      metadata.push_back(k + "=" + v.get<std::string>());
    else
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       fmt::format("a field of {} or --metadata KEY=VALUE text", kServeSchema));
  }
  if (!not_imported.empty())
    notes.push_back(
        fmt::format("{}: not imported (not a memwall metric, a per-request list, or a "
                    "statistic outside mean, median, p90, p95, p99): {}",
                    where, fmt::join(not_imported, ", ")));
  if (!metadata.empty())
    notes.push_back(
        fmt::format("{}: metadata not imported (free text; give what it says as flags, "
                    "e.g. --tp, --engine-version): {}",
                    where, fmt::join(metadata, ", ")));
}

// A run whose file holds no model, lengths or engine: the base of its records, from the flags.
Json offline_base(const std::string& where, const ImportOptions& o, const Catalog& catalog,
                  const char* what, std::vector<std::string>& notes) {
  return record_base(
      o, where, std::nullopt, "",
      fmt::format("{} does not name the engine ({} records only timings)", where, what), catalog,
      notes);
}

}  // namespace

std::vector<Json> import_vllm_serve(const std::string& text, const std::string& where,
                                    const ImportOptions& o, const Catalog& catalog,
                                    std::vector<std::string>& notes) {
  std::vector<Json> out;
  for (const auto& [run, w] : json_lines(text, where)) serve_run(run, w, o, catalog, out, notes);
  return out;
}

std::vector<Json> import_vllm_throughput(const std::string& text, const std::string& where,
                                         const ImportOptions& o, const Catalog& catalog,
                                         std::vector<std::string>& notes) {
  constexpr const char* kSchema = "vllm/benchmarks/throughput.py at vllm commit 1a91bc2dc0dd";
  const Json run = parse_document(text, where);
  if (!run.is_object())
    throw InputError(where, run.dump().substr(0, 80), "a JSON object of results");
  only_fields(run, where,
              {"elapsed_time", "num_requests", "total_num_tokens", "requests_per_second",
               "tokens_per_second"},
              fmt::format("a field of {}", kSchema));
  const int64_t requests =
      file_count(require_field(run, "num_requests", where), where + ".num_requests", 1);
  const double elapsed =
      file_number(require_field(run, "elapsed_time", where), where + ".elapsed_time");
  const double tokens =
      file_number(require_field(run, "total_num_tokens", where), where + ".total_num_tokens");
  Json base = offline_base(where, o, catalog, "vllm bench throughput", notes);
  // LLM.generate of every request at once: an offline run of num_requests requests, in-process
  // (no HTTP server, so no front end: endpoint none).
  const std::string why = fmt::format(
      "{} holds only total_num_tokens {} (prompt + output over {} requests): give the run's "
      "--input-len and --output-len (or the dataset's lengths)",
      where, tokens, requests);
  base["workload"] = {{"mode", "offline"},
                      {"requests", requests},
                      {"endpoint", "none"},
                      {"input_tokens", lengths_from_flag(o.input, "--input", why)},
                      {"output_tokens", lengths_from_flag(o.output, "--output", why)}};
  base["source"] = fmt::format("vllm bench throughput --output-json {} ({})", where, kSchema);
  notes.push_back(
      fmt::format("{}: not imported: elapsed_time {} s, total_num_tokens {} (the rates "
                  "are their quotients); the file does not record --n (sequences per "
                  "prompt): the records assume 1",
                  where, elapsed, tokens));
  std::vector<Json> out;
  for (const auto& [key, name, unit] :
       {std::tuple{"tokens_per_second", "total_throughput", "tokens/s"},
        std::tuple{"requests_per_second", "request_throughput", "requests/s"}}) {
    add_metric_record(base, fmt::format("{}/{}", where, key), where, key,
                      file_number(require_field(run, key, where), where + "." + key), name, "value",
                      unit, ZeroValue::refused, out, notes);
  }
  return out;
}

std::vector<Json> import_vllm_latency(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes) {
  constexpr const char* kSchema = "vllm/benchmarks/latency.py at vllm commit 7142f6aec854";
  const Json run = parse_document(text, where);
  if (!run.is_object())
    throw InputError(where, run.dump().substr(0, 80), "a JSON object of results");
  only_fields(run, where, {"avg_latency", "latencies", "percentiles"},
              fmt::format("a field of {}", kSchema));
  if (!o.batch)
    throw InputError(
        fmt::format("--batch: required: {} does not record the run's --batch-size "
                    "(sequences generated together)",
                    where));
  Json base = offline_base(where, o, catalog, "vllm bench latency", notes);
  // One batch of --batch-size prompts of --input-len tokens, --output-len tokens each with
  // ignore_eos (latency.py main): a static batch of fixed lengths.
  const std::string why = fmt::format(
      "{} does not record the run's --input-len and --output-len "
      "(latency.py defaults 32 and 128)",
      where);
  base["workload"] = {{"mode", "static_batch"},
                      {"batch", *o.batch},
                      {"input_tokens", lengths_from_flag(o.input, "--input", why)},
                      {"output_tokens", lengths_from_flag(o.output, "--output", why)}};
  base["source"] = fmt::format("vllm bench latency --output-json {} ({})", where, kSchema);
  std::vector<Json> out;
  auto add = [&](const std::string& key, double v, const char* statistic) {
    add_metric_record(base, fmt::format("{}/{}", where, key), where, key, v, "e2e_latency",
                      statistic, "s", ZeroValue::refused, out, notes);
  };
  add("avg_latency", file_number(require_field(run, "avg_latency", where), where + ".avg_latency"),
      "mean");
  std::vector<std::string> not_imported = {"latencies (each iteration's)"};
  if (const Json* p = field_or_null(run, "percentiles")) {
    if (!p->is_object())
      throw InputError(where + ".percentiles", p->dump().substr(0, 80), "an object");
    for (const auto& [k, v] : p->items()) {
      const std::string field = where + ".percentiles." + k;
      const char* stat = k == "50"   ? "median"
                         : k == "90" ? "p90"
                         : k == "95" ? "p95"
                         : k == "99" ? "p99"
                                     : nullptr;
      if (stat)
        add("percentiles." + k, file_number(v, field), stat);
      else
        not_imported.push_back(fmt::format("percentiles.{} ({} s)", k, file_number(v, field)));
    }
  }
  notes.push_back(
      fmt::format("{}: not imported: {}; the file does not record --n (sequences per "
                  "prompt): the records assume 1",
                  where, fmt::join(not_imported, ", ")));
  return out;
}

}  // namespace memwall::measure::detail
