// llm-d-benchmark's Benchmark Report v0.2, read to its upstream schema: llm-d/llm-d-benchmark at
// commit 8bc9f1ddd873a24f1657d6cca2e0d0fb6947dd36, llmdbenchmark/analysis/benchmark_report/
// schema_v0_2.py (BenchmarkReportV02: version "0.2", run, scenario {stack, load}, results
// {request_performance {aggregate {requests, latency, throughput}, time_series},
// session_performance, observability, profiling, component_health}; Statistics: units, mean,
// mode, stddev, min, p0p1 ... p99p9, max; every model extra="forbid"), schema_v0_2_components.py
// (the inference_engine component: role replica | prefill | decode, replicas, model.name,
// accelerator {model, count, parallelism {tp, dp, dp_local, workers, ep, pp}}), base.py (Units:
// s, ms, s/token, ms/token, tokens/s, queries/s, count ...) and native_to_br0_2.py (how each
// harness fills it; what each metric is depends on the harness, scenario.load.standardized.tool):
//   vllm-benchmark (vLLM benchmark_serving): time_per_output_token is vLLM's tpot, per request
//     (latency - TTFT) / (output tokens - 1): memwall's tpot; inter_token_latency is vLLM's itl,
//     every gap pooled: itl; rate_qps is --request-rate (inf: every request at once),
//     concurrency --max-concurrency; _populate_aggregate_stack writes accelerator.count = tp x
//     dp_local per replica.
//   inference-perf: time_per_output_token per request (last - first token) / (tokens - 1): tpot;
//     inter_token_latency pooled with zeros inside streamed chunks: itl, mean only.
//   guidellm: time_per_output_token_ms includes the first token's wait: not memwall's tpot;
//     inter_token_latency_ms: mean of every gap (itl), percentiles token-weighted per-request
//     means: itl mean only; concurrency is a concurrent profile's streams or a throughput
//     profile's cap (guidellm_native.rate_and_concurrency).
//   aiperf: inter_token_latency is aiperf's per request (latency - TTFT) / (tokens - 1): tpot.
// What the standardized load does not carry (the arrival process of a rate) comes from flags.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema =
    "llmdbenchmark/analysis/benchmark_report/schema_v0_2.py at llm-d-benchmark commit "
    "8bc9f1ddd873";

const std::string& another_version() {
  static const std::string s = fmt::format(
      "a field of Benchmark Report v0.2 ({}; another version's field: tell memwall which "
      "llm-d-benchmark wrote it)",
      kSchema);
  return s;
}

// The harnesses whose metrics memwall knows (native_to_br0_2.py import_*).
const std::vector<std::string>& known_tools() {
  static const std::vector<std::string> t = {"vllm-benchmark", "inference-perf", "guidellm",
                                             "aiperf"};
  return t;
}

// A value the report's Python writer leaves unbounded: float('inf') as YAML .inf or JSON
// Infinity (read as text).
bool unbounded(const Json& v) {
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  return s == ".inf" || s == ".Inf" || s == ".INF" || s == "inf" || s == "Infinity";
}

// One Statistics object at `where` (units and its statistics; no other key).
const Json& statistics(const Json& s, const std::string& where) {
  only_fields(s, where,
              {"units", "mean", "mode", "stddev", "min", "p0p1", "p1", "p5", "p10", "p25", "p50",
               "p75", "p90", "p95", "p99", "p99p9", "max"},
              another_version());
  if (!s.contains("units") || !s["units"].is_string())
    throw InputError(where + ".units", s.value("units", Json()).dump(), "the statistics' units");
  if (!s.contains("mean")) throw InputError(where + ".mean", "(missing)", "the mean (required)");
  return s;
}

std::string units_of(const Json& s) {
  return s["units"].get<std::string>();
}

// A whole number of an optional field, nullopt when absent or null.
std::optional<int64_t> opt_count(const Json& obj, const char* key, const std::string& where,
                                 int64_t lo) {
  const Json* v = field_or_null(obj, key);
  if (!v) return std::nullopt;
  return file_count(*v, where + "." + key, lo);
}

// A size of the file beside the flag that may state it too; they must agree.
int size_of(const std::optional<int>& flag, int64_t file, const char* option,
            const std::string& field) {
  if (flag && *flag != file)
    throw InputError(option, std::to_string(*flag),
                     fmt::format("{} (the report's {}), or no {}", file, field, option));
  return static_cast<int>(file);
}

