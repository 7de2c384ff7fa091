#include "memwall/serve/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

constexpr size_t kMaxSamples = 4096;  // per run; older samples are thinned by half when exceeded

LatencyStats stats_of(std::vector<double> v) {
  LatencyStats s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  // Nearest-rank percentile: the smallest value with at least p of the samples at or below it.
  auto pct = [&](double p) {
    const auto n = v.size();
    auto k = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
    k = std::clamp<size_t>(k, 1, n) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
  };
  s.p50 = pct(0.50);
  s.p90 = pct(0.90);
  s.p99 = pct(0.99);
  s.max = *std::max_element(v.begin(), v.end());
  return s;
}

double pick(const LatencyStats& s, const std::string& statistic) {
  if (statistic == "p50") return s.p50;
  if (statistic == "p90") return s.p90;
  if (statistic == "p99") return s.p99;
  return s.mean;
}

Json stats_json(const LatencyStats& s) {
  return Json{{"count", s.count}, {"mean", s.mean}, {"p50", s.p50},
              {"p90", s.p90},     {"p99", s.p99},   {"max", s.max}};
}

}  // namespace

std::vector<SlaTerm> parse_sla(const std::string& text) {
  std::vector<SlaTerm> out;
  const std::string allowed =
      "comma-separated METRIC_STAT=LIMIT with METRIC ttft|tpot|e2e, STAT p50|p90|p99|mean and "
      "LIMIT in s or ms, e.g. ttft_p99=1s,tpot_p99=50ms";
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string term =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    const size_t eq = term.find('=');
    const size_t us = term.find('_');
    if (eq == std::string::npos || us == std::string::npos || us > eq)
      throw InputError("--sla", term, allowed);
    SlaTerm t;
    t.metric = term.substr(0, us);
    t.statistic = term.substr(us + 1, eq - us - 1);
    std::string value = term.substr(eq + 1);
    double scale = 1;
    if (value.size() > 2 && value.substr(value.size() - 2) == "ms") {
      scale = 1e-3;
      value.resize(value.size() - 2);
    } else if (!value.empty() && value.back() == 's') {
      value.pop_back();
    } else {
      throw InputError("--sla", term, allowed);
    }
    if ((t.metric != "ttft" && t.metric != "tpot" && t.metric != "e2e") ||
        (t.statistic != "p50" && t.statistic != "p90" && t.statistic != "p99" &&
         t.statistic != "mean"))
      throw InputError("--sla", term, allowed);
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(value, &used);
    } catch (const std::exception&) {
      throw InputError("--sla", term, allowed);
    }
    if (used != value.size() || !std::isfinite(v) || v <= 0 || v > 1e7)
      throw InputError("--sla", term, "a limit > 0 and at most 1e7 s");
    t.limit_s = v * scale;
    out.push_back(t);
  }
  return out;
}

MetricsRecorder::MetricsRecorder(int replicas)
    : kv_integral_(5, 0.0), next_sample_s_(static_cast<size_t>(replicas), 0.0) {}

void MetricsRecorder::iteration(int replica, double now_s, double duration_s,
                                const IterationPlan& plan, const KvTokens& kv,
                                int64_t capacity_tokens, int64_t running, int64_t waiting) {
  const double dt = duration_s;
  kv_integral_[0] += static_cast<double>(kv.used) * dt;
  kv_integral_[1] += static_cast<double>(kv.reserved) * dt;
  kv_integral_[2] += static_cast<double>(kv.internal) * dt;
  kv_integral_[3] += static_cast<double>(kv.external) * dt;
  kv_integral_[4] += static_cast<double>(kv.free) * dt;
  capacity_seconds_ += static_cast<double>(capacity_tokens) * dt;
  const auto b = static_cast<size_t>(plan.sequences());
  if (b >= batch_counts_.size()) batch_counts_.resize(b + 1, 0);
  ++batch_counts_[b];
  ++iterations_;
  batch_sum_ += static_cast<double>(b);
  auto& next = next_sample_s_[static_cast<size_t>(replica)];
  if (now_s >= next) {
    samples_.push_back(TimeSample{now_s, replica, running, waiting, static_cast<int64_t>(b), kv,
                                  capacity_tokens, finished_});
    next = now_s + sample_interval_s_;
    if (samples_.size() >= kMaxSamples) {  // keep every other sample, sample half as often
      size_t j = 0;
      for (size_t i = 0; i < samples_.size(); i += 2) samples_[j++] = samples_[i];
      samples_.resize(j);
      sample_interval_s_ *= 2;
    }
  }
}

