#include "memwall/monitor/engine_metrics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <regex>
#include <tuple>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/monitor/view.h"

namespace memwall::monitor {
namespace {

// Bucket counts are float sums in the exposition: differences this small are rounding, as
// PromQL's histogram_quantile treats them (prometheus/prometheus@8035c04 promql/quantile.go,
// smallDeltaTolerance = 1e-12, relative).
constexpr double kRelativeTolerance = 1e-9;

// Each reading and the metric type that feeds it.
struct ReadingType {
  const char* key;
  EngineMetric::Type type;
};
constexpr ReadingType kReadings[] = {
    {"running_requests", EngineMetric::Type::gauge},
    {"waiting_requests", EngineMetric::Type::gauge},
    {"kv_cache_usage_ratio", EngineMetric::Type::gauge},
    {"prompt_tokens", EngineMetric::Type::counter},
    {"generation_tokens", EngineMetric::Type::counter},
    {"finished_requests", EngineMetric::Type::counter},
    {"preemptions", EngineMetric::Type::counter},
    {"ttft_seconds", EngineMetric::Type::histogram},
    {"inter_token_seconds", EngineMetric::Type::histogram},
    {"e2e_seconds", EngineMetric::Type::histogram},
    {"prompt_length_tokens", EngineMetric::Type::histogram},
    {"generation_length_tokens", EngineMetric::Type::histogram},
};

const ReadingType* reading_type(const std::string& r) {
  for (const auto& t : kReadings)
    if (r == t.key) return &t;
  return nullptr;
}

EngineMetric::Type type_of(const std::string& t, const std::string& where) {
  if (t == "gauge") return EngineMetric::Type::gauge;
  if (t == "counter") return EngineMetric::Type::counter;
  if (t == "histogram") return EngineMetric::Type::histogram;
  throw InputError(where + ".type", t, "gauge, counter or histogram");
}

std::string labels_text(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (k == "__name__") continue;
    out += fmt::format("{}{}=\"{}\"", out.empty() ? "" : ",", k, v);
  }
  return "{" + out + "}";
}

// The part of a histogram a series is.
enum class Part { value, bucket, sum, count };

struct NameRef {
  const EngineMetric* metric;
  Part part;
};

std::map<std::string, NameRef> name_index(const EngineTable& t) {
  std::map<std::string, NameRef> out;
  for (const auto& m : t.metrics) {
    if (m.type != EngineMetric::Type::histogram) {
      out[m.name] = {&m, Part::value};
      continue;
    }
    out[m.name + "_bucket"] = {&m, Part::bucket};
    out[m.name + "_sum"] = {&m, Part::sum};
    out[m.name + "_count"] = {&m, Part::count};
  }
  return out;
}

// A counter's increase over its points, a reset (a fall) counting from 0 as PromQL's increase()
// does, without its extrapolation to the window's edges. Empty with fewer than two values.
struct Increase {
  double value = 0, first_s = 0, last_s = 0;
};

std::optional<Increase> increase_of(const std::vector<std::pair<double, double>>& points,
                                    const std::string& where) {
  std::optional<double> prev;
  Increase inc;
  int n = 0;
  for (const auto& [t, v] : points) {
    if (std::isnan(v)) continue;
    if (!std::isfinite(v) || v < 0)
      throw InputError(where, fmt::format("{}", v), "a counter value, finite and >= 0");
    if (!prev)
      inc.first_s = t;
    else
      inc.value += v >= *prev ? v - *prev : v;
    inc.last_s = t;
    prev = v;
    ++n;
  }
  if (n < 2) return std::nullopt;
  return inc;
}

// One (job, set, model) while its series are read.
struct HistogramSeries {
  std::map<double, double> buckets;  // le -> increase
  std::optional<double> sum, count;
  std::string where;
};

struct ReadingAcc {
  int rank = INT_MAX;
  std::vector<std::pair<const EngineMetric*, const PromSeries*>> series;
};

struct PointAcc {
  EngineOperatingPoint point;
  std::map<std::string, ReadingAcc> readings;  // reading -> the series of its best-ranked name
};

bool is_ratio(const std::string& reading) {
  return reading == "kv_cache_usage_ratio";
}

// A gauge's mean over time: at each time the sum over the job's series (the mean for a ratio),
// then the mean of those.
std::optional<double> gauge_mean(const ReadingAcc& r, const std::string& reading) {
  std::map<double, std::pair<double, int>> at;
  for (const auto& [m, s] : r.series) {
    const std::string where = m->name + labels_text(s->labels);
    for (const auto& [t, v] : s->points) {
      if (std::isnan(v)) continue;
      if (!std::isfinite(v) || v < 0)
        throw InputError(where, fmt::format("{}", v), "a gauge value, finite and >= 0");
      if (is_ratio(reading) && v > 1 + kRelativeTolerance)
        throw InputError(where, fmt::format("{}", v), "a usage ratio in [0, 1]");
      at[t].first += v;
      ++at[t].second;
    }
  }
  if (at.empty()) return std::nullopt;
  double total = 0;
  for (const auto& [t, sv] : at) total += is_ratio(reading) ? sv.first / sv.second : sv.first;
  return total / double(at.size());
}

// A counter's summed increase over the job's series and the span it covers.
std::optional<Increase> counter_increase(const ReadingAcc& r) {
  std::optional<Increase> out;
  for (const auto& [m, s] : r.series) {
    const auto inc = increase_of(s->points, m->name + labels_text(s->labels));
    if (!inc) continue;
    if (!out) {
      out = inc;
      continue;
    }
    out->value += inc->value;
    out->first_s = std::min(out->first_s, inc->first_s);
    out->last_s = std::max(out->last_s, inc->last_s);
  }
  return out;
}

std::optional<double> per_second(const std::optional<Increase>& inc) {
  if (!inc || !(inc->last_s > inc->first_s)) return std::nullopt;
  return inc->value / (inc->last_s - inc->first_s);
}

// A histogram's increases over the window, summed over the job's series bucket by bucket, checked
// for the contradictions a histogram cannot hold.
HistogramSummary histogram_summary(const ReadingAcc& r) {
  std::map<std::string, HistogramSeries> by_labels;
  for (const auto& [m, s] : r.series) {
    std::map<std::string, std::string> rest = s->labels;
    rest.erase("__name__");
    const auto le_it = rest.find("le");
    const std::string name = s->labels.at("__name__");
    const std::string where = name + labels_text(s->labels);
    std::string le;
    if (le_it != rest.end()) le = le_it->second, rest.erase(le_it);
    HistogramSeries& h = by_labels[m->name + labels_text(rest)];
    h.where = m->name + labels_text(rest);
    const auto inc = increase_of(s->points, where);
    const bool bucket = name.size() > 7 && name.compare(name.size() - 7, 7, "_bucket") == 0;
    if (bucket) {
      if (le.empty()) throw InputError(where, "no le label", "a bucket series with its le bound");
      double bound = 0;
      try {
        bound = parse_sample_value(le, where + " le");
      } catch (const InputError&) {
        throw InputError(where + " le", le, "a bucket bound: a number or +Inf");
      }
      if (std::isnan(bound))
        throw InputError(where + " le", le, "a bucket bound: a number or +Inf");
      if (inc) h.buckets[bound] += inc->value;
    } else if (name.compare(name.size() - 4, 4, "_sum") == 0) {
      if (inc) h.sum = h.sum.value_or(0) + inc->value;
    } else if (inc) {
      h.count = h.count.value_or(0) + inc->value;
    }
  }
  std::map<double, double> buckets;
  double sum = 0, count = 0;
  bool have_sum = false, have_count = false;
  for (const auto& [key, h] : by_labels) {
    if (!h.buckets.empty() && !std::isinf(h.buckets.rbegin()->first))
      throw InputError(h.where, "no le=\"+Inf\" bucket",
                       "a histogram with its +Inf bucket (the count of every observation)");
    double prev = 0, prev_le = 0;
    bool first = true;
    for (const auto& [le, c] : h.buckets) {
      if (!first && c < prev - kRelativeTolerance * std::max(1.0, prev))
        throw InputError(
            h.where,
            fmt::format("{} observations up to le={} but {} up to le={}", prev, prev_le, c, le),
            "cumulative bucket counts that do not fall as le rises");
      prev = c, prev_le = le, first = false;
      buckets[le] += c;
    }
    if (h.count && !h.buckets.empty()) {
      const double inf = h.buckets.rbegin()->second;
      if (std::abs(*h.count - inf) > kRelativeTolerance * std::max(1.0, inf))
        throw InputError(h.where,
                         fmt::format("_count rose by {} but the +Inf bucket by {}", *h.count, inf),
                         "a _count equal to its +Inf bucket");
    }
    if (h.sum) sum += *h.sum, have_sum = true;
    if (h.count) count += *h.count, have_count = true;
  }
  HistogramSummary out;
  if (!have_count && !buckets.empty()) count = buckets.rbegin()->second, have_count = true;
  out.observations = count;
  if (have_sum && have_count && count > 0) out.mean = sum / count;
  std::vector<std::pair<double, double>> list(buckets.begin(), buckets.end());
  out.p50 = bucket_quantile(0.5, list);
  out.p99 = bucket_quantile(0.99, list);
  return out;
}

}  // namespace

