#include "memwall/monitor/engine_records.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <tuple>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::monitor {
namespace {

// Below this mean the window's requests were not held waiting: their TTFT is the engine's.
constexpr double kQueueingMean = 0.5;

const char* length_histogram_names(const std::string& set, bool prompt) {
  if (set == "sglang")
    return prompt ? "sglang:prompt_tokens_histogram" : "sglang:generation_tokens_histogram";
  return prompt ? "vllm:request_prompt_tokens" : "vllm:request_generation_tokens";
}

// A length: --input/--output when given, else the length histogram's mean, else refused naming
// the flag (with the counters' tokens per finished request as a hint).
Json length_of(const std::optional<std::string>& flag, const std::optional<double>& histogram_mean,
               const std::optional<double>& per_request, const EngineOperatingPoint& p, bool prompt,
               const std::string& where, std::vector<std::string>& notes) {
  const char* option = prompt ? "--input" : "--output";
  if (flag) {
    if (histogram_mean)
      notes.push_back(fmt::format("{}: {} {} used; the {} histogram's mean is {:.0f} tokens", where,
                                  option, *flag, length_histogram_names(p.set, prompt),
                                  *histogram_mean));
    return measure::detail::lengths_from_flag(flag, option, "");
  }
  if (histogram_mean && *histogram_mean >= 1)
    return static_cast<int64_t>(std::llround(*histogram_mean));
  std::string why = fmt::format("{} holds no {} histogram ({}) with observations in the window",
                                where, prompt ? "prompt-length" : "generation-length",
                                length_histogram_names(p.set, prompt));
  if (per_request)
    why += fmt::format("; its token counters give {:.0f} {} tokens per finished request",
                       *per_request, prompt ? "prompt" : "generation");
  throw InputError(fmt::format("{}: required: {}", option, why));
}

}  // namespace

EngineRecords operating_point_records(const EngineOperatingPoint& p, measure::ImportOptions o,
                                      const std::string& where, const Catalog& catalog) {
  EngineRecords out;
  if (o.engine && *o.engine != p.engine)
    throw InputError("--engine", *o.engine,
                     fmt::format("{} (the engine whose {}:* series these are), or no --engine",
                                 p.engine, p.set));
  o.engine = p.engine;
  const std::optional<std::string> label_model =
      p.model.empty() ? std::nullopt : std::optional<std::string>(p.model);
  Json base = measure::detail::record_base(o, where, label_model, "model_name label",
                                           "the engine is the series' own", catalog, out.notes);
  if (!p.running_requests)
    throw InputError(fmt::format(
        "{}: no running-requests gauge ({}) in the window: the batch the "
        "engine held is unknown",
        where, p.set == "sglang" ? "sglang:num_running_reqs" : "vllm:num_requests_running"));
  if (*p.running_requests < 0.5)
    throw InputError(
        fmt::format("{}: the engine held {:.2f} running requests on average: idle over "
                    "the window, no operating point to time",
                    where, *p.running_requests));
  Json workload = {
      {"mode", "concurrency"},
      {"concurrency", static_cast<int64_t>(std::llround(*p.running_requests))},
      {"input_tokens", length_of(o.input, p.mean_prompt_tokens, p.prompt_tokens_per_request, p,
                                 true, where, out.notes)},
      {"output_tokens", length_of(o.output, p.mean_generation_tokens,
                                  p.generation_tokens_per_request, p, false, where, out.notes)}};
  const std::string source =
      fmt::format("{}: {} series {}", where, p.engine, fmt::join(p.names, ", "));
  base["source"] = source;
  base["workload"] = workload;
  std::vector<Json> records;
  namespace d = measure::detail;
  auto add = [&](const std::string& key, double value, const char* name, const char* statistic,
                 const char* unit) {
    d::add_metric_record(base,
                         fmt::format("{}/{} ({})", p.engine, key, p.job.empty() ? where : p.job),
                         where, key, value, name, statistic, unit, d::ZeroValue::noted, records,
                         out.notes);
  };
  if (p.inter_token.mean) add("itl_mean", *p.inter_token.mean * 1e3, "itl", "mean", "ms");
  if (p.generation_tokens_per_s && *p.generation_tokens_per_s > 0)
    add("output_throughput", *p.generation_tokens_per_s, "output_throughput", "value",
        "tokens/s");
  const bool queued = p.waiting_requests && *p.waiting_requests >= kQueueingMean;
  for (const auto& [key, h, name] :
       {std::tuple{"ttft_mean", &p.ttft, "ttft"}, std::tuple{"e2e_mean", &p.e2e, "e2e_latency"}}) {
    if (!h->mean) continue;
    if (queued) {
      out.notes.push_back(
          fmt::format("{}: {} not used: {:.1f} requests waited on average, and a "
                      "waiting request's time holds queueing the steady state "
                      "does not",
                      where, name, *p.waiting_requests));
      continue;
    }
    add(key, *h->mean * 1e3, name, "mean", "ms");
  }
  if (records.empty())
    throw InputError(
        fmt::format("{}: no inter-token, TTFT, e2e histogram or generation token "
                    "counter with observations in the window: nothing to time",
                    where));
  out.records = d::checked(records, where, catalog);
  return out;
}

