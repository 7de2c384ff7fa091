// inference-perf's per-stage report, read to its upstream schema:
//   inference-perf: `inference-perf --config_file config.yml` writes, per load stage,
//     stage_<N>_lifecycle_metrics.json (and summary_lifecycle_metrics.json over every stage),
//     kubernetes-sigs/inference-perf at commit 7de5ef2ed6f7934e0ecbc8297e593f79e68430c0:
//     inference_perf/reportgen/base.py (ResponsesSummary: benchmark_time_seconds, load_summary,
//     successes, failures; summarize_requests; summarize(): mean, min, max and one key per
//     configured percentile, "median" for 50 and f"p{p:g}" otherwise, or null for no values),
//     inference_perf/config/loadgen/config.py (LoadType constant | poisson | concurrent | trace
//     replays; StandardLoadStage rate and duration; ConcurrentLoadStage num_requests and
//     concurrency_level) and inference_perf/config/reportgen/config.py (default percentiles 0.1,
//     1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9).
//   What each metric is (summarize_requests):
//     latency.time_to_first_token: first output token - request start, per streamed request: ttft.
//     latency.time_per_output_token: (last token - first token) / (output tokens - 1) per request:
//       memwall's tpot.
//     latency.request_latency: end - start per successful request: e2e_latency.
//     latency.inter_token_latency: every gap between consecutive tokens of every request, pooled;
//       the tokens of one streamed chunk share its arrival time, so the gaps inside a chunk are 0:
//       the mean is memwall's itl, the percentiles are of chunk gaps and zeros.
//     latency.normalized_time_per_output_token: request latency / output tokens (the first
//       token's wait included): not memwall's tpot.
//     throughput.*_per_sec: the successful requests' tokens (or count) over the stage's wall time
//       (last end - first start): output, total and request throughput.
//   The stage's load is in load_summary: concurrency C for a concurrent stage; otherwise
//   requested_rate R, whose arrival process (constant or poisson) is in the run's config.yaml,
//   not in this file: --load-type says it.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema = "the stage report of inference-perf commit 7de5ef2ed6f7";

const std::string& another_version() {
  static const std::string s = fmt::format(
      "a field of {} (another version's field: tell memwall which inference-perf version wrote "
      "it)",
      kSchema);
  return s;
}

// The statistics summarize() writes at the default percentiles (any subset is allowed: the run's
// report_config sets them).
const std::set<std::string>& summary_fields() {
  static const std::set<std::string> f = {"mean", "min",  "max", "p0.1", "p1",  "p5",
                                          "p10",  "p25",  "median", "p75", "p90", "p95",
                                          "p99",  "p99.9"};
  return f;
}

// A summary object (or null: no request had the value) at `where`; InputError for another shape.
const Json* summary(const Json& parent, const char* key, const std::string& where) {
  const Json* s = field_or_null(parent, key);
  if (!s) return nullptr;
  const std::string w = where + "." + key;
  if (!s->is_object()) throw InputError(w, s->dump().substr(0, 80), "an object or null");
  for (const auto& [k, v] : s->items())
    if (!summary_fields().count(k) && k != "total" && k != "cached" && k != "uncached")
      throw InputError(w + "." + k, v.dump().substr(0, 80), another_version());
  return s;
}

// The lengths of the successful requests from a token-count summary (mean, min, max).
Json lengths(const Json& successes, const char* key, const std::string& where,
             const std::optional<std::string>& flag, const char* option,
             std::vector<std::string>& notes) {
  const std::string w = where + "." + key;
  const Json* s = summary(successes, key, where);
  if (!s) throw InputError(w, "null", "the token counts of at least one successful request");
  if (flag && *flag == "lognormal")
    throw InputError(option, *flag,
                     fmt::format("fixed, uniform or uniform:LO,HI: {} states no standard deviation "
                                 "for a lognormal's cv",
                                 w));
  LengthStats stats;
  stats.requests = size_t(file_count(require_field(successes, "count", where), where + ".count", 1));
  stats.min = file_count(require_field(*s, "min", w), w + ".min", 0);
  stats.max = file_count(require_field(*s, "max", w), w + ".max", 0);
  stats.mean = file_number(require_field(*s, "mean", w), w + ".mean");
  stats.std_dev = 0;  // not written; read only for lognormal, refused above
  return lengths_from_stats(stats, w, flag, option, notes);
}

// The stage's load (load_summary).
struct Load {
  Json workload;
  std::string label;
};