// The deployment: the one inference_engine component of scenario.stack.
struct Deployment {
  ImportOptions o;  // the flags with the report's sizes and accelerator
  std::optional<std::string> model;
  std::string engine_why;
};

Deployment deployment_of(const Json& scenario, const std::string& where, const ImportOptions& flags,
                         const Catalog& catalog, std::vector<std::string>& notes) {
  const Json* stack = field_or_null(scenario, "stack");
  const std::string sw = where + ".stack";
  if (!stack || !stack->is_array())
    throw InputError(sw, stack ? stack->dump().substr(0, 80) : "(missing)",
                     "the stack's components (a list with one inference_engine)");
  const Json* engine = nullptr;
  std::string ew;
  for (size_t i = 0; i < stack->size(); ++i) {
    const std::string cw = fmt::format("{}[{}]", sw, i);
    const Json& c = (*stack)[i];
    only_fields(c, cw, {"metadata", "standardized", "native"}, another_version());
    const Json& st = require_field(c, "standardized", cw);
    const std::string kind = require_string(st, "kind", cw + ".standardized");
    const std::string label = c.contains("metadata") && c["metadata"].is_object()
                                  ? c["metadata"].value("label", std::string())
                                  : std::string();
    if (kind == "generic") {
      notes.push_back(
          fmt::format("{}: not imported: the generic component '{}' (tool {}): "
                      "routers, gateways and schedulers are not in a record",
                      cw, label, st.value("tool", std::string("?"))));
      continue;
    }
    if (kind != "inference_engine")
      throw InputError(cw + ".standardized.kind", kind, "inference_engine or generic");
    if (engine)
      throw InputError(cw, "(a second inference_engine)",
                       fmt::format("one inference_engine ({} is one): several engines (a "
                                   "disaggregated prefill/decode deployment, several models) "
                                   "are not one record's deployment",
                                   ew));
    engine = &st;
    ew = cw + ".standardized";
  }
  if (!engine) throw InputError(sw, "(no inference_engine)", "one inference_engine component");
  const Json& e = *engine;
  only_fields(e, ew, {"kind", "tool", "tool_version", "role", "replicas", "model", "accelerator"},
              another_version());
  const std::string role = require_string(e, "role", ew);
  if (role != "replica")
    throw InputError(ew + ".role", role,
                     "replica (one aggregated engine; a prefill or decode pool of a "
                     "disaggregated deployment is not a record's deployment)");
  const int64_t replicas = file_count(require_field(e, "replicas", ew), ew + ".replicas", 1);
  const Json& model = require_field(e, "model", ew);
  only_fields(model, ew + ".model", {"name"}, another_version());
  Deployment d;
  d.o = flags;
  d.model = require_string(model, "name", ew + ".model");
  const std::string tool = require_string(e, "tool", ew);
  const std::string version = e.contains("tool_version") && e["tool_version"].is_string()
                                  ? e["tool_version"].get<std::string>()
                                  : std::string("?");
  d.engine_why = fmt::format(
      "{}.tool '{}' (tool_version '{}') names the engine's image, not the engine memwall "
      "profiles and its version: give --engine vllm, sglang ... and --engine-version",
      ew, tool, version);
  if (!flags.engine) throw InputError("--engine: required: " + d.engine_why);

  const std::string aw = ew + ".accelerator";
  const Json& acc = require_field(e, "accelerator", ew);
  only_fields(acc, aw, {"model", "count", "parallelism"}, another_version());
  const std::string acc_model = require_string(acc, "model", aw);
  if (flags.accelerator) {
    if (*flags.accelerator != acc_model)
      notes.push_back(
          fmt::format("{}.model '{}' replaced by --gpu {}", aw, acc_model, *flags.accelerator));
  } else if (catalog.find_accelerator(acc_model)) {
    d.o.accelerator = acc_model;
  } else {
    throw InputError(fmt::format(
        "--gpu: required: {}.model '{}' is no catalog accelerator id or alias (memwall catalog "
        "list gpus)",
        aw, acc_model));
  }
  const std::string pw = aw + ".parallelism";
  const Json& par = require_field(acc, "parallelism", aw);
  only_fields(par, pw, {"tp", "dp", "dp_local", "workers", "ep", "pp"}, another_version());
  const int64_t tp = opt_count(par, "tp", pw, 1).value_or(1);
  const int64_t pp = opt_count(par, "pp", pw, 1).value_or(1);
  const int64_t ep = opt_count(par, "ep", pw, 1).value_or(1);
  const int64_t dp = opt_count(par, "dp", pw, 1).value_or(1);
  const int64_t dp_local = opt_count(par, "dp_local", pw, 1).value_or(1);
  const int64_t workers = opt_count(par, "workers", pw, 1).value_or(1);
  if (dp != dp_local)
    throw InputError(pw + ".dp", std::to_string(dp),
                     fmt::format("dp_local {}: a data-parallel group spanning pods (vLLM "
                                 "--data-parallel-size above --data-parallel-size-local) is not "
                                 "replicas memwall can state",
                                 dp_local));
  const int64_t count = file_count(require_field(acc, "count", aw), aw + ".count", 1);
  // _populate_aggregate_stack: count = tp x dp_local, one replica's devices.
  if (count != tp * pp * dp_local)
    throw InputError(
        aw + ".count", std::to_string(count),
        fmt::format("tp x pp x dp_local = {} (one replica's devices)", tp * pp * dp_local));
  if (workers > 1)
    notes.push_back(fmt::format("{}.workers {}: each replica spans {} nodes (give --fabric)", pw,
                                workers, workers));
  d.o.tp = size_of(flags.tp, tp, "--tp", pw + ".tp");
  d.o.pp = size_of(flags.pp, pp, "--pp", pw + ".pp");
  if (ep > 1 || flags.ep) d.o.ep = size_of(flags.ep, ep, "--ep", pw + ".ep");
  d.o.dp = size_of(flags.dp, replicas * dp_local, "--dp", ew + ".replicas x " + pw + ".dp_local");
  d.o.devices =
      size_of(flags.devices, replicas * count, "--gpus", ew + ".replicas x " + aw + ".count");
  return d;
}