SimulationResult MetricsRecorder::summarize(const RequestTable& t,
                                            const std::vector<SlaTerm>& sla) const {
  SimulationResult r;
  r.requests = static_cast<int64_t>(t.requests.size());
  std::vector<double> ttft, tpot, e2e;
  ttft.reserve(t.requests.size());
  e2e.reserve(t.requests.size());
  tpot.reserve(t.requests.size());
  double first_arrival = t.requests.empty() ? 0 : t.requests.front().arrival_s, last_finish = 0;
  double in_sum = 0, out_sum = 0, input_done = 0;
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const Request& q = t.requests[i];
    in_sum += q.input_tokens;
    out_sum += q.output_tokens;
    first_arrival = std::min(first_arrival, q.arrival_s);
    const Phase ph = t.seqs[i].phase;
    if (ph == Phase::rejected) continue;
    if (t.finish_s[i] < 0) {
      ++r.unfinished;
      continue;
    }
    ++r.completed;
    r.requested_output_tokens += q.output_tokens;
    input_done += q.input_tokens;
    ttft.push_back(t.first_token_s[i] - q.arrival_s);
    e2e.push_back(t.finish_s[i] - q.arrival_s);
    if (q.output_tokens > 1)
      tpot.push_back((t.finish_s[i] - t.first_token_s[i]) / (q.output_tokens - 1));
    last_finish = std::max(last_finish, t.finish_s[i]);
  }
  if (r.requests > 0) {
    r.mean_input_tokens = in_sum / static_cast<double>(r.requests);
    r.mean_output_tokens = out_sum / static_cast<double>(r.requests);
  }
  r.duration_s = std::max(0.0, last_finish - first_arrival);
  if (r.duration_s > 0) {
    r.throughput_tokens_per_s = static_cast<double>(r.requested_output_tokens) / r.duration_s;
    r.requests_per_s = static_cast<double>(r.completed) / r.duration_s;
    r.input_tokens_per_s = input_done / r.duration_s;
  }
  // SLA attainment per request, before the stats reorder the vectors.
  r.sla = sla;
  int64_t good = 0;
  double good_tokens = 0;
  {
    size_t k = 0;  // index into tpot
    size_t j = 0;  // index into ttft/e2e
    for (size_t i = 0; i < t.requests.size(); ++i) {
      if (t.seqs[i].phase == Phase::rejected || t.finish_s[i] < 0) continue;
      const Request& q = t.requests[i];
      bool ok = true;
      const double tp = q.output_tokens > 1 ? tpot[k++] : 0;
      for (const SlaTerm& term : sla) {
        const double v = term.metric == "ttft" ? ttft[j] : term.metric == "tpot" ? tp : e2e[j];
        if (v > term.limit_s) ok = false;
      }
      ++j;
      if (ok) {
        ++good;
        good_tokens += q.output_tokens;
      }
    }
  }
  r.ttft = stats_of(std::move(ttft));
  r.tpot = stats_of(std::move(tpot));
  r.e2e = stats_of(std::move(e2e));
  r.sla_met = r.unfinished == 0;
  for (const SlaTerm& term : sla) {
    const LatencyStats& s = term.metric == "ttft" ? r.ttft : term.metric == "tpot" ? r.tpot : r.e2e;
    const double observed = pick(s, term.statistic);
    r.sla_observed_s.push_back(observed);
    if (observed > term.limit_s) r.sla_met = false;
  }
  r.sla_attainment =
      r.completed > 0 ? static_cast<double>(good) / static_cast<double>(r.completed) : 0;
  if (r.duration_s > 0) {
    r.goodput_requests_per_s = static_cast<double>(good) / r.duration_s;
    r.goodput_tokens_per_s = good_tokens / r.duration_s;
  }
  if (capacity_seconds_ > 0) {
    r.kv.used = kv_integral_[0] / capacity_seconds_;
    r.kv.reserved = kv_integral_[1] / capacity_seconds_;
    r.kv.internal = kv_integral_[2] / capacity_seconds_;
    r.kv.external = kv_integral_[3] / capacity_seconds_;
    r.kv.free = kv_integral_[4] / capacity_seconds_;
  }
  r.iterations = iterations_;
  if (iterations_ > 0) {
    r.batch_mean = batch_sum_ / static_cast<double>(iterations_);
    auto quant = [&](double p) {
      const auto target = static_cast<int64_t>(std::ceil(p * static_cast<double>(iterations_)));
      int64_t seen = 0;
      for (size_t b = 0; b < batch_counts_.size(); ++b) {
        seen += batch_counts_[b];
        if (seen >= target) return static_cast<int64_t>(b);
      }
      return static_cast<int64_t>(batch_counts_.size()) - 1;
    };
    r.batch_p50 = quant(0.5);
    r.batch_p90 = quant(0.9);
    r.batch_p99 = quant(0.99);
    r.batch_max = static_cast<int64_t>(batch_counts_.size()) - 1;
    int64_t upper = 1;
    size_t b = 0;
    while (b < batch_counts_.size()) {
      int64_t n = 0;
      for (; b < batch_counts_.size() && static_cast<int64_t>(b) <= upper; ++b)
        n += batch_counts_[b];
      r.batch_histogram.emplace_back(upper, n);
      upper *= 2;
    }
  }
  r.timeseries = samples_;
  return r;
}

