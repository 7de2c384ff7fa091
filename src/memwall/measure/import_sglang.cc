// The SGLang serving benchmark, read to its upstream schema:
//   sglang-serve: `python -m sglang.bench_serving --output-file F` (one JSON object appended per
//     run, JSON Lines), sgl-project/sglang python/sglang/bench_serving.py at commit
//     0033168f0f58b2bc05aa0273bd475d9c01bafb1c: benchmark()'s `result` dict, the arguments
//     backend, dataset_name, request_rate, max_concurrency, sharegpt_output_len,
//     random_input_len, random_output_len, random_range_ratio, then duration, completed, the
//     token totals, request/input/output_throughput, mean/median/std/p99 of e2e_latency, ttft
//     and tpot, mean/median/std/p95/p99 of itl, concurrency and accept_length; with
//     --output-details also input_lens, output_lens, ttfts, itls, generated_texts, errors.
//     json.dumps writes the default request rate, float('inf'), as the bare token Infinity.
//   Arrivals (get_request): every request at once when the rate is inf, else exponential gaps of
//   mean 1 / rate (Poisson). Random lengths (sample_random_requests): numpy randint over
//   [int(len * random_range_ratio), len], both ends included.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <set>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema =
    "python/sglang/bench_serving.py at sglang commit 0033168f0f58";

// The latency families of the result and memwall's metric for each.
constexpr std::pair<const char*, const char*> kLatencies[] = {
    {"ttft", "ttft"}, {"tpot", "tpot"}, {"itl", "itl"}, {"e2e_latency", "e2e_latency"}};
constexpr const char* kStatistics[] = {"mean", "median", "p90", "p95", "p99"};