// The load: mode and its size, and a label for the ids.
struct Load {
  Json workload;
  std::string label, tool;
};

Load load_of(const Json& st, const std::string& sw, const ImportOptions& o,
             std::vector<std::string>& notes) {
  only_fields(st, sw,
              {"tool", "tool_version", "parallelism", "source", "stage", "input_seq_len",
               "output_seq_len", "prefix", "multi_turn", "rate_qps", "concurrency"},
              another_version());
  Load load;
  load.tool = require_string(st, "tool", sw);
  if (std::find(known_tools().begin(), known_tools().end(), load.tool) == known_tools().end())
    throw InputError::unknown_name(sw + ".tool", load.tool, known_tools());
  if (field_or_null(st, "prefix"))
    throw InputError(sw + ".prefix", st["prefix"].dump().substr(0, 80),
                     "none: prompts sharing a prefix are served from the prefix cache, which "
                     "skips the prefill memwall predicts");
  if (const Json* m = field_or_null(st, "multi_turn");
      m && (!m->is_object() || m->value("enabled", true) != false))
    throw InputError(sw + ".multi_turn", m->dump().substr(0, 80),
                     "none: multi-turn sessions resend their history, which a record's lengths "
                     "do not describe");
  if (const auto n = opt_count(st, "parallelism", sw, 1); n && *n > 1)
    throw InputError(sw + ".parallelism", std::to_string(*n),
                     "1: with several load generators the report does not say whether rate_qps "
                     "and concurrency are each one's or the whole load");
  const Json* rate_v = field_or_null(st, "rate_qps");
  const Json* conc_v = field_or_null(st, "concurrency");
  std::optional<double> rate;
  std::optional<int64_t> conc;
  if (rate_v && !unbounded(*rate_v)) {
    rate = file_number(*rate_v, sw + ".rate_qps");
    if (!(*rate > 0)) throw InputError(sw + ".rate_qps", "0", "a rate above 0 queries/s");
  }
  if (conc_v && !unbounded(*conc_v)) conc = file_count(*conc_v, sw + ".concurrency", 1);
  const std::string stage = st.contains("stage") && st["stage"].is_number_integer()
                                ? fmt::format("stage{}.", st["stage"].get<int64_t>())
                                : std::string();
  if (rate && conc)
    throw InputError(sw + ".concurrency", std::to_string(*conc),
                     fmt::format("none beside rate_qps {}: a rate capped by a concurrency is "
                                 "neither memwall's request_rate nor its concurrency load",
                                 *rate));
  if (rate) {
    if (!o.load_type)
      throw InputError(fmt::format(
          "--load-type: required: {}.rate_qps {} is a rate, and the report's standardized load "
          "does not say whether its arrivals were poisson or constant",
          sw, *rate));
    if (*o.load_type != "poisson")
      throw InputError("--load-type", *o.load_type,
                       fmt::format("poisson for the rate {}.rate_qps {} (memwall's request_rate "
                                   "records are Poisson arrivals; constant intervals are not)",
                                   sw, *rate));
    load.workload = {{"mode", "request_rate"}, {"request_rate", *rate}};
    load.label = fmt::format("{}poisson{}", stage, *rate);
    return load;
  }
  if (conc) {
    if (load.tool == "guidellm" && !o.load_type)
      throw InputError(fmt::format(
          "--load-type: required: {}.concurrency {} of a GuideLLM run is a concurrent profile's "
          "streams or a throughput profile's cap; give --load-type concurrent for the former",
          sw, *conc));
    if (o.load_type && *o.load_type != "concurrent")
      throw InputError(
          "--load-type", *o.load_type,
          fmt::format("concurrent (or none): {}.concurrency {} with no rate", sw, *conc));
    load.workload = {{"mode", "concurrency"}, {"concurrency", *conc}};
    load.label = fmt::format("{}concurrency{}", stage, *conc);
    return load;
  }
  // vLLM's benchmark_serving at --request-rate inf and no --max-concurrency sends every request at
  // once: the offline queue.
  if (load.tool == "vllm-benchmark" && !o.load_type) {
    load.workload = {{"mode", "offline"}};
    load.label = stage + "offline";
    notes.push_back(sw +
                    ": no finite rate_qps and no concurrency: every request sent at once "
                    "(offline)");
    return load;
  }
  throw InputError(sw + ".rate_qps", rate_v ? rate_v->dump() : "(missing)",
                   fmt::format("a finite rate or a concurrency ({} states neither)", load.tool));
}

