// GuideLLM's report, read to its upstream schema:
//   guidellm: `guidellm benchmark ... --outputs benchmarks.json` (GuideLLM 0.7), the report
//     (GenerativeBenchmarksReport) of schema version 2, vllm-project/guidellm at commit
//     ee7a77457ba668b4b5ccb40f110518829893b36a: src/guidellm/benchmark/schemas/report.py
//     (metadata, config, benchmarks), benchmark.py (GenerativeBenchmark: type_, config,
//     scheduler_state, scheduler_metrics, metrics, requests and the computed start_time, end_time,
//     duration, warmup_duration, cooldown_duration), base.py (BenchmarkConfig: strategy, backend
//     ...), metrics.py (GenerativeMetrics and its compile()), src/guidellm/schemas/statistics.py
//     (StatusDistributionSummary: successful, errored, incomplete and total DistributionSummary,
//     each mean, median, ..., count, percentiles p001 ... p999), src/guidellm/scheduler/
//     strategies.py (synchronous; concurrent: streams; throughput; constant and poisson: rate;
//     trace; each max_concurrency, rampup_duration) and src/guidellm/backends/openai/http.py
//     (backend.model).
//   What each metric is (src/guidellm/schemas/request_stats.py, metrics.py compile()):
//     time_to_first_token_ms: first token - request start, one value per request: ttft.
//     request_latency: request end - start in seconds, one per request: e2e_latency.
//     inter_token_latency_ms: (last - first token) / (output tokens - 1) of each request, weighted
//       by its output tokens - 1: the mean is the mean of every gap (itl); the percentiles are
//       token-weighted percentiles of per-request means, neither itl's nor tpot's.
//     time_per_output_token_ms: (last token - request start) / output tokens, the first token's
//       wait included: not memwall's tpot.
//     requests_per_second, output_tokens_per_second, tokens_per_second: rates over time weighted by
//       each interval's duration (rate_distribution_from_timings), so the mean is the count over
//       the measured window: request, output and total throughput; their percentiles are of
//       instantaneous rates.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema = "the benchmarks.json of guidellm commit ee7a77457ba6";

// The fields GenerativeMetrics writes (metrics.py).
const std::set<std::string>& metric_fields() {
  static const std::set<std::string> f = {"request_totals",
                                          "requests_per_second",
                                          "request_concurrency",
                                          "request_latency",
                                          "request_streaming_iterations_count",
                                          "prompt_token_count",
                                          "output_token_count",
                                          "total_token_count",
                                          "time_to_first_token_ms",
                                          "time_to_first_output_token_ms",
                                          "time_per_output_token_ms",
                                          "inter_token_latency_ms",
                                          "prompt_tokens_per_second",
                                          "output_tokens_per_second",
                                          "tokens_per_second",
                                          "output_tokens_per_iteration",
                                          "iter_tokens_per_iteration",
                                          "text",
                                          "image",
                                          "video",
                                          "audio",
                                          "tool_call"};
  return f;
}

// What a field outside the schema is told.
const std::string& another_version() {
  static const std::string s = fmt::format(
      "a field of {} (another version's field: tell memwall which guidellm version wrote it)",
      kSchema);
  return s;
}

// The successful requests' summary of the StatusDistributionSummary `key` of `metrics`.
const Json& successful(const Json& metrics, const std::string& key, const std::string& where) {
  const std::string w = where + "." + key;
  const Json& s = require_field(require_field(metrics, key, where), "successful", w);
  if (!s.is_object()) throw InputError(w + ".successful", s.dump().substr(0, 80), "an object");
  return s;
}

// The lengths of the successful requests from their token-count summary.
Json lengths(const Json& metrics, const std::string& key, const std::string& where,
             const std::optional<std::string>& flag, const char* option,
             std::vector<std::string>& notes) {
  const Json& s = successful(metrics, key, where);
  const std::string w = where + "." + key + ".successful";
  LengthStats stats;
  stats.requests = size_t(file_count(require_field(s, "count", w), w + ".count", 0));
  if (stats.requests == 0)
    throw InputError(w + ".count", "0",
                     "the token counts of at least one successful request (guidellm writes 0 "
                     "when the server reported no usage)");
  stats.min = file_count(require_field(s, "min", w), w + ".min", 0);
  stats.max = file_count(require_field(s, "max", w), w + ".max", 0);
  stats.mean = file_number(require_field(s, "mean", w), w + ".mean");
  stats.std_dev = file_number(require_field(s, "std_dev", w), w + ".std_dev");
  return lengths_from_stats(stats, w, flag, option, notes);
}