Json to_json(const SimulationResult& r) {
  Json sla = Json::array();
  for (size_t i = 0; i < r.sla.size(); ++i)
    sla.push_back(Json{{"metric", r.sla[i].metric},
                       {"statistic", r.sla[i].statistic},
                       {"limit_s", r.sla[i].limit_s},
                       {"observed_s", r.sla_observed_s[i]},
                       {"met", r.sla_observed_s[i] <= r.sla[i].limit_s}});
  Json hist = Json::array();
  for (const auto& [upper, n] : r.batch_histogram)
    hist.push_back(Json{{"max_sequences", upper}, {"iterations", n}});
  return Json{
      {"requests", r.requests},
      {"completed", r.completed},
      {"unfinished", r.unfinished},
      {"rejected",
       Json{{"total", r.rejected_too_long + r.rejected_never_fits + r.rejected_queue_full},
            {"too_long", r.rejected_too_long},
            {"never_fits", r.rejected_never_fits},
            {"queue_full", r.rejected_queue_full}}},
      {"mean_input_tokens", r.mean_input_tokens},
      {"mean_output_tokens", r.mean_output_tokens},
      {"ttft_s", stats_json(r.ttft)},
      {"tpot_s", stats_json(r.tpot)},
      {"e2e_s", stats_json(r.e2e)},
      {"duration_s", r.duration_s},
      {"throughput_tokens_per_s", r.throughput_tokens_per_s},
      {"requests_per_s", r.requests_per_s},
      {"input_tokens_per_s", r.input_tokens_per_s},
      {"generated_tokens", r.generated_tokens},
      {"sla", Json{{"terms", sla},
                   {"met", r.sla_met},
                   {"attainment", r.sla_attainment},
                   {"goodput_requests_per_s", r.goodput_requests_per_s},
                   {"goodput_tokens_per_s", r.goodput_tokens_per_s}}},
      {"kv_memory", Json{{"capacity_tokens", r.kv_capacity_tokens},
                         {"used_share", r.kv.used},
                         {"reserved_share", r.kv.reserved},
                         {"internal_fragmentation_share", r.kv.internal},
                         {"external_fragmentation_share", r.kv.external},
                         {"free_share", r.kv.free},
                         {"allocations", r.kv_allocated},
                         {"frees", r.kv_freed}}},
      {"batch", Json{{"iterations", r.iterations},
                     {"mean", r.batch_mean},
                     {"p50", r.batch_p50},
                     {"p90", r.batch_p90},
                     {"p99", r.batch_p99},
                     {"max", r.batch_max},
                     {"histogram", hist}}},
      {"preemptions", Json{{"recompute", r.preemptions_recompute}, {"swap", r.preemptions_swap}}},
      {"kv_transfers", r.kv_transfers},
  };
}

std::string timeseries_csv(const SimulationResult& r) {
  std::string out =
      "t_s,replica,running,waiting,batch,kv_capacity_tokens,kv_used_tokens,kv_reserved_tokens,"
      "kv_internal_tokens,kv_external_tokens,kv_free_tokens,finished\n";
  for (const TimeSample& s : r.timeseries)
    out += fmt::format("{:.6f},{},{},{},{},{},{},{},{},{},{},{}\n", s.t_s, s.replica, s.running,
                       s.waiting, s.batch, s.capacity_tokens, s.kv.used, s.kv.reserved,
                       s.kv.internal, s.kv.external, s.kv.free, s.finished);
  return out;
}

}  // namespace memwall::serve
