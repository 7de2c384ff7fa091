// The profile exports of NVIDIA's genai-perf and of AIPerf (its successor, which keeps the file's
// shape), read to their upstream schemas:
//   genai-perf: `genai-perf profile ...` writes profile_export_genai_perf.json,
//     triton-inference-server/perf_analyzer at commit 263c5f6e0c7a6c15472a54409174981f67930cfe:
//     genai-perf/genai_perf/export_data/json_exporter.py (the statistics, telemetry_stats,
//     sessions and input_config), genai_perf/metrics/statistics.py (one object per metric: unit,
//     avg, p1 ... p99, min, max, std; _add_units: "ms" for times, "requests/sec", "tokens/sec",
//     "tokens/sec/user", "tokens", "count"), genai_perf/metrics/llm_metrics.py and metrics.py (the
//     metric names), genai_perf/config/input/*.py (input_config is ConfigCommand.to_json_dict():
//     model_names, endpoint, perf_analyzer.stimulus {concurrency | request_rate |
//     session_concurrency | session_request_rate | fixed_schedule: value}, input.prefix_prompt,
//     input.sessions ...). genai-perf passes no --request-distribution, so a request_rate
//     stimulus is perf_analyzer's default, constant intervals (src/command_line_parser.h).
//   aiperf: `aiperf profile ...` writes profile_export_aiperf.json, ai-dynamo/aiperf at commit
//     db4f6397d11ee2d4cfbb41f70b2327315163dcf0: aiperf/exporters/json_exporter.py and
//     aiperf/common/models/export_models.py (JsonExportData: one JsonMetricResult {unit, avg, p1
//     ... p99, min, max, std} per metric tag, input_config the UserConfig dumped with
//     exclude_unset, was_cancelled, error_summary, start_time, end_time), the units of
//     aiperf/common/enums/metric_enums.py ("ns", "us", "ms", "sec", "requests/sec", "tokens/sec"
//     ...), and the load of aiperf/common/config/user_config.py validate_timing_mode with
//     loadgen_config.py: a request_rate, Poisson unless request_rate_mode says constant, capped by
//     concurrency when both are set; else concurrency (1 when unset); a fixed schedule replays one.
//   Both define inter_token_latency per request as (request latency - TTFT) / (output tokens - 1)
//   (genai-perf profile_data_parser/llm_profile_data_parser.py, aiperf
//   metrics/types/inter_token_latency_metric.py): memwall's tpot, with its statistics over the
//   requests.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

struct Schema {
  bool aiperf;
  const char* tool;
  const char* cite;
};
constexpr Schema kGenaiPerf = {false, "genai-perf",
                               "profile_export_genai_perf.json of perf_analyzer commit "
                               "263c5f6e0c7a"};
constexpr Schema kAiperf = {true, "aiperf",
                            "profile_export_aiperf.json of aiperf commit db4f6397d11e"};

// A number in the file's unit converted to one memwall reads: {factor, memwall's unit}.
struct Unit {
  double factor;
  const char* unit;
};

Unit time_unit(const Json& m, const std::string& where) {
  const auto u = opt_string(m, "unit", where);
  if (u == "ns") return {1e-3, "us"};
  if (u == "us") return {1, "us"};
  if (u == "ms") return {1, "ms"};
  if (u == "sec" || u == "s") return {1, "s"};
  throw InputError(where + ".unit", u.value_or("(missing)"), "ns, us, ms or sec (a time)");
}

// `file_unit` ("tokens/sec") as both tools write it: memwall's `unit` ("tokens/s").
Unit rate_unit(const Json& m, const std::string& where, const char* file_unit, const char* unit) {
  const auto u = opt_string(m, "unit", where);
  if (u == file_unit) return {1, unit};
  throw InputError(where + ".unit", u.value_or("(missing)"), file_unit);
}

// The statistic `stat` (avg, p50 ...) of the metric object at `where`.
double stat_at(const Json& m, const char* stat, const std::string& where) {
  return file_number(require_field(m, stat, where), where + "." + stat);
}