// The load of a benchmark.
struct Load {
  Json workload;
  std::string label;      // for the ids
  bool latencies = true;  // whether its latencies are those of a load a record states
};

// The most requests in flight at once in the measured window (request_concurrency, all of them).
double peak_in_flight(const Json& metrics, const std::string& where) {
  const std::string w = where + ".request_concurrency";
  const Json& c = require_field(metrics, "request_concurrency", where);
  const Json& total = require_field(c, "total", w);
  return file_number(require_field(total, "max", w + ".total"), w + ".total.max");
}

// The load of a benchmark's scheduling strategy (strategies.py). The scheduler writes the
// concurrency limit it resolved into the strategy (WorkerProcessGroup.create_processes calls
// init_processes_timings, which sets max_concurrency: the user's, the backend's or
// settings.max_concurrency 10240), so max_concurrency is a limit that may never have been reached:
// the measured peak of requests in flight says whether it was.
Load load_of(const Json& strategy, const std::string& where, const Json& metrics,
             const std::string& metrics_where, std::vector<std::string>& notes) {
  const auto type = opt_string(strategy, "type_", where);
  if (!type)
    throw InputError(
        fmt::format("{}: required field 'type_' is missing ({} writes it)", where, kSchema));
  if (const Json* r = field_or_null(strategy, "rampup_duration");
      r && file_number(*r, where + ".rampup_duration") > 0)
    throw InputError(where + ".rampup_duration", r->dump(),
                     "0: the load ramped up during the run, and memwall's records have one load");
  const Json* cap_field = field_or_null(strategy, "max_concurrency");
  // 0: no limit written (a limit is at least 1).
  const int64_t cap = cap_field ? file_count(*cap_field, where + ".max_concurrency", 1) : 0;
  const auto reached = [&] {
    return cap > 0 && peak_in_flight(metrics, metrics_where) >= double(cap);
  };
  if (*type == "synchronous")  // one request at a time, whatever the limit
    return {{{"mode", "concurrency"}, {"concurrency", 1}}, "synchronous"};
  if (*type == "concurrent") {
    const int64_t streams =
        file_count(require_field(strategy, "streams", where), where + ".streams", 1);
    if (cap > 0 && cap < streams)
      throw InputError(where + ".max_concurrency", cap_field->dump(),
                       fmt::format("null or at least streams {}", streams));
    return {{{"mode", "concurrency"}, {"concurrency", streams}},
            fmt::format("concurrent{}", streams)};
  }
  if (*type == "throughput") {
    // Every request as soon as the limit allows: at the limit, that many clients; below it, all
    // the client could send, whose latencies depend on how deep its queue ran.
    if (reached())
      return {{{"mode", "concurrency"}, {"concurrency", cap}}, fmt::format("throughput{}", cap)};
    notes.push_back(fmt::format(
        "{}: a throughput benchmark that never reached its concurrency limit: recorded as offline "
        "(the engine's steady state); its latencies depend on the client's queue depth and are "
        "not imported",
        where));
    return {{{"mode", "offline"}}, "throughput", false};
  }
  if (*type == "poisson") {
    const double rate = file_number(require_field(strategy, "rate", where), where + ".rate");
    if (!(rate > 0)) throw InputError(where + ".rate", "0", "a rate above 0 requests/s");
    if (reached())
      throw InputError(
          where + ".max_concurrency", cap_field->dump(),
          fmt::format("a limit the run never reached (its peak, {}.request_concurrency.total.max, "
                      "reached it: a Poisson rate capped by a concurrency limit is neither a rate "
                      "nor a concurrency)",
                      metrics_where));
    return {{{"mode", "request_rate"}, {"request_rate", rate}}, fmt::format("poisson{}", rate)};
  }
  if (*type == "constant")
    throw InputError(where + ".type_", *type,
                     "synchronous, concurrent, throughput or poisson: constant sends at evenly "
                     "spaced times and memwall's request_rate records are Poisson (run "
                     "guidellm with --rate-type poisson, or a sweep's rates as poisson)");
  throw InputError(where + ".type_", *type,
                   "synchronous, concurrent, throughput or poisson (a trace replay's arrivals "
                   "are the trace's, not a load memwall's records state)");
}