OperatingPointEstimate estimate_operating_point(const EngineOperatingPoint& p,
                                                const measure::ImportOptions& o,
                                                const std::string& where, const Catalog& catalog,
                                                const measure::PredictOptions& po) {
  OperatingPointEstimate e;
  EngineRecords recs;
  try {
    recs = operating_point_records(p, o, where, catalog);
  } catch (const InputError& err) {
    e.not_estimated = err.what();
    return e;
  }
  e.notes = recs.notes;
  for (const measure::Record& r : recs.records) {
    e.running = *r.workload.concurrency;
    e.input_tokens = std::llround(r.workload.input->mean);
    e.output_tokens = std::llround(r.workload.output->mean);
    const measure::Prediction q = measure::predict(r, catalog, po);
    PointEstimate row;
    row.metric = fmt::format("{}{}", measure::to_string(r.measured.metric),
                             r.measured.statistic == measure::Statistic::mean ? " mean" : "");
    row.measured = r.measured.si;
    row.predicted = q.si;
    row.signed_error = q.signed_error(r);
    row.unpredicted = q.unpredicted;
    e.rows.push_back(std::move(row));
  }
  return e;
}

Json to_json(const OperatingPointEstimate& e) {
  if (!e.not_estimated.empty()) return {{"not_estimated", e.not_estimated}};
  Json rows = Json::array();
  for (const auto& r : e.rows)
    rows.push_back({{"metric", r.metric},
                    {"measured", r.measured},
                    {"predicted", r.predicted ? Json(*r.predicted) : Json(nullptr)},
                    {"signed_error", r.signed_error ? Json(*r.signed_error) : Json(nullptr)},
                    {"unpredicted", r.unpredicted}});
  return {{"running", e.running},
          {"input_tokens", e.input_tokens},
          {"output_tokens", e.output_tokens},
          {"rows", rows},
          {"notes", e.notes}};
}

std::string format_estimate(const OperatingPointEstimate& e) {
  if (!e.not_estimated.empty()) return "  memwall's estimate: not made: " + e.not_estimated + "\n";
  std::string out = fmt::format(
      "  memwall's estimate at {} running requests, {} prompt / {} generation tokens:\n", e.running,
      e.input_tokens, e.output_tokens);
  for (const auto& r : e.rows) {
    const bool tokens = r.metric.find("throughput") != std::string::npos;
    auto shown = [tokens](double v) {
      return tokens ? fmt::format("{:.1f} tokens/s", v) : fmt::format("{:.1f} ms", v * 1e3);
    };
    if (!r.predicted) {
      out += fmt::format("    {:<22} measured {}, not predicted: {}\n", r.metric, shown(r.measured),
                         r.unpredicted);
      continue;
    }
    out += fmt::format("    {:<22} measured {}, estimate {} (signed error {:+.1f} %)\n", r.metric,
                       shown(r.measured), shown(*r.predicted), 100 * r.signed_error.value_or(0));
  }
  for (const auto& n : e.notes) out += "    note: " + n + "\n";
  return out;
}

}  // namespace memwall::monitor
