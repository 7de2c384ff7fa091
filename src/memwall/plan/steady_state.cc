#include "memwall/plan/steady_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "memwall/plan/in_flight.h"

namespace memwall::plan {

infer::StepBatch decode_batch(int batch, double context) {
  infer::StepBatch b;
  b.decode_sequences = batch;
  b.decode_context_tokens = static_cast<int64_t>(std::llround(batch * context));
  return b;
}

infer::StepBatch prefill_batch(double tokens) {
  infer::StepBatch b;
  const double n = std::max(1.0, std::round(tokens));
  b.prefill_tokens = static_cast<int64_t>(n);
  b.prefill_sequences = 1;
  b.prefill_attended_pairs = n * (n + 1) / 2;  // causal: token i attends to i keys
  return b;
}

std::vector<WeightedLength> request_gaps(const Lengths& output) {
  std::vector<WeightedLength> gaps;
  double total = 0;
  for (const WeightedLength& l : output.points) {
    if (l.tokens < 2) continue;
    gaps.push_back({l.tokens - 1.0, l.weight});
    total += l.weight;
  }
  if (gaps.empty()) return {{std::max(1.0, output.mean - 1.0), 1.0}};
  for (WeightedLength& g : gaps) g.weight /= total;
  return gaps;
}

// Scratch reused between operating points: the state of each gap point and its tail so far.
struct SteadyState::Scratch {
  struct Point {
    double mean = 0;      // of K
    double tokens = 0;    // gaps of the requests at this point
    bool normal = false;  // the normal approximation (mean above kNormalAbove)
    double inv_sd2 = 0;   // 1 / sqrt(2 mean), for the normal one
    // The running sum of the exact tail: the next k is the size of its tail vector.
    double pmf = 0, cdf = 0;
    bool found = false;  // k99 reached
    double k99 = 0;      // first k with P(K > k) <= 1 %
    bool done = false;   // past the mean with the tail below 1e-9: 0 beyond
  };
  std::vector<Point> points;
  std::vector<std::vector<double>> tails;
};

namespace {

// The prompts interleaved into a request's gaps, per gap point: K ~ Poisson(mean = prompts per gap
// x gaps). Each point's tail P(K > k) is its exact sum, up to where it falls below 1e-9, so the
// bisection over TPOT looks it up; a point of mean above 100 takes the normal approximation with
// continuity correction, whose quantile is within about one prompt there, a TPOT error of
// S / gaps with gaps > 100 / (prompts per gap). The tails and 99th percentiles are summed lazily,
// term by term in the same order as a full table (so every value is the same), only as far as a
// lookup needs: an SLA check reads one or two points of the mixture, a bisection about thirty.
class InterleavedPrompts {
 public:
  static constexpr double kNormalAbove = 100;
  using Point = SteadyState::Scratch::Point;

  InterleavedPrompts(const std::vector<WeightedLength>& gaps, double prompts_per_gap, SteadyState::Scratch& scratch)
      : points_(scratch.points), tails_(scratch.tails) {
    points_.assign(gaps.size(), Point{});
    if (tails_.size() < gaps.size()) tails_.resize(gaps.size());
    for (size_t i = 0; i < gaps.size(); ++i) {
      Point& pt = points_[i];
      pt.mean = std::max(0.0, prompts_per_gap * gaps[i].tokens);
      pt.tokens = gaps[i].tokens;
      tails_[i].clear();
      if (pt.mean > kNormalAbove) {
        pt.normal = true;
        pt.inv_sd2 = 1.0 / std::sqrt(2 * pt.mean);
        pt.k99 = std::ceil(pt.mean + 2.3263478740408408 * std::sqrt(pt.mean) + 0.5);
        pt.found = true;
      } else {
        pt.pmf = std::exp(-pt.mean);
      }
    }
  }
  // (99th percentile of K) / gaps at point i.
  double per_gap_p99(size_t i) {
    while (!points_[i].found) extend(i);
    return points_[i].k99 / points_[i].tokens;
  }
  // Its max over the points: the top of the bisection's bracket.
  double most_per_gap_p99() {
    double most = 0;
    for (size_t i = 0; i < points_.size(); ++i) most = std::max(most, per_gap_p99(i));
    return most;
  }
  // P(K > k) at point i.
  double exceeds(size_t i, double k) {
    if (k < 0) return 1.0;
    k = std::floor(k);
    const Point& p = points_[i];
    if (p.normal) {
      const double z = (k + 0.5 - p.mean) * p.inv_sd2;  // erfc(6) < 3e-17
      return z > 6 ? 0.0 : z < -6 ? 1.0 : 0.5 * std::erfc(z);
    }
    const std::vector<double>& tail = tails_[i];
    while (!(k < static_cast<double>(tail.size())) && !p.done) extend(i);
    return k < static_cast<double>(tail.size()) ? tail[static_cast<size_t>(k)] : 0.0;
  }