void guidellm_benchmark(const Json& b, const std::string& where, const ImportOptions& o,
                        const Catalog& catalog, std::vector<Json>& out,
                        std::vector<std::string>& notes) {
  only_fields(b, where,
              {"type_", "config", "scheduler_state", "scheduler_metrics", "metrics", "requests",
               "start_time", "end_time", "duration", "warmup_duration", "cooldown_duration"},
              another_version());
  if (const auto type = opt_string(b, "type_", where); type != "generative_benchmark")
    throw InputError(where + ".type_", type.value_or("(missing)"), "generative_benchmark");
  const Json& config = require_field(b, "config", where);
  const std::string cw = where + ".config";
  const Json& metrics = require_field(b, "metrics", where);
  const std::string mw = where + ".metrics";
  only_fields(metrics, mw, metric_fields(), another_version());
  Load load = load_of(require_field(config, "strategy", cw), cw + ".strategy", metrics, mw, notes);
  Json& workload = load.workload;
  // Images, video and audio in the requests: lengths memwall cannot state.
  for (const char* domain : {"image", "video", "audio"}) {
    const Json* d = field_or_null(metrics, domain);
    if (!d || !d->is_object()) continue;
    for (const auto& [k, v] : d->items()) {
      const Json* s = v.is_object() ? field_or_null(v, "successful") : nullptr;
      const Json* sum = s && s->is_object() ? field_or_null(*s, "total_sum") : nullptr;
      if (sum && sum->is_number() && sum->get<double>() != 0)
        throw InputError(
            fmt::format("{}.{}.{}.successful.total_sum", mw, domain, k), sum->dump(),
            fmt::format("0 (text requests: {} inputs have no length memwall states)", domain));
    }
  }

  // Requests: only the successful ones' statistics are imported.
  const Json& totals = require_field(metrics, "request_totals", mw);
  const std::string tw = mw + ".request_totals";
  const int64_t ok = file_count(require_field(totals, "successful", tw), tw + ".successful", 0);
  if (ok == 0) throw InputError(tw + ".successful", "0", "at least one successful request");
  // An offline record's `requests` would be a burst simulated to its last completion; guidellm
  // measures a window after the warm-up, the engine's steady state.
  if (workload.at("mode") != "offline") workload["requests"] = ok;
  int64_t other = 0;
  for (const char* k : {"errored", "incomplete"})
    if (const Json* v = field_or_null(totals, k)) other += file_count(*v, tw + "." + k, 0);
  if (other > 0)
    notes.push_back(
        fmt::format("{}: {} of {} requests errored or were incomplete; the records are "
                    "of the {} successful",
                    where, other, other + ok, ok));
  workload["input_tokens"] = lengths(metrics, "prompt_token_count", mw, o.input, "--input", notes);
  workload["output_tokens"] =
      lengths(metrics, "output_token_count", mw, o.output, "--output", notes);

  const Json* backend = field_or_null(config, "backend");
  const auto kind = backend ? opt_string(*backend, "kind", cw + ".backend") : std::nullopt;
  Json base = record_base(
      o, where, backend ? opt_string(*backend, "model", cw + ".backend") : std::nullopt,
      "config.backend.model",
      fmt::format("{} does not name the engine that served (config.backend.kind '{}' is the "
                  "client): give --engine vllm, sglang, trtllm ...",
                  where, kind.value_or("?")),
      catalog, notes);
  base["workload"] = workload;
  base["source"] = fmt::format("guidellm report {} ({})", where, kSchema);
  const std::string id = fmt::format("{}@{}", load.label, where);

  // A distribution's statistic: mean and median, or one of its percentiles.
  const auto stat_of = [&](const Json& s, const std::string& w, const char* stat) {
    const std::string name = stat;
    if (name == "mean" || name == "median")
      return file_number(require_field(s, name, w), w + "." + name);
    const Json& p = require_field(s, "percentiles", w);
    return file_number(require_field(p, name, w + ".percentiles"), w + ".percentiles." + name);
  };
  for (const auto& [key, name, unit] : {std::tuple{"time_to_first_token_ms", "ttft", "ms"},
                                        std::tuple{"request_latency", "e2e_latency", "s"}}) {
    if (!load.latencies) break;
    const Json& s = successful(metrics, key, mw);
    const std::string w = mw + "." + key + ".successful";
    for (const char* stat : {"mean", "median", "p90", "p95", "p99"})
      add_metric_record(base, fmt::format("{}/{}.{}", id, key, stat), w, stat, stat_of(s, w, stat),
                        name, stat, unit, ZeroValue::noted, out, notes);
  }
  if (load.latencies) {
    const std::string w = mw + ".inter_token_latency_ms.successful";
    add_metric_record(base, id + "/inter_token_latency_ms.mean", w, "mean",
                      stat_of(successful(metrics, "inter_token_latency_ms", mw), w, "mean"), "itl",
                      "mean", "ms", ZeroValue::noted, out, notes);
  }
  for (const auto& [key, name, unit] :
       {std::tuple{"requests_per_second", "request_throughput", "requests/s"},
        std::tuple{"output_tokens_per_second", "output_throughput", "tokens/s"},
        std::tuple{"tokens_per_second", "total_throughput", "tokens/s"}}) {
    const std::string w = mw + "." + key + ".successful";
    add_metric_record(base, fmt::format("{}/{}.mean", id, key), w, "mean",
                      stat_of(successful(metrics, key, mw), w, "mean"), name, "value", unit,
                      ZeroValue::refused, out, notes);
  }
}

}  // namespace

