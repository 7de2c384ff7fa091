#include "memwall/measure/predict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/infer/continuous.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/serve/serving.h"
#include "memwall/train/request.h"

namespace memwall::measure {
namespace {

}  // namespace

infer::DeploymentOptions deployment_options(const Record& r, const PredictOptions& o) {
  infer::DeploymentOptions d;
  d.model = r.model.id;
  d.gpu = r.hardware.accelerator;
  d.node = r.hardware.node;
  d.fabric = r.hardware.fabric;
  d.tp = r.stack.tp;
  d.pp = r.stack.pp;
  d.ep = r.stack.ep;
  d.dp = r.stack.dp;
  d.weight_precision = r.stack.weight_precision;
  d.activation_precision = r.stack.activation_precision;
  d.kv_precision = r.stack.kv_precision;
  d.weight_group_size = r.stack.weight_group_size;
  d.fp8_recipe = r.stack.fp8_recipe;
  d.engine = r.stack.engine.value_or("default");
  d.engine_version = r.stack.version;
  d.memory_utilization = r.stack.memory_fraction;
  d.scheduler_steps = r.stack.scheduler_steps.value_or(1);
  d.efficiency = o.efficiency;
  return d;
}

namespace {

// The engine's limits with those the record states.
infer::ContinuousLimits limits_of(const Record& r, const infer::Deployment& d) {
  infer::ContinuousLimits l = infer::engine_limits(d);
  if (r.stack.max_num_seqs) l.max_num_seqs = static_cast<int>(*r.stack.max_num_seqs);
  if (r.stack.max_num_batched_tokens) l.max_num_batched_tokens = *r.stack.max_num_batched_tokens;
  if (r.stack.chunked_prefill) l.chunked_prefill = *r.stack.chunked_prefill;
  return l;
}

serve::LengthDistribution distribution_of(const Lengths& l) {
  if (l.distribution == "uniform")
    return serve::LengthDistribution::uniform(static_cast<int>(*l.min), static_cast<int>(*l.max));
  if (l.distribution == "lognormal") return serve::LengthDistribution::lognormal(l.mean, *l.cv);
  return serve::LengthDistribution::fixed(static_cast<int>(l.mean));
}

double statistic_of(const serve::LatencyStats& s, Statistic st, std::string& unpredicted) {
  switch (st) {
    case Statistic::value:
    case Statistic::mean:
      return s.mean;
    case Statistic::median:
      return s.p50;
    case Statistic::p90:
      return s.p90;
    case Statistic::p99:
      return s.p99;
    case Statistic::p95:
      unpredicted = "the serving simulator reports mean, median, p90 and p99, not p95";
      return 0;
  }
  return 0;
}

// Means and throughputs of the steady state that the record's load holds: an endless queue
// (offline) or `concurrency` clients, each with one request in flight.
void steady_state(const Record& r, const infer::Deployment& d, Prediction& p) {
  infer::ContinuousLimits l = limits_of(r, d);
  const Workload& w = r.workload;
  if (w.mode == Mode::concurrency) {
    // Clients are spread over the replicas: each holds its share at most.
    const int64_t per_replica = (*w.concurrency + d.dp - 1) / d.dp;
    l.max_num_seqs = static_cast<int>(std::min<int64_t>(l.max_num_seqs, per_replica));
  }
  const auto in = static_cast<int64_t>(std::llround(w.input->mean));
  const auto out = static_cast<int64_t>(std::llround(w.output->mean));
  if (w.input->distribution != "fixed" || w.output->distribution != "fixed")
    p.assumptions += "Lengths drawn from a distribution are timed at their means in the steady "
                     "state. ";
  const infer::ContinuousEstimate c = infer::continuous_max_throughput(d, in, out, l);
  const Measured& m = r.measured;
  const double scale = m.scope == Scope::per_device ? 1.0 / d.devices() : 1.0;
  switch (m.metric) {
    case Metric::output_throughput:
      p.si = c.requests_per_s * double(out) * scale;
      break;
    case Metric::total_throughput:
      p.si = c.requests_per_s * double(in + out) * scale;
      break;
    case Metric::request_throughput:
      p.si = c.requests_per_s;
      break;
    case Metric::tpot:
    case Metric::itl:
      // Every gap after the first token is one iteration of the steady state, so the mean TPOT
      // and the mean ITL are both the iteration time the sequence sees.
      if (m.statistic == Statistic::mean || m.statistic == Statistic::value) p.si = c.tpot.value();
      break;
    case Metric::ttft:
      if (w.mode == Mode::concurrency &&
          (m.statistic == Statistic::mean || m.statistic == Statistic::value))
        p.si = c.ttft.value();
      break;
    case Metric::e2e_latency:
      if (m.statistic == Statistic::mean || m.statistic == Statistic::value)
        p.si = c.ttft.value() + double(out - 1) * c.tpot.value();
      break;
    default:
      break;
  }
  if (!p.si)
    p.unpredicted = fmt::format("{} {} is not predicted for mode {} without a simulated run",
                                to_string(m.metric), to_string(m.statistic), to_string(w.mode));
}

void simulated(const Record& r, const Catalog& catalog, const infer::DeploymentOptions& dopt,
               const PredictOptions& o, Prediction& p) {
  const Workload& w = r.workload;
  serve::ServingOptions so;
  so.deployment = dopt;
  so.deployment.dp = 1;
  so.replicas = r.stack.dp;
  so.engine_limits = true;
  so.workload.requests = w.requests.value_or(
      w.mode == Mode::concurrency ? std::max<int64_t>(o.default_requests, 10 * *w.concurrency)
                                  : o.default_requests);
  if (!w.requests)
    p.assumptions += fmt::format("Requests not stated: {} simulated. ", so.workload.requests);
  if (w.mode == Mode::request_rate) {
    so.workload.arrival.kind = serve::ArrivalKind::poisson;
    so.workload.arrival.rate_per_s = *w.request_rate;
  } else {
    so.workload.arrival.kind = serve::ArrivalKind::closed_loop;
    so.workload.arrival.concurrency = static_cast<int>(
        w.mode == Mode::offline ? std::min<int64_t>(so.workload.requests, 1 << 30) : *w.concurrency);
  }
  so.workload.lengths.name = "record";
  so.workload.lengths.input = distribution_of(*w.input);
  so.workload.lengths.output = distribution_of(*w.output);
  auto longest = [](const Lengths& l) {
    return l.max ? double(*l.max) : l.distribution == "lognormal" ? 0.0 : l.mean;
  };
  if (longest(*w.input) > 0 && longest(*w.output) > 0)
    so.max_len = static_cast<int64_t>(longest(*w.input) + longest(*w.output));
  const serve::ServingRun run = serve::simulate_serving(catalog, so);
  const serve::SimulationResult& s = run.result;
  if (s.completed < s.requests)
    p.assumptions += fmt::format("The simulated run completed {} of {} requests. ", s.completed,
                                 s.requests);
  if (s.completed == 0) {
    p.unpredicted = "no simulated request completed";
    return;
  }
  const Measured& m = r.measured;
  const int devices = dopt.tp * dopt.pp * r.stack.dp;
  const double scale = m.scope == Scope::per_device ? 1.0 / devices : 1.0;
  switch (m.metric) {
    case Metric::ttft:
      p.si = statistic_of(s.ttft, m.statistic, p.unpredicted);
      break;
    case Metric::tpot:
      p.si = statistic_of(s.tpot, m.statistic, p.unpredicted);
      break;
    case Metric::e2e_latency:
      p.si = statistic_of(s.e2e, m.statistic, p.unpredicted);
      break;
    case Metric::itl:
      // The simulator keeps per-request TPOTs, not every gap: only the mean is the same quantity
      // (all gaps of a request are iterations it ran in).
      if (m.statistic == Statistic::mean || m.statistic == Statistic::value)
        p.si = s.tpot.mean;
      else
        p.unpredicted = "ITL percentiles need every inter-token gap; memwall simulates per-request "
                        "TPOT (use metric tpot)";
      break;
    case Metric::output_throughput:
      p.si = s.throughput_tokens_per_s * scale;
      break;
    case Metric::total_throughput:
      p.si = (s.throughput_tokens_per_s + s.input_tokens_per_s) * scale;
      break;
    case Metric::request_throughput:
      p.si = s.requests_per_s;
      break;
    default:
      p.unpredicted = std::string(to_string(m.metric)) + " is not an inference metric";
  }
  if (!p.unpredicted.empty()) p.si.reset();
}

void inference(const Record& r, const Catalog& catalog, const PredictOptions& o, Prediction& p) {
  const infer::DeploymentOptions dopt = deployment_options(r, o);
  const infer::Deployment d = infer::make_deployment(catalog, dopt);
  const Workload& w = r.workload;
  const Measured& m = r.measured;
  if (w.mode == Mode::static_batch) {
    const infer::Workload iw{*w.batch, static_cast<int64_t>(w.input->mean),
                             static_cast<int64_t>(w.output->mean)};
    const infer::Estimate e = infer::estimate(d, iw);
    const double scale = m.scope == Scope::per_device ? 1.0 / d.devices() : 1.0;
    switch (m.metric) {
      case Metric::ttft:
        p.si = e.ttft.value();
        break;
      case Metric::tpot:
      case Metric::itl:
        p.si = e.tpot.value();
        break;
      case Metric::e2e_latency:
        p.si = e.e2e.value();
        break;
      case Metric::output_throughput:
        p.si = e.throughput_tokens_per_s * scale;
        break;
      case Metric::total_throughput:
        p.si = e.throughput_tokens_per_s * double(iw.input_tokens + iw.output_tokens) /
               double(iw.output_tokens) * scale;
        break;
      case Metric::request_throughput:
        p.si = e.throughput_tokens_per_s / double(iw.output_tokens);
        break;
      case Metric::prompt_throughput:
        // Every sequence's prompt is in the batch's prefill, done when the first token is out.
        p.si = double(iw.batch) * double(iw.input_tokens) / e.ttft.value() * scale;
        break;
      case Metric::memory:
        p.si = e.memory.used().value();
        break;
      default:
        break;
    }
    if (m.statistic != Statistic::value && m.statistic != Statistic::mean)
      p.assumptions += "A static batch's sequences run together: a percentile is the mean. ";
    return;
  }
  if (m.metric == Metric::memory) {
    p.unpredicted = "memory is predicted for a static batch (mode static_batch)";
    return;
  }
  const bool percentile = m.statistic != Statistic::value && m.statistic != Statistic::mean;
  const bool needs_run = w.mode == Mode::request_rate || percentile ||
                         (w.mode == Mode::offline && w.requests) ||
                         (w.mode == Mode::offline && m.metric == Metric::ttft);
  if (needs_run)
    simulated(r, catalog, dopt, o, p);
  else
    steady_state(r, d, p);
  // Every request sent at once to the engine's HTTP server: its front end takes them in first
  // (infer::burst_frontend_scale, the same factor `memwall validate` applies to such cases).
  const bool rate_metric = m.metric == Metric::output_throughput ||
                           m.metric == Metric::total_throughput ||
                           m.metric == Metric::request_throughput;
  if (w.mode != Mode::offline || !rate_metric || !p.si) return;
  const double c = d.engine_profile ? d.engine_profile->frontend_per_request.value() : 0.0;
  if (!w.endpoint) {
    if (c > 0)
      p.assumptions += fmt::format(
          "Endpoint not stated: requests assumed to reach the engine without its HTTP server's "
          "front end ({:.1f} ms per request sent at once; give workload.endpoint). ",
          c * 1e3);
    return;
  }
  if (*w.endpoint == Endpoint::none || !(c > 0)) return;
  const double devices = m.scope == Scope::per_device ? double(dopt.tp * dopt.pp * r.stack.dp) : 1.0;
  const double tokens_per_request = m.metric == Metric::request_throughput ? 1.0
                                    : m.metric == Metric::output_throughput
                                        ? w.output->mean
                                        : w.input->mean + w.output->mean;
  const double per_server = *p.si * devices / tokens_per_request / std::max(1, r.stack.dp);
  const double k = infer::burst_frontend_scale(d, per_server);
  *p.si *= k;
  p.assumptions += fmt::format(
      "The {} endpoint's front end takes in the requests sent at once at {:.1f} ms each before "
      "the engine sees them ({}): the engine's {:.3g} requests/s per server become {:.3g}. ",
      to_string(*w.endpoint), c * 1e3, d.engine_profile->display, per_server, per_server * k);
}

void training(const Record& r, const Catalog& catalog, const PredictOptions& o, Prediction& p) {
  train::Request q;
  q.model = r.model.id;
  q.gpu = r.hardware.accelerator;
  q.node = r.hardware.node;
  q.fabric = r.hardware.fabric;
  q.efficiency = o.efficiency;
  q.framework = r.stack.framework;
  train::TrainConfig& c = q.config;
  c.gpus = r.hardware.count;
  c.tp = r.stack.tp;
  c.pp = r.stack.pp;
  c.dp = r.stack.dp;
  c.cp = r.stack.cp;
  c.ep = r.stack.ep;
  c.vpp = r.stack.vpp;
  c.micro_batch = *r.stack.micro_batch;
  c.global_batch = *r.stack.global_batch;
  c.seq = *r.workload.seq_len;
  c.precision = parse_precision_or_throw(r.stack.precision.value_or("bf16"), "stack.precision");
  if (!r.stack.precision) p.assumptions += "Precision not stated: bf16 assumed. ";
  if (r.stack.fp8_recipe) c.fp8_recipe = *r.stack.fp8_recipe;
  q.zero = r.stack.zero;
  q.sequence_parallel = r.stack.sequence_parallel;
  q.recompute = r.stack.recompute;
  q.tokens = r.workload.tokens;
  const train::Answer a = train::answer(catalog, q);
  for (const auto& s : a.assumptions) p.assumptions += s + ". ";
  const Measured& m = r.measured;
  const train::TrainEstimate& e = a.estimate;
  switch (m.metric) {
    case Metric::step_time:
      p.si = e.step_time.value();
      break;
    case Metric::training_throughput:
      p.si = m.scope == Scope::per_device ? e.tokens_per_s_per_gpu : e.tokens_per_s;
      break;
    case Metric::model_tflops:
      p.si = e.model_tflops_per_gpu * 1e12;
      break;
    case Metric::mfu:
      p.si = e.mfu;
      break;
    case Metric::gpu_hours:
      if (a.run) p.si = a.run->gpu_hours;
      break;
    case Metric::memory:
      p.si = e.memory.total().value();
      break;
    default:
      p.unpredicted = std::string(to_string(m.metric)) + " is not a training metric";
  }
}

}  // namespace

std::optional<double> Prediction::signed_error(const Record& r) const {
  if (!si || !(r.measured.si > 0)) return std::nullopt;
  const double e = (*si - r.measured.si) / r.measured.si;
  return is_latency(r.measured.metric) ? -e : e;
}

Prediction predict(const Record& r, const Catalog& catalog, const PredictOptions& o) {
  Prediction p;
  try {
    if (r.workload.mode == Mode::training)
      training(r, catalog, o, p);
    else
      inference(r, catalog, o, p);
  } catch (const InputError& e) {
    p.si.reset();
    p.unpredicted = std::string("cannot express: ") + e.what();
  } catch (const InfeasibleError& e) {
    p.si.reset();
    p.unpredicted = std::string("infeasible as described: ") + e.what();
  }
  if (p.si && !(std::isfinite(*p.si) && *p.si > 0)) {
    p.unpredicted = fmt::format("the estimate is not a positive number ({})", *p.si);
    p.si.reset();
  }
  if (!p.si && p.unpredicted.empty())
    p.unpredicted = fmt::format("{} is not predicted for mode {}", to_string(r.measured.metric),
                                to_string(r.workload.mode));
  return p;
}

}  // namespace memwall::measure