Load load_of(const Json& ls, const std::string& where, const ImportOptions& o,
             std::vector<std::string>& notes) {
  only_fields(ls, where,
              {"count", "schedule_delay", "send_duration", "requested_rate", "achieved_rate",
               "concurrency"},
              another_version());
  if (const Json* c = field_or_null(ls, "concurrency")) {
    const int64_t n = file_count(*c, where + ".concurrency", 1);
    if (o.load_type && *o.load_type != "concurrent")
      throw InputError("--load-type", *o.load_type,
                       fmt::format("concurrent (or none): {}.concurrency {} is a concurrent "
                                   "stage's",
                                   where, n));
    return {{{"mode", "concurrency"}, {"concurrency", n}}, fmt::format("concurrency{}", n)};
  }
  const Json* rate_field = field_or_null(ls, "requested_rate");
  if (!rate_field)
    throw InputError(fmt::format(
        "{}: no requested_rate and no concurrency: this is summary_lifecycle_metrics.json, which "
        "pools every stage of the run (each at its own load); import the "
        "stage_<N>_lifecycle_metrics.json files",
        where));
  const double rate = file_number(*rate_field, where + ".requested_rate");
  if (!(rate > 0)) throw InputError(where + ".requested_rate", "0", "a rate above 0 requests/s");
  if (!o.load_type)
    throw InputError(fmt::format(
        "--load-type: required: {}.requested_rate {} is a rate stage, and whether its arrivals "
        "were poisson or constant is in the run's config.yaml (load.type), not in this file",
        where, rate));
  if (*o.load_type == "constant")
    throw InputError("--load-type", *o.load_type,
                     "poisson: constant sends at evenly spaced times and memwall's request_rate "
                     "records are Poisson (run inference-perf with load.type: poisson)");
  if (*o.load_type != "poisson")
    throw InputError("--load-type", *o.load_type,
                     fmt::format("poisson for a rate stage ({}.requested_rate {}); concurrent "
                                 "stages carry load_summary.concurrency",
                                 where, rate));
  // A generator that fell behind offered a lower rate than it was asked for: each request's send
  // was late by its schedule delay. Late by more than a mean gap (1 / R) at the median is not the
  // stated load.
  if (const Json* d = summary(ls, "schedule_delay", where)) {
    const Json* med = field_or_null(*d, "median");
    if (med && med->is_number() && med->get<double>() > 1.0 / rate)
      throw InputError(where + ".schedule_delay.median", med->dump(),
                       fmt::format("below the mean gap 1 / {} = {:.4g} s: the load generator "
                                   "fell behind the requested rate, so the offered load is not it",
                                   rate, 1.0 / rate));
  }
  if (const Json* a = field_or_null(ls, "achieved_rate"))
    notes.push_back(fmt::format("{}: requested rate {} requests/s (recorded), achieved {:.4g} "
                                "(count / send duration)",
                                where, rate, file_number(*a, where + ".achieved_rate")));
  return {{{"mode", "request_rate"}, {"request_rate", rate}}, fmt::format("poisson{}", rate)};
}

// No image, video or audio in the requests: lengths memwall cannot state.
void text_only(const Json& successes, const std::string& where) {
  for (const char* domain : {"image", "video", "audio"}) {
    const Json* d = field_or_null(successes, domain);
    if (!d) continue;
    if (!d->is_object())
      throw InputError(where + "." + domain, d->dump().substr(0, 80), "an object or null");
    const Json* count = field_or_null(*d, "count");
    const Json* mean = count && count->is_object() ? field_or_null(*count, "mean") : nullptr;
    if (mean && mean->is_number() && mean->get<double>() != 0)
      throw InputError(
          fmt::format("{}.{}.count.mean", where, domain), mean->dump(),
          fmt::format("0 (text requests: {} inputs have no length memwall states)", domain));
  }
}

}  // namespace