// The lengths of one direction: the measured statistics (mean, min, max) where the report has
// them, else the standardized distribution, else the flag.
Json lengths(const Json* measured, const std::string& mw, const Json* stated,
             const std::string& stw, size_t requests, const std::optional<std::string>& flag,
             const char* option, std::vector<std::string>& notes) {
  if (measured) {
    statistics(*measured, mw);
    if (units_of(*measured) != "count")
      throw InputError(mw + ".units", units_of(*measured), "count (tokens)");
    const Json* lo = field_or_null(*measured, "min");
    const Json* hi = field_or_null(*measured, "max");
    if (lo && hi) {
      const Json* sd = field_or_null(*measured, "stddev");
      if (flag && *flag == "lognormal" && !sd)
        throw InputError(option, *flag,
                         fmt::format("fixed, uniform or uniform:LO,HI: {} states no stddev for a "
                                     "lognormal's cv",
                                     mw));
      LengthStats s;
      s.requests = requests;
      s.min = file_count(*lo, mw + ".min", 0);
      s.max = file_count(*hi, mw + ".max", 0);
      s.mean = file_number(measured->at("mean"), mw + ".mean");
      s.std_dev = sd ? file_number(*sd, mw + ".stddev") : 0;
      return lengths_from_stats(s, mw, flag, option, notes);
    }
  }
  if (flag) return lengths_from_flag(flag, option, "");
  if (!stated)
    return lengths_from_flag(
        flag, option, fmt::format("the report has neither {} (with min and max) nor {}", mw, stw));
  only_fields(*stated, stw, {"distribution", "value", "std_dev", "min", "max"}, another_version());
  const std::string dist = require_string(*stated, "distribution", stw);
  if (dist == "fixed") {
    if (measured)
      notes.push_back(
          fmt::format("{}: the stated fixed length used ({} has no min and max)", stw, mw));
    return file_count(require_field(*stated, "value", stw), stw + ".value", 1);
  }
  if (dist == "uniform") {
    const int64_t a = file_count(require_field(*stated, "min", stw), stw + ".min", 1);
    const int64_t b = file_count(require_field(*stated, "max", stw), stw + ".max", a);
    return {{"distribution", "uniform"}, {"mean", 0.5 * double(a + b)}, {"min", a}, {"max", b}};
  }
  throw InputError(stw + ".distribution", dist,
                   fmt::format("fixed or uniform (memwall's lengths are fixed, uniform or "
                               "lognormal), or give {} N | uniform:LO,HI | lognormal:MEAN,CV",
                               option));
}