// The load of a genai-perf input_config (perf_analyzer.stimulus) and a label for the ids.
std::pair<Json, std::string> genai_perf_load(const Json& config, const std::string& where) {
  const Json* pa = field_or_null(config, "perf_analyzer");
  if (!pa)
    throw InputError(
        fmt::format("{}: required field 'perf_analyzer' is missing ({} writes it; an "
                    "older genai-perf wrote another input_config: tell memwall "
                    "which version wrote it)",
                    where, kGenaiPerf.cite));
  const std::string pw = where + ".perf_analyzer";
  const Json& stimulus = require_field(*pa, "stimulus", pw);
  const std::string sw = pw + ".stimulus";
  if (!stimulus.is_object() || stimulus.size() != 1)
    throw InputError(sw, stimulus.dump().substr(0, 80), "one {kind: value}");
  // The iterator, not a binding to a temporary items() proxy (its key went out of scope: ASan).
  const auto only = stimulus.begin();
  const std::string kind = only.key();
  const Json& value = only.value();
  if (kind == "concurrency") {
    const int64_t c = file_count(value, sw + ".concurrency", 1);
    return {{{"mode", "concurrency"}, {"concurrency", c}}, fmt::format("concurrency{}", c)};
  }
  if (kind == "request_rate")
    throw InputError(sw + ".request_rate", value.dump().substr(0, 80),
                     "a concurrency: genai-perf sends a request rate at constant intervals "
                     "(perf_analyzer's default distribution), and memwall's request_rate records "
                     "are Poisson");
  throw InputError(sw + "." + kind, value.dump().substr(0, 80),
                   "concurrency (sessions and fixed schedules are not a load memwall's records "
                   "state)");
}

// The load of an aiperf input_config (loadgen, written only where the user set it).
std::pair<Json, std::string> aiperf_load(const Json& config, const std::string& where) {
  const Json empty = Json::object();
  const Json* lg = field_or_null(config, "loadgen");
  const Json& loadgen = lg ? *lg : empty;
  const std::string lw = where + ".loadgen";
  if (!loadgen.is_object()) throw InputError(lw, loadgen.dump().substr(0, 80), "an object");
  if (const Json* c = field_or_null(loadgen, "request_cancellation_rate");
      c && file_number(*c, lw + ".request_cancellation_rate") > 0)
    throw InputError(lw + ".request_cancellation_rate", c->dump(),
                     "0 (cancelled requests are not what a record describes)");
  const Json* conc = field_or_null(loadgen, "concurrency");
  if (const Json* rate = field_or_null(loadgen, "request_rate")) {
    const double r = file_number(*rate, lw + ".request_rate");
    if (!(r > 0)) throw InputError(lw + ".request_rate", rate->dump(), "a rate above 0");
    const auto mode = opt_string(loadgen, "request_rate_mode", lw).value_or("poisson");
    if (mode != "poisson")
      throw InputError(lw + ".request_rate_mode", mode,
                       "poisson: memwall's request_rate records are Poisson arrivals");
    if (conc)
      throw InputError(fmt::format(
          "{}: request_rate {} with concurrency {}: arrivals at a rate capped by a concurrency "
          "limit; memwall's records have either a rate (Poisson) or a concurrency, not both",
          lw, rate->dump(), conc->dump()));
    return {{{"mode", "request_rate"}, {"request_rate", r}}, fmt::format("rate{}", r)};
  }
  const int64_t c = conc ? file_count(*conc, lw + ".concurrency", 1) : 1;
  return {{{"mode", "concurrency"}, {"concurrency", c}}, fmt::format("concurrency{}", c)};
}

// What in an input_config changes what was measured in a way a record cannot state: refused.
void refuse_workload_shapes(const Json& config, const std::string& where, const Schema& s) {
  const Json* input = field_or_null(config, "input");
  if (!input) return;
  const std::string iw = where + ".input";
  auto positive = [&](const Json* v, const std::string& field, const char* why) {
    if (v && v->is_number() && v->get<double>() > 0)
      throw InputError(field, v->dump(), std::string("0 or unset (") + why + ")");
  };
  const char* prefix = "shared prefixes hit the prefix cache, and memwall's records have none";
  const char* turns =
      "multi-turn sessions resend their history; memwall's records are single turns";
  if (!s.aiperf) {
    const Json* pp = field_or_null(*input, "prefix_prompt");
    positive(pp ? field_or_null(*pp, "num") : nullptr, iw + ".prefix_prompt.num", prefix);
    const Json* ss = field_or_null(*input, "sessions");
    positive(ss ? field_or_null(*ss, "num") : nullptr, iw + ".sessions.num", turns);
    return;
  }
  if (const Json* f = field_or_null(*input, "fixed_schedule"); f && *f != false)
    throw InputError(iw + ".fixed_schedule", f->dump(),
                     "false (a replayed schedule is not a load memwall's records state)");
  if (const auto t = opt_string(*input, "custom_dataset_type", iw); t == "mooncake_trace")
    throw InputError(iw + ".custom_dataset_type", *t,
                     "a dataset without timestamps (aiperf replays a mooncake trace's schedule)");
  const Json* prompt = field_or_null(*input, "prompt");
  const Json* pp = prompt ? field_or_null(*prompt, "prefix_prompt") : nullptr;
  positive(pp ? field_or_null(*pp, "pool_size") : nullptr, iw + ".prompt.prefix_prompt.pool_size",
           prefix);
  const Json* conv = field_or_null(*input, "conversation");
  const Json* turn = conv ? field_or_null(*conv, "turn") : nullptr;
  if (const Json* m = turn ? field_or_null(*turn, "mean") : nullptr;
      m && file_number(*m, iw + ".conversation.turn.mean") > 1)
    throw InputError(iw + ".conversation.turn.mean", m->dump(), std::string("1 (") + turns + ")");
}