const std::vector<std::string>& engine_readings() {
  static const std::vector<std::string> readings = [] {
    std::vector<std::string> out;
    for (const auto& t : kReadings) out.push_back(t.key);
    return out;
  }();
  return readings;
}

EngineTable engine_table_from_json(const Json& j, const ExporterTable& exporters,
                                   const std::string& where) {
  EngineTable t;
  t.job_labels = exporters.job_labels;
  if (!j.is_object() || !j.contains("sets") || !j.at("sets").is_array())
    throw InputError(where + ".sets", "missing", "a list of engine name sets");
  static const std::regex metric_name("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
  int rank = 0;
  for (const auto& s : j.at("sets")) {
    const std::string id = s.at("id").get<std::string>();
    const std::string engine = s.at("engine").get<std::string>();
    t.sets.push_back(id);
    for (const auto& m : s.at("metrics")) {
      const std::string mw = fmt::format("{}.sets[{}].metrics[{}]", where, id, rank);
      EngineMetric e;
      e.set = id;
      e.engine = engine;
      e.name = m.at("name").get<std::string>();
      e.reading = m.at("reading").get<std::string>();
      e.type = type_of(m.at("type").get<std::string>(), mw);
      if (!std::regex_match(e.name, metric_name))
        throw InputError(mw + ".name", e.name, "a Prometheus metric name");
      const ReadingType* rt = reading_type(e.reading);
      if (!rt) throw InputError::unknown_name(mw + ".reading", e.reading, engine_readings());
      if (rt->type != e.type)
        throw InputError(mw + ".type", m.at("type").get<std::string>(),
                         fmt::format("the type of {}: {}", e.reading,
                                     rt->type == EngineMetric::Type::gauge     ? "gauge"
                                     : rt->type == EngineMetric::Type::counter ? "counter"
                                                                               : "histogram"));
      e.rank = rank++;
      t.metrics.push_back(e);
    }
  }
  return t;
}

const EngineTable& engine_table() {
  static const EngineTable table = [] {
    for (const auto& f : data::embedded_files())
      if (f.path == "monitor/exporters.json") {
        const Json doc = parse_document(f.content, "built-in data/monitor/exporters.json");
        return engine_table_from_json(doc.at("exporters").at("engines"), exporter_table(),
                                      "exporters.engines");
      }
    throw InfeasibleError("built-in data/monitor/exporters.json is missing from this build");
  }();
  return table;
}

std::string engine_query(const EngineTable& t, const std::string& job_selector) {
  // fleet_query checks the selector and writes the braces; the names are the engines'.
  ExporterTable names;
  for (const auto& [name, ref] : name_index(t)) {
    ExporterMetric m;
    m.name = name;
    names.metrics.push_back(m);
  }
  return fleet_query(names, job_selector);
}

std::optional<double> bucket_quantile(double q, std::vector<std::pair<double, double>> buckets) {
  std::sort(buckets.begin(), buckets.end());
  if (buckets.size() < 2 || !std::isinf(buckets.back().first)) return std::nullopt;
  const double observations = buckets.back().second;
  if (!(observations > 0)) return std::nullopt;
  const double rank = q * observations;
  size_t b = 0;
  while (b < buckets.size() - 1 && buckets[b].second < rank) ++b;
  if (b == buckets.size() - 1) return buckets[buckets.size() - 2].first;
  if (b == 0 && buckets[0].first <= 0) return buckets[0].first;
  double start = 0, count = buckets[b].second, r = rank;
  if (b > 0) {
    start = buckets[b - 1].first;
    count -= buckets[b - 1].second;
    r -= buckets[b - 1].second;
  }
  if (!(count > 0)) return buckets[b].first;
  return start + (buckets[b].first - start) * (r / count);
}

std::vector<EngineOperatingPoint> engine_points_from_series(const std::vector<PromSeries>& series,
                                                            const EngineTable& t) {
  const auto index = name_index(t);
  std::map<std::tuple<std::string, std::string, std::string>, PointAcc> points;
  for (const auto& s : series) {
    const auto name_it = s.labels.find("__name__");
    if (name_it == s.labels.end()) continue;
    const auto ref = index.find(name_it->second);
    if (ref == index.end()) continue;
    const EngineMetric& m = *ref->second.metric;
    const std::string job = job_of(s.labels, t.job_labels);
    const auto model_it = s.labels.find("model_name");
    const std::string model = model_it == s.labels.end() ? "" : model_it->second;
    PointAcc& p = points[{job, m.set, model}];
    p.point.job = job;
    p.point.set = m.set;
    p.point.engine = m.engine;
    p.point.model = model;
    p.point.pod = pod_of(s.labels, t.job_labels);
    collect_deployment_labels(s.labels, p.point.deployment_labels);
    ReadingAcc& r = p.readings[m.reading];
    if (m.rank < r.rank) r = ReadingAcc{m.rank, {}};
    if (m.rank == r.rank) r.series.emplace_back(&m, &s);
  }
  std::vector<EngineOperatingPoint> out;
  for (auto& entry : points) {
    auto& acc = entry.second;  // a named reference: the lambdas below capture it (clang 14 cannot
                               // capture a structured binding)
    EngineOperatingPoint& p = acc.point;
    bool any_time = false;
    for (const auto& [reading, r] : acc.readings)
      for (const auto& [m, s] : r.series) {
        p.names.insert(m->name);
        for (const auto& [time, v] : s->points) {
          if (std::isnan(v)) continue;
          p.first_s = any_time ? std::min(p.first_s, time) : time;
          p.last_s = any_time ? std::max(p.last_s, time) : time;
          any_time = true;
        }
      }
    auto reading = [&](const char* name) -> const ReadingAcc* {
      const auto it = acc.readings.find(name);
      return it == acc.readings.end() ? nullptr : &it->second;
    };
    auto gauge = [&](const char* name) {
      const ReadingAcc* r = reading(name);
      return r ? gauge_mean(*r, name) : std::nullopt;
    };
    auto counter = [&](const char* name) {
      const ReadingAcc* r = reading(name);
      return r ? counter_increase(*r) : std::nullopt;
    };
    auto histogram = [&](const char* name) {
      const ReadingAcc* r = reading(name);
      return r ? histogram_summary(*r) : HistogramSummary{};
    };
    p.running_requests = gauge("running_requests");
    p.waiting_requests = gauge("waiting_requests");
    p.kv_cache_usage_ratio = gauge("kv_cache_usage_ratio");
    const auto prompt = counter("prompt_tokens");
    const auto generation = counter("generation_tokens");
    const auto finished = counter("finished_requests");
    p.prompt_tokens_per_s = per_second(prompt);
    p.generation_tokens_per_s = per_second(generation);
    p.finished_requests_per_s = per_second(finished);
    if (const auto pre = counter("preemptions")) p.preemptions = pre->value;
    if (finished && finished->value > 0) {
      if (prompt) p.prompt_tokens_per_request = prompt->value / finished->value;
      if (generation) p.generation_tokens_per_request = generation->value / finished->value;
    }
    p.ttft = histogram("ttft_seconds");
    p.inter_token = histogram("inter_token_seconds");
    p.e2e = histogram("e2e_seconds");
    p.mean_prompt_tokens = histogram("prompt_length_tokens").mean;
    p.mean_generation_tokens = histogram("generation_length_tokens").mean;
    out.push_back(std::move(p));
  }
  return out;
}

EngineWindow fetch_engines(const FleetOptions& o) {
  EngineWindow w;
  w.url = o.url;
  w.query = engine_query(engine_table(), o.job_selector);
  w.window_s = o.window.value();
  PrometheusClient client(o.url, o.client);
  const double now = o.end_time_s.value_or(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  std::vector<PromSeries> series;
  w.end_s = now;
  if (w.window_s == 0) {
    w.start_s = now;
    series = client.query(w.query, now);
  } else {
    w.step_s = range_step_s(o.window, o.step);
    w.start_s = now - w.window_s;
    series = client.query_range(w.query, w.start_s, w.end_s, w.step_s);
  }
  w.points = engine_points_from_series(series, engine_table());
  return w;
}

namespace {

Json opt(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json to_json(const HistogramSummary& l) {
  return {{"mean_s", opt(l.mean)},
          {"p50_s", opt(l.p50)},
          {"p99_s", opt(l.p99)},
          {"observations", l.observations}};
}

std::string value_or_unknown(const std::optional<double>& v, const char* format, double scale = 1) {
  return v ? fmt::format(fmt::runtime(format), *v * scale) : std::string("unknown");
}

std::string latency_line(const char* label, const HistogramSummary& l) {
  return fmt::format("  {:<20} mean {}, p50 {}, p99 {} ({:.0f} observations)\n", label,
                     value_or_unknown(l.mean, "{:.1f} ms", 1e3),
                     value_or_unknown(l.p50, "{:.1f} ms", 1e3),
                     value_or_unknown(l.p99, "{:.1f} ms", 1e3), l.observations);
}

}  // namespace

Json to_json(const EngineOperatingPoint& p) {
  return {{"job", p.job},
          {"engine", p.engine},
          {"names", p.names},
          {"model", p.model},
          {"first_s", p.first_s},
          {"last_s", p.last_s},
          {"running_requests_mean", opt(p.running_requests)},
          {"waiting_requests_mean", opt(p.waiting_requests)},
          {"kv_cache_usage_ratio_mean", opt(p.kv_cache_usage_ratio)},
          {"prompt_tokens_per_s", opt(p.prompt_tokens_per_s)},
          {"generation_tokens_per_s", opt(p.generation_tokens_per_s)},
          {"finished_requests_per_s", opt(p.finished_requests_per_s)},
          {"preemptions", opt(p.preemptions)},
          {"ttft", to_json(p.ttft)},
          {"inter_token", to_json(p.inter_token)},
          {"e2e", to_json(p.e2e)},
          {"mean_prompt_tokens", opt(p.mean_prompt_tokens)},
          {"mean_generation_tokens", opt(p.mean_generation_tokens)},
          {"prompt_tokens_per_request", opt(p.prompt_tokens_per_request)},
          {"generation_tokens_per_request", opt(p.generation_tokens_per_request)}};
}

std::string format_operating_point(const EngineOperatingPoint& p) {
  std::string out = fmt::format(
      "job {}: {}{} over {} to {}\n", p.job.empty() ? "(no job labels)" : p.job, p.engine,
      p.model.empty() ? "" : ", model " + p.model, format_utc(p.first_s), format_utc(p.last_s));
  out += fmt::format("  {:<20} {} running (mean), {} waiting, KV cache {}\n", "requests",
                     value_or_unknown(p.running_requests, "{:.1f}"),
                     value_or_unknown(p.waiting_requests, "{:.1f}"),
                     value_or_unknown(p.kv_cache_usage_ratio, "{:.0f} %", 100));
  out += fmt::format("  {:<20} prompt {}, generation {}; {} finished requests/s, {} preemptions\n",
                     "tokens/s", value_or_unknown(p.prompt_tokens_per_s, "{:.1f}"),
                     value_or_unknown(p.generation_tokens_per_s, "{:.1f}"),
                     value_or_unknown(p.finished_requests_per_s, "{:.2f}"),
                     value_or_unknown(p.preemptions, "{:.0f}"));
  out += latency_line("TTFT", p.ttft);
  out += latency_line("TPOT (inter-token)", p.inter_token);
  out += latency_line("e2e latency", p.e2e);
  out += fmt::format("  {:<20} prompt {}, generation {} tokens per finished request\n", "lengths",
                     value_or_unknown(p.mean_prompt_tokens, "{:.0f}"),
                     value_or_unknown(p.mean_generation_tokens, "{:.0f}"));
  return out;
}

}  // namespace memwall::monitor
