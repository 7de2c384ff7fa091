#include "memwall/monitor/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <regex>

#include "memwall/core/document.h"
#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/monitor/recording.h"
#include "memwall/monitor/summary.h"
#include "memwall/monitor/view.h"

namespace memwall::monitor {
namespace {

constexpr size_t kMaxJobSelectorChars = 1000;
// Above this many samples the fleet is refused (the recording limit of a local session).
constexpr size_t kMaxFleetSamples = kMaxRecordingSamples;
// Range queries: about 240 points per series (one every 3.75 s over the default 15 min), far
// below the 11,000 points per series Prometheus accepts (prometheus/prometheus
// web/api/v1/api.go, "exceeded maximum resolution of 11,000 points per timeseries").
constexpr double kPointsPerSeries = 240;

std::vector<std::string> string_list(const Json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array())
    throw InputError(where + "." + key, it == j.end() ? "missing" : it->dump(),
                     "a list of label names");
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) throw InputError(where + "." + key, v.dump(), "label names (strings)");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool is_reading(const std::string& r) {
  if (r == "throttle_reasons" || r == "name") return true;
  for (const auto& f : numeric_fields())
    if (r == f.key) return true;
  return false;
}

const NumericField* numeric_field(const std::string& key) {
  for (const auto& f : numeric_fields())
    if (key == f.key) return &f;
  return nullptr;
}

ExporterMetric::Kind kind_of(const Json& m, const std::string& where) {
  if (m.value("combine", std::string()) == "sum") return ExporterMetric::Kind::sum;
  const std::string k = m.value("kind", std::string("value"));
  if (k == "value") return ExporterMetric::Kind::value;
  if (k == "bitmask") return ExporterMetric::Kind::bitmask;
  if (k == "reason_flag") return ExporterMetric::Kind::reason_flag;
  if (k == "identity") return ExporterMetric::Kind::identity;
  throw InputError(where + ".kind", k, "value, bitmask, reason_flag or identity");
}

std::string first_label(const std::map<std::string, std::string>& labels,
                        const std::vector<std::string>& names) {
  for (const auto& n : names) {
    const auto it = labels.find(n);
    if (it != labels.end() && !it->second.empty()) return it->second;
  }
  return "";
}

std::string labels_text(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (k == "__name__") continue;
    out += fmt::format("{}{}=\"{}\"", out.empty() ? "" : ",", k, v);
  }
  return "{" + out + "}";
}

// One reading of one GPU at one time while the series are read.
struct Slot {
  int rank = INT_MAX;
  double sum = 0;
  int count = 0;
  void add(int r, double v) {
    if (r < rank)
      *this = Slot{r, v, 1};
    else if (r == rank)
      sum += v, ++count;
  }
};

struct PointAcc {
  std::map<std::string, Slot> values;
  std::map<std::string, std::map<std::string, double>> sums;  // reading -> name -> value
  std::optional<uint64_t> reasons;
  int reasons_rank = INT_MAX;
};

struct GpuAcc {
  FleetGpu gpu;
  std::string uuid, name;
  std::map<double, PointAcc> points;
};

uint64_t reason_bit(const std::string& reason, const std::string& where) {
  for (const auto& r : throttle_reasons())
    if (reason == r.name) return r.bit;
  std::vector<std::string> known;
  for (const auto& r : throttle_reasons()) known.push_back(r.name);
  throw InputError::unknown_name(where + " reason", reason, known);
}

// The sum readings of a point: known when every required name of the set is present.
std::optional<double> total_of(const ExporterTable& t, const std::string& reading,
                               const std::map<std::string, double>& parts) {
  std::string set;
  for (const auto& m : t.metrics)
    if (m.reading == reading && m.kind == ExporterMetric::Kind::sum && parts.count(m.name)) {
      set = m.set;
      break;
    }
  double total = 0;
  for (const auto& m : t.metrics) {
    if (m.set != set || m.reading != reading || m.kind != ExporterMetric::Kind::sum) continue;
    const auto it = parts.find(m.name);
    if (it == parts.end()) {
      if (!m.optional) return std::nullopt;
      continue;
    }
    total += it->second;
  }
  return total;
}

}  // namespace