 private:
  // Adds the tail at the next k of point i. Past the mean, stop once the tail is below 1e-9: a
  // weight of at most 1 times it moves the mixture's 1 % by less than its own rounding.
  void extend(size_t i) {
    Point& pt = points_[i];
    std::vector<double>& tail = tails_[i];
    const size_t k = tail.size();
    if (k > 0) pt.pmf *= pt.mean / static_cast<double>(k);
    pt.cdf += pt.pmf;
    tail.push_back(std::max(0.0, 1.0 - pt.cdf));
    if (!pt.found && tail.back() <= 0.01) {
      pt.k99 = static_cast<double>(k);
      pt.found = true;
    }
    if (static_cast<double>(k) > pt.mean && tail.back() < 1e-9) pt.done = true;
  }
  std::vector<Point>& points_;
  std::vector<std::vector<double>>& tails_;
};

}  // namespace

SteadyState::SteadyState(const InferenceWorkload& w)
    : w_(w), gaps_(request_gaps(w.output)), scratch_(std::make_unique<Scratch>()) {}
SteadyState::~SteadyState() = default;

OperatingPoint SteadyState::rates_at(const ReplicaModel& model, int batch) const {
  OperatingPoint p;
  p.batch = batch;
  const InferenceWorkload& w = w_;
  const double ctx = w.mean_context();
  p.decode_step = model.step(decode_batch(batch, ctx));
  p.prefill_mean = model.step(prefill_batch(w.input.mean));
  infer::StepBatch mixed = prefill_batch(w.input.p99);
  const infer::StepBatch others = decode_batch(std::max(0, batch - 1), ctx);
  mixed.decode_sequences = others.decode_sequences;
  mixed.decode_context_tokens = others.decode_context_tokens;
  p.prefill_p99 = model.step(mixed);

  const double s = p.prefill_mean.value(), td = p.decode_step.value(), out = w.output.mean;
  // A non-finite or non-positive time from the estimator is not a result: report it unstable.
  if (!std::isfinite(s) || !std::isfinite(td) || !std::isfinite(p.prefill_p99.value()) || s <= 0 ||
      td <= 0) {
    p.stable = false;
    p.prefill_share = std::numeric_limits<double>::quiet_NaN();
    return p;
  }
  // rho = lambda_r S with lambda_r = batch / e2e (Little's law) and e2e = S + W + (out - 1) TPOT
  // = (S + (out - 1) t_d) / (1 - rho), so rho = K (1 - rho) with K = batch S / (S + (out - 1) t_d):
  // rho = K / (1 + K), always below 1. Solved in closed form: iterating rho <- K (1 - rho)
  // oscillates with slope -K and near K = 1 had not converged after 30 steps (TPOT 50 ms at
  // batch 640, 92 ms at 641, for one whose simulated TPOT was 84 ms).
  const double k = batch * s / (s + (out - 1.0) * td);
  const double rho = k / (1.0 + k);
  p.prefill_share = rho;
  if (!(rho < 1.0)) {
    p.stable = false;
    return p;
  }
  p.tpot = Seconds(td / (1.0 - rho));
  p.tpot_p99 = Seconds(std::numeric_limits<double>::quiet_NaN());
  const double wait_mean = s * rho / (1.0 - rho);
  const double wait_p99 = rho > 0.01 ? s / (1.0 - rho) * std::log(100.0 * rho) : 0.0;
  p.ttft_mean = Seconds(s + wait_mean);
  p.ttft_p99 = p.prefill_p99 + Seconds(wait_p99);
  p.e2e_mean = p.ttft_mean + p.tpot * (out - 1.0);
  p.e2e_p99 = p.ttft_p99 + p.tpot * (std::max(w.output.p99, out) - 1.0);
  p.requests_per_s = batch / p.e2e_mean.value();
  p.generated_tokens_per_s = batch / p.tpot.value();
  return p;
}

// A request of g gaps has K ~ Poisson(lambda_r g TPOT) prompts interleaved, TPOT = t_d + K S / g.
OperatingPoint SteadyState::at(const ReplicaModel& model, int batch) const {
  OperatingPoint p = rates_at(model, batch);
  if (!p.stable) return p;
  const double s = p.prefill_mean.value(), td = p.decode_step.value();
  InterleavedPrompts prompts(gaps_, p.prefill_share / s * p.tpot.value(), *scratch_);
  const Seconds hi(td + s * prompts.most_per_gap_p99());
  p.tpot_p99 = std::max(p.tpot, tpot_p99_over_requests(gaps_, Seconds(td), hi, w_.sla.tpot_p99,
                                                       [&](size_t i, double t) {
                                                         return prompts.exceeds(i, (t - td) * gaps_[i].tokens / s);
                                                       }));
  return p;
}

bool SteadyState::meets_sla_at(const ReplicaModel& model, int batch, std::string* why) const {
  OperatingPoint p = rates_at(model, batch);
  if (!p.stable) return meets_sla(p, w_.sla, why);
  // TPOT p99 = max(TPOT, the percentile over requests): above the target when either is.
  if (!why) {  // the other terms first, as meets_sla tests them: they need no tail
    if (p.tpot > w_.sla.tpot_p99) return false;
    p.tpot_p99 = p.tpot;
    if (!meets_sla(p, w_.sla)) return false;
    return !interleaved_p99_exceeds(p);
  }
  // A reason that names the TPOT p99 needs its value; one that names another term does not.
  if (p.tpot > w_.sla.tpot_p99 || interleaved_p99_exceeds(p)) return meets_sla(at(model, batch), w_.sla, why);
  p.tpot_p99 = p.tpot;  // at or below the target, as the percentile is
  return meets_sla(p, w_.sla, why);
}

// Whether the percentile over requests that `at` computes is above the TPOT target, decided as
// tpot_p99_exceeds decides it (the tail at lo = t_d, then at the target c when it lies in the
// bracket [lo, b]) but with the bracket's top b computed only when the answer needs it: a tail
// at or below 1 % at c puts the answer at or below c whether or not c < b, and a tail above it
// (summed only until it passes 1 %: the rest only adds) needs c < b, which one point's own
// percentile usually shows (b is at least td + s x that point's per-gap p99).
bool SteadyState::interleaved_p99_exceeds(const OperatingPoint& p) const {
  const double s = p.prefill_mean.value(), td = p.decode_step.value(), c = w_.sla.tpot_p99.value();
  InterleavedPrompts prompts(gaps_, p.prefill_share / s * p.tpot.value(), *scratch_);
  auto exceeds = [&](size_t i, double t) { return prompts.exceeds(i, (t - td) * gaps_[i].tokens / s); };
  auto full = [&] {
    const Seconds hi(td + s * prompts.most_per_gap_p99());
    return tpot_p99_over_requests(gaps_, Seconds(td), hi, w_.sla.tpot_p99, exceeds) > w_.sla.tpot_p99;
  };
  if (share_over(gaps_, exceeds, td) <= 0.01) return Seconds(td) > w_.sla.tpot_p99;  // the answer is lo
  if (c < td) return true;  // the answer is at least lo = td
  if (!(c > td)) return full();
  double over = 0;  // summed only until it passes 1 %: the rest only adds
  size_t i = 0;
  for (; i < gaps_.size() && !(over > 0.01); ++i) over += gaps_[i].weight * exceeds(i, c);
  if (over <= 0.01) return false;  // the whole sum, at or below 1 %
  // Above 1 % at c: the answer is above c exactly when c < b = max(td, td + s x most).
  for (size_t j = 0; j < i; ++j) {
    if (exceeds(j, c) > 0.01 && c < td + s * prompts.per_gap_p99(j)) return true;
  }
  return c < std::max(td, td + s * prompts.most_per_gap_p99());
}

OperatingPoint steady_state(const ReplicaModel& model, const InferenceWorkload& w, int batch) {
  return SteadyState(w).at(model, batch);
}

bool meets_sla(const OperatingPoint& p, const Sla& sla, std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  if (!p.stable) {
    if (!std::isfinite(p.prefill_share)) {
      return fail(fmt::format("the estimator gave no finite step time at batch {}", p.batch));
    }
    return fail(fmt::format("prefill alone needs {:.0f}% of the replica's time at batch {}",
                            100 * p.prefill_share, p.batch));
  }
  if (p.tpot_p99 > sla.tpot_p99) {
    return fail(fmt::format("TPOT p99 {:.1f} ms > {:.1f} ms at batch {}", p.tpot_p99.value() * 1e3,
                            sla.tpot_p99.value() * 1e3, p.batch));
  }
  if (p.ttft_p99 > sla.ttft_p99) {
    return fail(fmt::format("TTFT p99 {:.2f} s > {:.2f} s at batch {}", p.ttft_p99.value(),
                            sla.ttft_p99.value(), p.batch));
  }
  if (sla.e2e_p99 && p.e2e_p99 > *sla.e2e_p99) {
    return fail(fmt::format("e2e p99 {:.1f} s > {:.1f} s at batch {}", p.e2e_p99.value(),
                            sla.e2e_p99->value(), p.batch));
  }
  return true;
}

}  // namespace memwall::plan