// The model the run named: model_names (genai-perf) or endpoint.model_names (aiperf).
std::optional<std::string> model_name(const Json& config, const std::string& where, const Schema& s,
                                      std::string& field) {
  const Json* holder = &config;
  field = "input_config.model_names";
  if (s.aiperf) {
    holder = field_or_null(config, "endpoint");
    field = "input_config.endpoint.model_names";
    if (!holder) return std::nullopt;
  }
  const Json* names = field_or_null(*holder, "model_names");
  if (!names) return std::nullopt;
  const std::string w = where + "." + field;
  if (!names->is_array() || names->size() > 1)
    throw InputError(w, names->dump().substr(0, 80),
                     "one model (a run over several models is not one measurement)");
  if (names->empty()) return std::nullopt;
  if (!names->at(0).is_string()) throw InputError(w + "[0]", names->at(0).dump(), "a string");
  return names->at(0).get<std::string>();
}

// The lengths from the input_sequence_length / output_sequence_length metric.
Json lengths(const Json& run, const char* key, const std::string& where, int64_t requests,
             const std::optional<std::string>& flag, const char* option,
             std::vector<std::string>& notes) {
  const std::string w = where + "." + key;
  const Json& m = require_field(run, key, where);
  if (const auto u = opt_string(m, "unit", w); u != "tokens")
    throw InputError(w + ".unit", u.value_or("(missing)"), "tokens");
  LengthStats s;
  s.requests = size_t(requests);
  s.mean = stat_at(m, "avg", w);
  s.min = file_count(require_field(m, "min", w), w + ".min", 0);
  s.max = file_count(require_field(m, "max", w), w + ".max", 0);
  s.std_dev = stat_at(m, "std", w);
  return lengths_from_stats(s, w, flag, option, notes);
}