ExporterTable exporter_table_from_json(const Json& j, const std::string& where) {
  ExporterTable t;
  if (!j.is_object()) throw InputError(where, j.dump().substr(0, 40), "an object");
  const Json& labels = j.at("labels");
  const std::string lw = where + ".labels";
  t.node_labels = string_list(labels, "node", lw);
  t.uuid_labels = string_list(labels, "gpu_uuid", lw);
  t.index_labels = string_list(labels, "gpu_index", lw);
  t.instance_labels = string_list(labels, "gpu_instance", lw);
  t.name_labels = string_list(labels, "gpu_name", lw);
  for (const auto& job : labels.at("job"))
    t.job_labels.emplace_back(job.at("name").get<std::string>(),
                              string_list(job, "labels", lw + ".job"));
  static const std::regex metric_name("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
  int rank = 0;
  for (const auto& s : j.at("sets")) {
    const std::string id = s.at("id").get<std::string>();
    t.sets.push_back(id);
    for (const auto& m : s.at("metrics")) {
      const std::string mw = fmt::format("{}.sets[{}].metrics[{}]", where, id, rank);
      ExporterMetric e;
      e.set = id;
      e.name = m.at("name").get<std::string>();
      e.reading = m.at("reading").get<std::string>();
      if (!std::regex_match(e.name, metric_name))
        throw InputError(mw + ".name", e.name, "a Prometheus metric name");
      if (!is_reading(e.reading))
        throw InputError::unknown_name(mw + ".reading", e.reading, sample_keys());
      e.kind = kind_of(m, mw);
      e.optional = m.value("optional", false);
      e.scale = m.at("scale").get<double>();
      if (!(e.scale > 0) || !std::isfinite(e.scale))
        throw InputError(mw + ".scale", fmt::format("{}", e.scale), "a positive factor");
      if (const auto it = m.find("match"); it != m.end())
        for (const auto& [k, v] : it->items()) e.match[k] = v.get<std::string>();
      e.rank = rank++;
      t.metrics.push_back(e);
    }
  }
  return t;
}

const ExporterTable& exporter_table() {
  static const ExporterTable table = [] {
    for (const auto& f : data::embedded_files())
      if (f.path == "monitor/exporters.json") {
        const Json doc = parse_document(f.content, "built-in data/monitor/exporters.json");
        return exporter_table_from_json(doc.at("exporters"), "exporters");
      }
    throw InfeasibleError("built-in data/monitor/exporters.json is missing from this build");
  }();
  return table;
}

std::string fleet_query(const ExporterTable& t, const std::string& job_selector) {
  if (job_selector.size() > kMaxJobSelectorChars ||
      job_selector.find_first_of("{}") != std::string::npos)
    throw InputError("--job", job_selector,
                     fmt::format("label matchers without braces, e.g. namespace=\"llm\",pod=~"
                                 "\"vllm-.*\" (at most {} characters)",
                                 kMaxJobSelectorChars));
  std::set<std::string> names;
  for (const auto& m : t.metrics) names.insert(m.name);
  std::string alternation;
  for (const auto& n : names) alternation += (alternation.empty() ? "" : "|") + n;
  std::string q = "{__name__=~\"" + alternation + "\"";
  if (job_selector.find_first_not_of(" \t") != std::string::npos) q += "," + job_selector;
  return q + "}";
}

std::vector<FleetGpu> fleet_from_series(const std::vector<PromSeries>& series,
                                        const ExporterTable& t) {
  std::map<std::tuple<std::string, std::string, std::string>, GpuAcc> gpus;
  size_t points = 0;
  for (const auto& s : series) {
    const auto name_it = s.labels.find("__name__");
    if (name_it == s.labels.end()) continue;  // not a plain series of a mapped name
    const std::string& name = name_it->second;
    std::vector<const ExporterMetric*> mapped;
    for (const auto& m : t.metrics) {
      if (m.name != name) continue;
      bool matches = true;
      for (const auto& [k, v] : m.match) {
        const auto it = s.labels.find(k);
        matches = matches && it != s.labels.end() && it->second == v;
      }
      if (matches) mapped.push_back(&m);
    }
    if (mapped.empty()) continue;  // e.g. an AMD clock of a type memwall does not read
    const std::string where = name + labels_text(s.labels);
    const std::string uuid = first_label(s.labels, t.uuid_labels);
    const std::string index = first_label(s.labels, t.index_labels);
    if (uuid.empty() && index.empty())
      throw InputError(where, "no GPU label",
                       "a series with one of the GPU labels " +
                           fmt::format("{}", fmt::join(t.uuid_labels, ", ")) + ", " +
                           fmt::format("{}", fmt::join(t.index_labels, ", ")));
    const std::string job = job_of(s.labels, t.job_labels);
    const std::string node = first_label(s.labels, t.node_labels);
    std::string gpu = uuid.empty() ? index : uuid;
    if (const auto mig = first_label(s.labels, t.instance_labels); !mig.empty())
      gpu += "/mig " + mig;
    GpuAcc& g = gpus[{job, node, gpu}];
    g.gpu.node = node;
    g.gpu.gpu = gpu;
    g.gpu.job = job;
    g.gpu.pod = pod_of(s.labels, t.job_labels);
    collect_deployment_labels(s.labels, g.gpu.deployment_labels);
    if (!index.empty() && index.size() < 6 &&
        index.find_first_not_of("0123456789") == std::string::npos)
      g.gpu.device_index = std::stoi(index);
    if (!uuid.empty()) g.uuid = uuid;
    if (const auto n = first_label(s.labels, t.name_labels); !n.empty()) g.name = n;
    for (const ExporterMetric* m : mapped) {
      g.gpu.sources.insert(m->set);
      if (m->kind == ExporterMetric::Kind::identity) continue;
      for (const auto& [time, raw] : s.points) {
        if (std::isnan(raw)) continue;  // blank: the reading stays unknown
        const double v = raw * m->scale;
        const std::string field = where + ": " + m->reading;
        PointAcc& p = g.points[time];
        if (m->kind == ExporterMetric::Kind::reason_flag) {
          const uint64_t bit =
              reason_bit(s.labels.count("reason") ? s.labels.at("reason") : "", where);
          if (raw != 0 && raw != 1) throw InputError(field, fmt::format("{}", raw), "0 or 1");
          if (m->rank < p.reasons_rank) p.reasons = 0, p.reasons_rank = m->rank;
          if (m->rank == p.reasons_rank && raw == 1) *p.reasons |= bit;
          continue;
        }
        if (m->kind == ExporterMetric::Kind::bitmask) {
          if (!(raw >= 0) || raw > 9007199254740992.0 || raw != std::floor(raw))
            throw InputError(field, fmt::format("{}", raw), "a clock-event bitmask (an integer)");
          if (m->rank < p.reasons_rank)
            p.reasons = static_cast<uint64_t>(raw), p.reasons_rank = m->rank;
          continue;
        }
        const NumericField* f = numeric_field(m->reading);
        if (!std::isfinite(v) || v < 0 || v > f->max)
          throw InputError(
              field, fmt::format("{}", raw),
              fmt::format("{} after the factor {} from the exporter's unit", f->allowed, m->scale));
        if (m->kind == ExporterMetric::Kind::sum)
          p.sums[m->reading][m->name] = v;
        else
          p.values[m->reading].add(m->rank, v);
      }
    }
    points += s.points.size();
    if (points > kMaxFleetSamples)
      throw InfeasibleError(
          fmt::format("more than {} samples in the answer; narrow the query "
                      "with --job or a shorter --window",
                      kMaxFleetSamples));
  }

  std::vector<FleetGpu> out;
  for (auto& [key, g] : gpus) {
    FleetGpu f = std::move(g.gpu);
    const int index = static_cast<int>(out.size());
    for (const auto& [time, p] : g.points) {
      GpuSample s;
      s.time_s = time;
      s.index = index;
      if (!g.uuid.empty()) s.uuid = g.uuid;
      if (!g.name.empty()) s.name = g.name;
      for (const auto& nf : numeric_fields()) {
        if (const auto it = p.values.find(nf.key); it != p.values.end())
          s.*nf.member = it->second.sum / it->second.count;
        else if (const auto st = p.sums.find(nf.key); st != p.sums.end())
          s.*nf.member = total_of(t, nf.key, st->second);
      }
      s.throttle_reasons = p.reasons;
      f.samples.push_back(std::move(s));
    }
    if (f.samples.empty()) continue;  // only identity series or blanks
    out.push_back(std::move(f));
  }
  // Re-number: GPUs dropped above leave no gaps.
  for (size_t i = 0; i < out.size(); ++i)
    for (auto& s : out[i].samples) s.index = static_cast<int>(i);
  return out;
}

Seconds parse_window(const std::string& text, const std::string& field) {
  static const std::regex re(R"(^([0-9]+(\.[0-9]+)?)(s|m|h|d)?$)");
  std::smatch m;
  const std::string allowed = "a duration such as 90s, 15m, 1h, 2d or plain seconds, up to 30d";
  if (text.size() > 20 || !std::regex_match(text, m, re)) throw InputError(field, text, allowed);
  const double n = std::stod(m[1].str());
  const std::string unit = m[3].str();
  const double s = n * (unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : 1);
  if (s > 30 * 86400) throw InputError(field, text, allowed);
  return Seconds(s);
}

double range_step_s(Seconds window, const std::optional<Seconds>& step) {
  return step ? step->value() : std::max(1.0, window.value() / kPointsPerSeries);
}

std::string job_of(
    const std::map<std::string, std::string>& labels,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& job_labels) {
  std::string job;
  for (const auto& [canonical, aliases] : job_labels)
    if (const auto v = first_label(labels, aliases); !v.empty())
      job += fmt::format("{}{}={}", job.empty() ? "" : ",", canonical, v);
  return job;
}

std::string pod_of(
    const std::map<std::string, std::string>& labels,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& job_labels) {
  std::vector<std::pair<std::string, std::vector<std::string>>> pod;
  for (const auto& entry : job_labels)
    if (entry.first == "namespace" || entry.first == "pod") pod.push_back(entry);
  const std::string key = job_of(labels, pod);
  return key.find("pod=") == std::string::npos ? std::string() : key;
}

void collect_deployment_labels(const std::map<std::string, std::string>& labels,
                               DeploymentLabels& into) {
  for (const auto& [k, v] : labels)
    if (k.rfind(kDeploymentLabelPrefix, 0) == 0) into[k].insert(v);
}

std::string no_series_message(const FleetOptions& o, const std::string& names) {
  return fmt::format(
      "Prometheus at {} has no series of {} {} matching {}; see data/monitor/exporters.json for "
      "the names",
      o.url, names,
      o.window.value() == 0 ? std::string("now")
                            : fmt::format("in the last {} s", o.window.value()),
      o.job_selector.empty() ? std::string("any job") : o.job_selector);
}

Fleet fetch_fleet(const FleetOptions& o) {
  Fleet f;
  f.url = o.url;
  f.query = fleet_query(exporter_table(), o.job_selector);
  f.window_s = o.window.value();
  PrometheusClient client(o.url, o.client);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<PromSeries> series;
  if (f.window_s == 0) {
    f.start_s = f.end_s = now;
    series = client.query(f.query, now);
  } else {
    f.step_s = range_step_s(o.window, o.step);
    f.start_s = now - f.window_s;
    f.end_s = now;
    series = client.query_range(f.query, f.start_s, f.end_s, f.step_s);
  }
  f.gpus = fleet_from_series(series, exporter_table());
  if (f.gpus.empty() && o.require_gpus)
    throw InfeasibleError(no_series_message(
        o, fmt::format("the mapped exporter names ({})", fmt::join(exporter_table().sets, ", "))));
  return f;
}

FleetAdvice advise_fleet(const Fleet& f, const std::optional<Expected>& expected,
                         const std::map<std::string, JobDeployment>& from_labels) {
  FleetAdvice a;
  std::map<std::string, std::vector<int>> jobs;
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    jobs[f.gpus[i].job].push_back(static_cast<int>(i));
    a.gpus.push_back(advise(f.gpus[i].samples, std::nullopt));
  }
  for (const auto& [job, members] : jobs) {
    std::vector<GpuSample> samples;
    for (int i : members)
      samples.insert(samples.end(), f.gpus[i].samples.begin(), f.gpus[i].samples.end());
    const auto labelled = from_labels.find(job);
    if (labelled == from_labels.end()) {
      a.jobs.push_back({job, members, advise(samples, expected), std::nullopt});
      continue;
    }
    a.jobs.push_back({job, members, advise(samples, labelled->second.expected), labelled->second});
  }
  return a;
}