// What each latency metric of the report is, by harness (the file's header).
struct Mapping {
  const char* name = nullptr;  // memwall metric, nullptr: not imported
  bool mean_only = false;
};

Mapping mapping(const std::string& tool, const std::string& key) {
  if (key == "time_to_first_token") return {"ttft"};
  if (key == "request_latency") return {"e2e_latency"};
  if (key == "time_per_output_token")
    return tool == "vllm-benchmark" || tool == "inference-perf" ? Mapping{"tpot"} : Mapping{};
  if (key == "inter_token_latency") {
    if (tool == "aiperf") return {"tpot"};
    if (tool == "vllm-benchmark") return {"itl"};
    return {"itl", true};
  }
  return {};
}

}  // namespace

std::vector<Json> import_llmd_report(const std::string& text, const std::string& where,
                                     const ImportOptions& o, const Catalog& catalog,
                                     std::vector<std::string>& notes) {
  const bool yaml = where.size() > 5 && (where.rfind(".yaml") == where.size() - 5 ||
                                         where.rfind(".yml") == where.size() - 4);
  const auto runs = json_lines(text, where, !yaml);
  if (runs.size() != 1)
    throw InputError(runs[1].second, "(a second report)", "one benchmark report per file");
  const Json& report = runs[0].first;
  if (!report.contains("version") || !report.contains("results"))
    throw InputError(
        fmt::format("{}: not an llm-d Benchmark Report ({}: version, run, scenario, "
                    "results)",
                    where, kSchema));
  const Json& version = report["version"];
  if (!version.is_string() || version.get<std::string>() != "0.2")
    throw InputError(where + ".version", version.dump(),
                     "\"0.2\" (Benchmark Report v0.2; v0.1 and v0.2.1 are other schemas)");
  only_fields(report, where, {"version", "run", "scenario", "results"}, another_version());
  const std::string sw = where + ".scenario";
  const Json* scenario = field_or_null(report, "scenario");
  if (!scenario)
    throw InputError(sw, "(missing)", "the stack and load the results were measured on");
  only_fields(*scenario, sw, {"stack", "load"}, another_version());
  Deployment d = deployment_of(*scenario, sw, o, catalog, notes);
  const std::string lw = sw + ".load";
  const Json& load_doc = require_field(*scenario, "load", sw);
  only_fields(load_doc, lw, {"metadata", "standardized", "native"}, another_version());
  const std::string stw = lw + ".standardized";
  const Json& standardized = require_field(load_doc, "standardized", lw);
  Load load = load_of(standardized, stw, o, notes);

  const std::string rw = where + ".results";
  const Json& results = require_field(report, "results", where);
  only_fields(results, rw,
              {"request_performance", "session_performance", "observability", "profiling",
               "component_health"},
              another_version());
  const std::string pw = rw + ".request_performance";
  const Json& perf = require_field(results, "request_performance", rw);
  only_fields(perf, pw, {"aggregate", "time_series"}, another_version());
  const std::string aw = pw + ".aggregate";
  const Json& aggregate = require_field(perf, "aggregate", pw);
  only_fields(aggregate, aw, {"requests", "latency", "throughput"}, another_version());

  const std::string qw = aw + ".requests";
  const Json& requests = require_field(aggregate, "requests", aw);
  only_fields(requests, qw, {"total", "failures", "incomplete", "input_length", "output_length"},
              another_version());
  const int64_t total = file_count(require_field(requests, "total", qw), qw + ".total", 1);
  const int64_t failed = opt_count(requests, "failures", qw, 0).value_or(0) +
                         opt_count(requests, "incomplete", qw, 0).value_or(0);
  if (failed >= total)
    throw InputError(qw + ".failures", std::to_string(failed),
                     fmt::format("fewer than the {} requests sent", total));
  if (failed > 0)
    notes.push_back(
        fmt::format("{}: {} of {} requests failed or did not complete", qw, failed, total));
  const size_t ok = size_t(total - failed);
  Json& workload = load.workload;
  workload["requests"] = int64_t(ok);
  workload["input_tokens"] = lengths(field_or_null(requests, "input_length"), qw + ".input_length",
                                     field_or_null(standardized, "input_seq_len"),
                                     stw + ".input_seq_len", ok, o.input, "--input", notes);
  workload["output_tokens"] =
      lengths(field_or_null(requests, "output_length"), qw + ".output_length",
              field_or_null(standardized, "output_seq_len"), stw + ".output_seq_len", ok, o.output,
              "--output", notes);

  Json base = record_base(d.o, where, d.model, "scenario.stack inference_engine model.name",
                          d.engine_why, catalog, notes);
  base["workload"] = workload;
  const std::string uid = report.contains("run") && report["run"].is_object()
                              ? report["run"].value("uid", std::string("?"))
                              : std::string("?");
  base["source"] =
      fmt::format("llm-d Benchmark Report {} (run.uid {}, {} {}) ({})", where, uid, load.tool,
                  standardized.value("tool_version", std::string("?")), kSchema);
  const std::string id = fmt::format("{}@{}", load.label, where);

  std::vector<Json> out;
  if (const Json* latency = field_or_null(aggregate, "latency")) {
    const std::string w = aw + ".latency";
    only_fields(*latency, w,
                {"time_to_first_token", "normalized_time_per_output_token", "time_per_output_token",
                 "inter_token_latency", "request_latency"},
                another_version());
    for (const char* key : {"time_to_first_token", "time_per_output_token", "inter_token_latency",
                            "request_latency"}) {
      const Json* s = field_or_null(*latency, key);
      if (!s) continue;
      const std::string mw = w + "." + key;
      statistics(*s, mw);
      const Mapping m = mapping(load.tool, key);
      if (!m.name) {
        notes.push_back(
            fmt::format("{}: not imported: {}'s {} is not memwall's tpot{}", mw, load.tool, key,
                        load.tool == "guidellm" ? " (the first token's wait included)" : ""));
        continue;
      }
      // Per-token units for TPOT and ITL, plain time for TTFT and latency (base.py).
      const bool per_token = std::string_view(key) == "time_per_output_token" ||
                             std::string_view(key) == "inter_token_latency";
      const std::string u = units_of(*s);
      const char* unit = nullptr;
      if (u == (per_token ? "s/token" : "s")) unit = "s";
      if (u == (per_token ? "ms/token" : "ms")) unit = "ms";
      if (!unit) throw InputError(mw + ".units", u, per_token ? "s/token or ms/token" : "s or ms");
      for (const auto& [stat, as] :
           {std::pair{"mean", "mean"}, std::pair{"p50", "median"}, std::pair{"p90", "p90"},
            std::pair{"p95", "p95"}, std::pair{"p99", "p99"}}) {
        if (m.mean_only && std::string_view(stat) != "mean") continue;
        const Json* v = field_or_null(*s, stat);
        if (!v) continue;
        add_metric_record(base, fmt::format("{}/{}.{}", id, key, stat), mw, stat,
                          file_number(*v, mw + "." + stat), m.name, as, unit, ZeroValue::noted, out,
                          notes);
      }
      if (m.mean_only)
        notes.push_back(
            fmt::format("{}: percentiles not imported ({}'s are not of memwall's "
                        "itl gaps)",
                        mw, load.tool));
    }
  }
  if (const Json* throughput = field_or_null(aggregate, "throughput")) {
    const std::string w = aw + ".throughput";
    only_fields(*throughput, w,
                {"input_token_rate", "output_token_rate", "total_token_rate", "request_rate"},
                another_version());
    for (const auto& [key, name, from, to] :
         {std::tuple{"output_token_rate", "output_throughput", "tokens/s", "tokens/s"},
          std::tuple{"total_token_rate", "total_throughput", "tokens/s", "tokens/s"},
          std::tuple{"request_rate", "request_throughput", "queries/s", "requests/s"}}) {
      const Json* s = field_or_null(*throughput, key);
      if (!s) continue;
      const std::string mw = w + "." + key;
      statistics(*s, mw);
      if (units_of(*s) != from) throw InputError(mw + ".units", units_of(*s), from);
      add_metric_record(base, fmt::format("{}/{}.mean", id, key), mw, "mean",
                        file_number(s->at("mean"), mw + ".mean"), name, "value", to,
                        ZeroValue::refused, out, notes);
    }
  }
  notes.push_back(fmt::format(
      "{}: not imported: normalized_time_per_output_token (the first token's wait included), "
      "input_token_rate, the statistics outside mean, p50, p90, p95, p99 (and the rates' "
      "percentiles), request_performance.time_series, session_performance, observability, "
      "profiling, component_health, run, the native configurations",
      where));
  return out;
}

}  // namespace memwall::measure::detail