// "p99_e2e_latency_ms" -> true: a statistic of a latency family (also those memwall does not
// import, std and other percentiles).
bool latency_key(const std::string& key) {
  if (key.size() < 4 || key.compare(key.size() - 3, 3, "_ms") != 0) return false;
  const std::string body = key.substr(0, key.size() - 3);
  for (const auto& [family, name] : kLatencies) {
    const std::string suffix = std::string("_") + family;
    if (body.size() <= suffix.size() ||
        body.compare(body.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string stat = body.substr(0, body.size() - suffix.size());
    if (stat == "mean" || stat == "median" || stat == "std" || stat == "max" ||
        (stat.size() > 1 && stat[0] == 'p' &&
         stat.find_first_not_of("0123456789.", 1) == std::string::npos))
      return true;
  }
  return false;
}

// The random dataset's lengths: uniform over [int(len x ratio), len] (fixed when ratio is 1).
Json random_lengths(const Json& run, const char* len_key, const std::string& where,
                    double ratio, std::vector<std::string>& notes) {
  const int64_t len = file_count(require_field(run, len_key, where), where + "." + len_key, 1);
  int64_t lo = static_cast<int64_t>(std::floor(double(len) * ratio));
  if (lo >= len) return len;
  if (lo < 1) {
    notes.push_back(fmt::format(
        "{}: {} {} with random_range_ratio {}: numpy's randint may draw 0 tokens; recorded as "
        "uniform over [1, {}] (the mean moves by half a token)",
        where, len_key, len, ratio, len));
    lo = 1;
  }
  return {{"distribution", "uniform"}, {"mean", 0.5 * double(lo + len)}, {"min", lo}, {"max", len}};
}

void sglang_run(const Json& run, const std::string& where, const ImportOptions& o,
                const Catalog& catalog, std::vector<Json>& out, std::vector<std::string>& notes) {
  // What changes what was measured in a way a record cannot describe: refused by name.
  if (const Json* a = field_or_null(run, "accept_length"))
    throw InputError(where + ".accept_length", a->dump().substr(0, 80),
                     "null (no speculative decoding: memwall does not model draft tokens)");
  const auto dataset = opt_string(run, "dataset_name", where);
  if (!dataset)
    throw InputError(fmt::format("{}: required field 'dataset_name' is missing ({} writes it)",
                                 where, kSchema));
  const bool random = *dataset == "random" || *dataset == "random-ids";
  if (*dataset == "generated-shared-prefix")
    throw InputError(where + ".dataset_name", *dataset,
                     "random, random-ids or sharegpt: shared system prompts hit the prefix cache, "
                     "and memwall's records have no shared prefix");
  if (!random && *dataset != "sharegpt")
    throw InputError(where + ".dataset_name", *dataset,
                     "random, random-ids or sharegpt (text requests whose lengths memwall can "
                     "state)");

  // The load.
  const int64_t completed =
      file_count(require_field(run, "completed", where), where + ".completed", 0);
  if (completed == 0) throw InputError(where + ".completed", "0", "at least one completed request");
  const Json& rate = require_field(run, "request_rate", where);
  const bool rate_inf = rate.is_string() && rate.get<std::string>() == "Infinity";
  if (!rate_inf && !(rate.is_number() && file_number(rate, where + ".request_rate") > 0))
    throw InputError(where + ".request_rate", rate.dump().substr(0, 80),
                     "a number above 0 or Infinity");
  if (!run.contains("max_concurrency"))
    throw InputError(fmt::format(
        "{}: required field 'max_concurrency' is missing ({} writes it, null when not set)", where,
        kSchema));
  const Json* conc = field_or_null(run, "max_concurrency");
  Json workload;
  if (rate_inf && !conc)
    workload = {{"mode", "offline"}};
  else if (rate_inf)
    workload = {{"mode", "concurrency"},
                {"concurrency", file_count(*conc, where + ".max_concurrency", 1)}};
  else if (conc)
    throw InputError(fmt::format(
        "{}: request_rate {} with max_concurrency {}: arrivals at a rate capped by a concurrency "
        "limit; memwall's records have either a rate (Poisson) or a concurrency, not both",
        where, rate.dump(), conc->dump()));
  else
    workload = {{"mode", "request_rate"}, {"request_rate", rate.get<double>()}};
  // The result keeps no prompt count: the records are of the completed requests.
  workload["requests"] = completed;
  size_t failed = 0;
  if (const Json* errors = field_or_null(run, "errors")) {
    if (!errors->is_array())
      throw InputError(where + ".errors", errors->dump().substr(0, 80), "a list of texts");
    for (const Json& e : *errors)
      if (!e.is_string() || !e.get<std::string>().empty()) ++failed;
  }
  notes.push_back(
      failed > 0
          ? fmt::format("{}: {} of {} requests failed; the records are of the {} completed", where,
                        failed, failed + size_t(completed), completed)
          : fmt::format("{}: requests: the {} completed (the result keeps no prompt count)", where,
                        completed));

  // Lengths: each request's (--output-details), else the random dataset's, else the flags.
  auto lengths = [&](const char* list_key, const char* len_key, const char* total_key,
                     const std::optional<std::string>& flag, const char* option,
                     bool skip_zeros) -> Json {
    if (const Json* l = field_or_null(run, list_key))
      return lengths_from_list(*l, where + "." + list_key, flag, option, skip_zeros, notes);
    std::optional<Json> stated;
    if (random) {
      const double ratio =
          file_number(require_field(run, "random_range_ratio", where), where + ".random_range_ratio");
      if (ratio > 1)
        throw InputError(where + ".random_range_ratio", fmt::format("{}", ratio), "a ratio in [0, 1]");
      stated = random_lengths(run, len_key, where, ratio, notes);
    } else if (std::string(len_key) == "random_output_len") {
      if (const Json* s = field_or_null(run, "sharegpt_output_len"))
        stated = Json(file_count(*s, where + ".sharegpt_output_len", 1));
    }
    if (stated && flag)
      throw InputError(option, *flag,
                       fmt::format("no {}: {} states the lengths ({})", option, where,
                                   stated->dump()));
    Json l = stated ? *stated
                    : lengths_from_flag(flag, option,
                                        fmt::format("{} ran the {} dataset and holds no {} (run "
                                                    "with --output-details to keep each "
                                                    "request's): give the lengths it used: {} N, "
                                                    "uniform:LO,HI or lognormal:MEAN,CV",
                                                    where, *dataset, list_key, option));
    if (const Json* t = field_or_null(run, total_key)) {
      const double file_mean = file_number(*t, where + "." + total_key) / double(completed);
      const double mean = l.is_number() ? l.get<double>() : l.at("mean").get<double>();
      if (std::fabs(file_mean - mean) > 0.05 * mean)
        notes.push_back(fmt::format(
            "{}: {} = {} over {} completed requests is a mean of {:.6g} tokens, the records' "
            "lengths a mean of {:.6g}",
            where, total_key, t->dump(), completed, file_mean, mean));
    }
    return l;
  };
  workload["input_tokens"] =
      lengths("input_lens", "random_input_len", "total_input_tokens", o.input, "--input", false);
  workload["output_tokens"] =
      lengths("output_lens", "random_output_len", "total_output_tokens", o.output, "--output",
              failed > 0);

  const auto backend = opt_string(run, "backend", where);
  Json base = record_base(
      o, where, std::nullopt, "",
      fmt::format("{} does not name the engine that served (backend '{}' is the client's request "
                  "format): give --engine sglang, vllm, lmdeploy ...",
                  where, backend.value_or("?")),
      catalog, notes);
  base["workload"] = workload;
  base["source"] = fmt::format("sglang bench_serving result {} ({})", where, kSchema);
  const std::string id = fmt::format("{}@{}", backend.value_or("sglang-bench-serving"), where);

  std::set<std::string> used = {"accept_length",     "dataset_name",       "completed",
                                "request_rate",      "max_concurrency",    "errors",
                                "input_lens",        "output_lens",        "random_input_len",
                                "random_output_len", "random_range_ratio", "sharegpt_output_len",
                                "backend"};
  auto add = [&](const std::string& key, const char* name, const char* statistic,
                 const char* unit) {
    const Json* v = field_or_null(run, key);
    if (!v) return;
    used.insert(key);
    add_metric_record(base, id + "/" + key, where, key, file_number(*v, where + "." + key), name,
                      statistic, unit, ZeroValue::noted, out, notes);
  };
  for (const auto& [family, name] : kLatencies)
    for (const char* stat : kStatistics) add(fmt::format("{}_{}_ms", stat, family), name, stat, "ms");
  add("output_throughput", "output_throughput", "value", "tokens/s");
  add("total_throughput", "total_throughput", "value", "tokens/s");
  add("request_throughput", "request_throughput", "value", "requests/s");

  // The rest of the schema: listed as not imported; a field outside it is refused by name.
  static const std::set<std::string> kResultFields = {
      "duration",          "total_input_tokens", "total_output_tokens",
      "total_output_tokens_retokenized", "input_throughput", "concurrency",
      "ttfts",             "itls",               "generated_texts"};
  std::vector<std::string> not_imported;
  for (const auto& [k, v] : run.items()) {
    if (used.count(k)) continue;
    if (kResultFields.count(k) || latency_key(k))
      not_imported.push_back(k);
    else
      throw InputError(where + "." + k, v.dump().substr(0, 80),
                       fmt::format("a field of {} (another version's field: tell memwall which "
                                   "version wrote it)",
                                   kSchema));
  }
  if (!not_imported.empty())
    notes.push_back(fmt::format(
        "{}: not imported (not a memwall metric, a per-request list, or a statistic outside "
        "mean, median, p90, p95, p99): {}",
        where, fmt::join(not_imported, ", ")));
}

}  // namespace

std::vector<Json> import_sglang_serve(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes) {
  std::vector<Json> out;
  for (const auto& [run, w] : json_lines(text, where, /*python_tokens=*/true))
    sglang_run(run, w, o, catalog, out, notes);
  return out;
}

}  // namespace memwall::measure::detail