Json to_json(const Fleet& f, const FleetAdvice* advice) {
  Json out = {{"source", "prometheus " + f.url},
              {"query", f.query},
              {"window_s", f.window_s},
              {"step_s", f.step_s},
              {"start_s", f.start_s},
              {"end_s", f.end_s}};
  size_t samples = 0;
  out["gpus"] = Json::array();
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    const FleetGpu& g = f.gpus[i];
    samples += g.samples.size();
    Json j = {{"index", i},
              {"node", g.node},
              {"gpu", g.gpu},
              {"job", g.job},
              {"sources", g.sources},
              {"samples", g.samples.size()},
              {"device_index", g.device_index ? Json(*g.device_index) : Json(nullptr)}};
    j["summary"] = to_json(summarise(g.samples).front());
    if (advice) j["advice"] = to_json(advice->gpus[i]);
    out["gpus"].push_back(j);
  }
  out["samples"] = samples;
  if (advice) {
    out["jobs"] = Json::array();
    for (const auto& job : advice->jobs) {
      Json j = {{"job", job.job}, {"gpus", job.gpus}, {"advice", to_json(job.advice)}};
      if (job.deployment)
        j["deployment_from_labels"] = {{"used", job.deployment->used},
                                       {"not_mapped", job.deployment->unmapped},
                                       {"notes", job.deployment->notes}};
      out["jobs"].push_back(j);
    }
  }
  return out;
}