std::vector<Json> profile_export(const std::string& text, const std::string& where,
                                 const Schema& schema, const ImportOptions& o,
                                 const Catalog& catalog, std::vector<std::string>& notes) {
  const Json run = parse_document(text, where);
  if (!run.is_object())
    throw InputError(where, run.dump().substr(0, 80), "a JSON object of metrics");
  const Json& config = require_field(run, "input_config", where);
  const std::string cw = where + ".input_config";
  if (const Json* c = field_or_null(run, "was_cancelled"); c && *c != false)
    throw InputError(where + ".was_cancelled", c->dump(),
                     "false (a cancelled run's statistics are of part of its requests)");
  // The input_config's fields (aiperf's UserConfig, genai-perf's ConfigCommand): a file of the
  // other tool, or of another version, is refused by name rather than read with defaults.
  static const std::set<std::string> kAiperfConfig = {"endpoint",  "input",   "output",
                                                      "tokenizer", "loadgen", "cli_command"};
  static const std::set<std::string> kGenaiPerfConfig = {
      "model_names",   "subcommand", "verbose", "template_filename", "analyze", "endpoint",
      "perf_analyzer", "input",      "output",  "tokenizer",         "process"};
  only_fields(config, cw, schema.aiperf ? kAiperfConfig : kGenaiPerfConfig,
              fmt::format("a field of the input_config of {}{}", schema.cite,
                          schema.aiperf ? " (perf_analyzer, model_names: a genai-perf export, "
                                          "--format genai-perf)"
                                        : " (loadgen, cli_command: an aiperf export, --format "
                                          "aiperf)"));
  auto [workload, label] = schema.aiperf ? aiperf_load(config, cw) : genai_perf_load(config, cw);
  refuse_workload_shapes(config, cw, schema);

  const std::string rw = where + ".request_count";
  const Json& count = require_field(run, "request_count", where);
  const int64_t requests = file_count(require_field(count, "avg", rw), rw + ".avg", 1);
  workload["requests"] = requests;
  if (const Json* e = field_or_null(run, "error_request_count"))
    notes.push_back(fmt::format("{}: {} requests failed; the records are of the {} that completed",
                                where, stat_at(*e, "avg", where + ".error_request_count"),
                                requests));
  workload["input_tokens"] =
      lengths(run, "input_sequence_length", where, requests, o.input, "--input", notes);
  workload["output_tokens"] =
      lengths(run, "output_sequence_length", where, requests, o.output, "--output", notes);

  std::string model_field;
  const auto model = model_name(config, where, schema, model_field);
  Json base = record_base(
      o, where, model, model_field,
      fmt::format("{} does not name the engine that served ({} is a client): give --engine vllm, "
                  "sglang, trtllm ...",
                  where, schema.tool),
      catalog, notes);
  base["workload"] = workload;
  base["source"] = fmt::format("{} profile export {} ({})", schema.tool, where, schema.cite);
  const std::string id = fmt::format("{}@{}", label, where);

  std::vector<Json> out;
  std::set<std::string> used = {"input_config",          "was_cancelled",
                                "request_count",         "error_request_count",
                                "input_sequence_length", "output_sequence_length"};
  for (const auto& [key, name] :
       {std::pair{"time_to_first_token", "ttft"}, std::pair{"inter_token_latency", "tpot"},
        std::pair{"request_latency", "e2e_latency"}}) {
    const Json* m = field_or_null(run, key);
    if (!m) continue;
    used.insert(key);
    const std::string w = where + "." + key;
    const Unit u = time_unit(*m, w);
    for (const auto& [stat, statistic] :
         {std::pair{"avg", "mean"}, std::pair{"p50", "median"}, std::pair{"p90", "p90"},
          std::pair{"p95", "p95"}, std::pair{"p99", "p99"}})
      if (field_or_null(*m, stat))
        add_metric_record(base, fmt::format("{}/{}.{}", id, key, stat), w, stat,
                          u.factor * stat_at(*m, stat, w), name, statistic, u.unit,
                          ZeroValue::noted, out, notes);
  }
  for (const auto& [key, name, file_unit, unit] :
       {std::tuple{"output_token_throughput", "output_throughput", "tokens/sec", "tokens/s"},
        std::tuple{"request_throughput", "request_throughput", "requests/sec", "requests/s"}}) {
    const Json* m = field_or_null(run, key);
    if (!m) continue;
    used.insert(key);
    const std::string w = where + "." + key;
    const Unit u = rate_unit(*m, w, file_unit, unit);
    add_metric_record(base, fmt::format("{}/{}.avg", id, key), w, "avg",
                      u.factor * stat_at(*m, "avg", w), name, "value", u.unit, ZeroValue::refused,
                      out, notes);
  }

  // Every other metric object: listed; a field that is no metric and not of the schema: refused.
  static const std::set<std::string> kOther = {"telemetry_stats", "sessions", "error_summary",
                                               "start_time", "end_time"};
  std::vector<std::string> not_imported = {"the percentiles other than p50, p90, p95, p99", "min",
                                           "max", "std"};
  for (const auto& [k, v] : run.items()) {
    if (used.count(k)) continue;
    if (kOther.count(k) || (v.is_object() && v.contains("unit")))
      not_imported.push_back(k);
    else
      throw InputError(
          where + "." + k, v.dump().substr(0, 80),
          fmt::format("a metric object {{unit, avg ...}} or a field of {}", schema.cite));
  }
  notes.push_back(
      fmt::format("{}: not imported (not a memwall metric, or a statistic outside "
                  "mean, median, p90, p95, p99): {}",
                  where, fmt::join(not_imported, ", ")));
  return out;
}

}  // namespace

std::vector<Json> import_profile_export(const std::string& text, const std::string& where,
                                        const ImportOptions& o, const Catalog& catalog,
                                        std::vector<std::string>& notes) {
  return profile_export(text, where, o.format == "aiperf" ? kAiperf : kGenaiPerf, o, catalog,
                        notes);
}

}  // namespace memwall::measure::detail