std::vector<Json> import_guidellm(const std::string& text, const std::string& where,
                                  const ImportOptions& o, const Catalog& catalog,
                                  std::vector<std::string>& notes) {
  const Json report = parse_document(text, where);
  only_fields(report, where, {"metadata", "config", "benchmarks"}, another_version());
  const Json* meta_field = field_or_null(report, "metadata");
  if (!meta_field)
    throw InputError(fmt::format(
        "{}: required field 'metadata' is missing ({} writes metadata.version 2; a report "
        "without it is from guidellm before 0.5, whose fields differ: tell memwall which "
        "version wrote it)",
        where, kSchema));
  const Json& meta = *meta_field;
  const Json& version = require_field(meta, "version", where + ".metadata");
  if (version != 2)
    throw InputError(
        where + ".metadata.version", version.dump().substr(0, 80),
        fmt::format("2 (the report schema of {}, guidellm 0.7; version 1, of guidellm 0.5 and "
                    "0.6, has other fields)",
                    kSchema));
  const Json& benchmarks = require_field(report, "benchmarks", where);
  if (!benchmarks.is_array() || benchmarks.empty())
    throw InputError(where + ".benchmarks", benchmarks.dump().substr(0, 80),
                     "a list of at least one benchmark");
  std::vector<Json> out;
  for (size_t i = 0; i < benchmarks.size(); ++i)
    guidellm_benchmark(benchmarks[i], fmt::format("{}.benchmarks[{}]", where, i), o, catalog, out,
                       notes);
  notes.push_back(fmt::format(
      "{}: not imported (the successful requests' statistics only; not a memwall metric, or a "
      "statistic outside mean, median, p90, p95, p99): inter_token_latency_ms percentiles "
      "(token-weighted percentiles of each request's mean gap), time_per_output_token_ms "
      "(includes the first token's wait: not memwall's tpot), the rates' percentiles "
      "(instantaneous rates), time_to_first_output_token_ms, prompt_tokens_per_second, "
      "request_concurrency, the per-iteration and text/tool_call statistics, p001 ... p75 and "
      "p999, the requests lists and scheduler state",
      where));
  return out;
}

}  // namespace memwall::measure::detail