std::string format_job_deployment(const JobDeployment& d) {
  std::string out;
  if (!d.used.empty())
    out += fmt::format("deployment from the series' labels: {}\n", fmt::join(d.used, ", "));
  for (const auto& u : d.unmapped) out += "label not mapped: " + u + "\n";
  for (const auto& n : d.notes) out += "no estimate: " + n + "\n";
  return out;
}

std::string format_fleet(const Fleet& f, const FleetAdvice* advice) {
  std::set<std::string> nodes, jobs;
  for (const auto& g : f.gpus) nodes.insert(g.node), jobs.insert(g.job);
  std::string out = fmt::format(
      "prometheus {}: {} GPU(s) on {} node(s) in {} job(s), {} to {}{}\n", f.url, f.gpus.size(),
      nodes.size(), jobs.size(), format_utc(f.start_s), format_utc(f.end_s),
      f.window_s == 0 ? std::string(" (instant query)")
                      : fmt::format(" (window {} s, step {} s)", f.window_s, f.step_s));
  out += fmt::format("{:>3}  {:<20} {:<40} {:<36} {:<14} {}\n", "GPU", "node", "gpu", "job",
                     "sources", "samples");
  std::vector<GpuSample> means;
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    const FleetGpu& g = f.gpus[i];
    out += fmt::format("{:>3}  {:<20} {:<40} {:<36} {:<14} {}\n", i, g.node, g.gpu,
                       g.job.empty() ? "(no job labels)" : g.job,
                       fmt::format("{}", fmt::join(g.sources, ",")), g.samples.size());
    means.push_back(summarise(g.samples).front().mean);
  }
  out += "\n" + format_table("means per GPU", means);
  if (!advice) return out;
  for (const auto& job : advice->jobs) {
    out += fmt::format("\njob {} (GPU {}):\n", job.job.empty() ? "(no job labels)" : job.job,
                       fmt::join(job.gpus, ", "));
    if (job.deployment) out += format_job_deployment(*job.deployment);
    out += format_advice(job.advice);
  }
  out += "\nper GPU:\n";
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    const Advice& a = advice->gpus[i];
    auto pct = [](const std::optional<double>& r) {
      return r ? fmt::format("{:.0f} %", *r * 100) : std::string("unknown");
    };
    out += fmt::format("  {:>3} {} {}: {} (SM activity {}, DRAM bandwidth {}, tensor {})\n", i,
                       f.gpus[i].node, f.gpus[i].gpu, to_string(a.wall), pct(a.sm_active),
                       pct(a.dram_util), pct(a.tensor_active));
  }
  return out;
}

}  // namespace memwall::monitor