std::vector<Json> import_inference_perf(const std::string& text, const std::string& where,
                                        const ImportOptions& o, const Catalog& catalog,
                                        std::vector<std::string>& notes) {
  const Json report = parse_document(text, where);
  if (!report.is_object() || !report.contains("load_summary"))
    throw InputError(fmt::format(
        "{}: not an inference-perf lifecycle report ({}: an object with load_summary, "
        "successes, failures and benchmark_time_seconds; per_request_lifecycle_metrics.json and "
        "the prometheus reports are other files)",
        where, kSchema));
  only_fields(report, where, {"benchmark_time_seconds", "load_summary", "successes", "failures"},
              another_version());
  if (!report.contains("benchmark_time_seconds"))
    throw InputError(fmt::format(
        "{}: required field 'benchmark_time_seconds' is missing ({} writes it; a report "
        "without it is from an earlier inference-perf whose successes have other fields: tell "
        "memwall which version wrote it)",
        where, kSchema));
  Load load = load_of(require_field(report, "load_summary", where), where + ".load_summary", o,
                      notes);
  const Json& successes = require_field(report, "successes", where);
  const std::string sw = where + ".successes";
  only_fields(successes, sw,
              {"count", "latency", "throughput", "request_size_bytes", "image", "video", "audio",
               "prompt_tokens", "output_len", "output_tokens", "token_count_mismatches",
               "goodput_metrics"},
              another_version());
  const int64_t ok = file_count(require_field(successes, "count", sw), sw + ".count", 0);
  if (ok == 0) throw InputError(sw + ".count", "0", "at least one successful request");
  text_only(successes, sw);
  Json& workload = load.workload;
  workload["requests"] = ok;
  if (const Json* f = field_or_null(report, "failures")) {
    const Json* n = f->is_object() ? field_or_null(*f, "count") : nullptr;
    const int64_t failed = n ? file_count(*n, where + ".failures.count", 0) : 0;
    if (failed > 0)
      notes.push_back(fmt::format("{}: {} of {} requests failed; the records are of the {} "
                                  "successful",
                                  where, failed, failed + ok, ok));
  }
  // Prompt tokens a prefix cache served were not computed: memwall's prefill computes each one.
  if (const Json* p = summary(successes, "prompt_tokens", sw)) {
    const Json* cached = field_or_null(*p, "cached");
    if (cached && file_number(*cached, sw + ".prompt_tokens.cached") > 0)
      throw InputError(sw + ".prompt_tokens.cached", cached->dump(),
                       "0: prompt tokens served from a prefix cache skip the prefill memwall "
                       "predicts (run with prefix caching off, or prompts that share no prefix)");
  }
  workload["input_tokens"] = lengths(successes, "prompt_tokens", sw, o.input, "--input", notes);
  // The server's count of generated tokens (usage.completion_tokens, the client's count where
  // the server reported none), not output_len's re-tokenised text.
  workload["output_tokens"] = lengths(successes, "output_tokens", sw, o.output, "--output", notes);
  if (const Json* m = field_or_null(successes, "token_count_mismatches");
      m && file_count(*m, sw + ".token_count_mismatches", 0) > 0)
    notes.push_back(fmt::format(
        "{}.token_count_mismatches: {} requests whose streamed chunks re-tokenise to another "
        "count than the server's: their ITL gaps are spread over that count",
        sw, m->dump()));

  Json base = record_base(
      o, where, std::nullopt, "",
      fmt::format("{} does not name the engine that served (the run's config.yaml server.type "
                  "does): give --engine vllm, sglang, trtllm ...",
                  where),
      catalog, notes);
  base["workload"] = workload;
  base["source"] = fmt::format("inference-perf report {} ({})", where, kSchema);
  const std::string id = fmt::format("{}@{}", load.label, where);

  std::vector<Json> out;
  const Json& latency = require_field(successes, "latency", sw);
  const std::string lw = sw + ".latency";
  only_fields(latency, lw,
              {"request_latency", "normalized_time_per_output_token", "time_per_output_token",
               "time_to_first_token", "inter_token_latency"},
              another_version());
  for (const auto& [key, name] : {std::pair{"time_to_first_token", "ttft"},
                                  std::pair{"time_per_output_token", "tpot"},
                                  std::pair{"request_latency", "e2e_latency"}}) {
    const Json* s = summary(latency, key, lw);
    if (!s) {
      notes.push_back(fmt::format("{}.{}: null (no request streamed it): not imported", lw, key));
      continue;
    }
    const std::string w = lw + "." + key;
    for (const char* stat : {"mean", "median", "p90", "p95", "p99"}) {
      const Json* v = field_or_null(*s, stat);
      if (!v) continue;  // a percentile the run did not configure
      add_metric_record(base, fmt::format("{}/{}.{}", id, key, stat), w, stat,
                        file_number(*v, w + "." + stat), name, stat, "s", ZeroValue::noted, out,
                        notes);
    }
  }
  if (const Json* s = summary(latency, "inter_token_latency", lw)) {
    const std::string w = lw + ".inter_token_latency";
    add_metric_record(base, id + "/inter_token_latency.mean", w, "mean",
                      file_number(require_field(*s, "mean", w), w + ".mean"), "itl", "mean", "s",
                      ZeroValue::noted, out, notes);
  }
  const Json& throughput = require_field(successes, "throughput", sw);
  const std::string tw = sw + ".throughput";
  only_fields(throughput, tw,
              {"input_tokens_per_sec", "output_tokens_per_sec", "total_tokens_per_sec",
               "requests_per_sec", "images_per_sec", "videos_per_sec", "audios_per_sec"},
              another_version());
  for (const auto& [key, name, unit] :
       {std::tuple{"requests_per_sec", "request_throughput", "requests/s"},
        std::tuple{"output_tokens_per_sec", "output_throughput", "tokens/s"},
        std::tuple{"total_tokens_per_sec", "total_throughput", "tokens/s"}})
    add_metric_record(base, fmt::format("{}/{}", id, key), tw, key,
                      file_number(require_field(throughput, key, tw), tw + "." + key), name,
                      "value", unit, ZeroValue::refused, out, notes);
  notes.push_back(fmt::format(
      "{}: not imported (the successful requests' statistics only; not a memwall metric, or a "
      "statistic outside mean, median, p90, p95, p99): normalized_time_per_output_token (the "
      "first token's wait included: not memwall's tpot), inter_token_latency percentiles (of "
      "chunk gaps, zero inside a chunk), input_tokens_per_sec, min, max, p0.1 ... p75, p99.9, "
      "output_len (the client's re-tokenised count; output_tokens, the server's, is used), "
      "request_size_bytes, goodput_metrics, load_summary.schedule_delay, failures",
      where));
  return out;
}

}  // namespace memwall::measure::detail
