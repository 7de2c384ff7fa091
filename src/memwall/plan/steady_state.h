// The analytic steady state of one aggregated replica (continuous batching, prefill interleaved
// with decode) holding `batch` sequences in flight: decode and prefill iteration times from the
// estimator, then TPOT, TTFT p99 and end-to-end latency with the queueing the prefill load causes.
// Quick to evaluate; the serving simulator (--verify) checks the chosen plans event by event.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/plan/replica_model.h"
#include "memwall/plan/workload.h"

namespace memwall::plan {

struct OperatingPoint {
  int batch = 0;                    // sequences in flight per replica
  Seconds decode_step;              // one decode iteration over `batch` sequences at mean context
  Seconds prefill_mean;             // a mean prompt, alone
  Seconds prefill_p99;              // a p99 prompt, sharing iterations with `batch` decodes
  double prefill_share = 0;         // rho: fraction of replica time spent prefilling
  Seconds tpot;                     // decode_step / (1 - rho): the mean over requests
  Seconds tpot_p99;                 // per-request TPOT at the p99 count of interleaved prompts
  Seconds ttft_mean, ttft_p99;
  Seconds e2e_mean, e2e_p99;
  double requests_per_s = 0;        // per replica, = batch / e2e_mean (Little's law)
  double generated_tokens_per_s = 0;  // per replica, = batch / tpot
  bool stable = true;               // rho < 1
};

// Model (docs/plan.md "Steady state"):
//  - rho = lambda_r x prefill_mean, lambda_r = batch / e2e_mean (Little's law, in closed form);
//  - TPOT = decode_step / (1 - rho): decode iterations time-share the replica with prefill work;
//  - prefill waits in an M/M/1 queue of prefill work: P(W > t) = rho e^{-(1-rho) t / S}
//    (M/M/1 FCFS waiting time, Kleinrock 1975, Queueing Systems Vol. 1 §3.2), so W_p99 = S/(1-rho)
//    ln(100 rho) for rho > 0.01, mean W = S rho / (1 - rho), with S = prefill_mean. Not scaled for
//    varying prompt lengths (M/G/1's (1 + c^2) / 2): chunked prefill packs several prompts into
//    one iteration's token budget, and the simulator finds M/M/1 about twice too long here on
//    ShareGPT prompts (e.g. llama-3.1-70b at 20 req/s on H100: 0.15 s analytic, 0.064 s simulated);
//  - a request of mean output n decodes over (n - 1) TPOT while prompts arrive at
//    lambda_r = rho / S; each prompt interleaved adds about S to its gaps, so its TPOT is
//    t_d + K S / (n - 1) with K Poisson of mean lambda_r (n - 1) TPOT, whose mean is TPOT;
//    TPOT_p99 is the 99th percentile over requests of that per-request TPOT, each request of its
//    own output length (tpot_p99_over_outputs): with short outputs one prompt in the only gap is
//    the p99 request's whole TPOT, where the mean spreads it thin;
//  - TTFT_p99 = prefill_p99 + W_p99; e2e = TTFT + (output - 1) x TPOT (PRODUCT.md definition),
//    e2e_p99 with the p99 output length.
// The iterations the planner asks the estimator about: `batch` decodes at a mean context of
// `context_tokens`, and one causal prompt of `prompt_tokens` alone.
infer::StepBatch decode_batch(int batch, double context_tokens);
infer::StepBatch prefill_batch(double prompt_tokens);

OperatingPoint steady_state(const ReplicaModel& model, const InferenceWorkload& w, int batch);

// The same model for many shapes and batches of one workload (the planner's search): the request
// gaps are derived once, the Poisson tails reuse one scratch buffer, and the two questions a
// search asks most need less than a full point. Not for concurrent use (the scratch is shared).
class SteadyState {
 public:
  struct Scratch;  // the Poisson tails' storage, reused between points (steady_state.cc)
  explicit SteadyState(const InferenceWorkload& w);  // `w` must outlive this
  ~SteadyState();
  // steady_state(model, w, batch).
  OperatingPoint at(const ReplicaModel& model, int batch) const;
  // The same point without its TPOT p99 (NaN): rates, TPOT, TTFT and e2e, for callers that read
  // nothing else (the search's throughput samples).
  OperatingPoint rates_at(const ReplicaModel& model, int batch) const;
  // meets_sla(at(model, batch), w.sla, why), the TPOT p99 term decided by tpot_p99_exceeds (one or
  // two evaluations of the tail instead of the bisection) when no reason is asked for.
  bool meets_sla_at(const ReplicaModel& model, int batch, std::string* why = nullptr) const;

 private:
  bool interleaved_p99_exceeds(const OperatingPoint& p) const;
  const InferenceWorkload& w_;
  std::vector<WeightedLength> gaps_;
  std::unique_ptr<Scratch> scratch_;
};

// The requests' gaps (output tokens - 1) as weighted points, from the output's length points
// (Lengths::points; none: every request at the mean). Requests of one token have no TPOT
// (serve/metrics.cc) and are left out, the weights of the rest scaled to sum to 1.
std::vector<WeightedLength> request_gaps(const Lengths& output);

// The share of requests whose TPOT exceeds t: sum_i gaps[i].weight x exceeds(i, t).
template <class Exceeds>
double share_over(const std::vector<WeightedLength>& gaps, Exceeds& exceeds, double t) {
  double p = 0;
  for (size_t i = 0; i < gaps.size(); ++i) p += gaps[i].weight * exceeds(i, t);
  return p;
}

// The 99th percentile over requests of a TPOT that falls with the request's gaps: the least t in
// [lo, hi] with sum_i gaps[i].weight x exceeds(i, t) <= 1 %, exceeds(i, t) = P(TPOT > t) for a
// request of gaps[i].tokens gaps (non-increasing in t; `hi` must satisfy the bound, e.g. the
// largest per-point 99th percentile). By bisection to 1e-4 relative (0.005 ms of a 50 ms TPOT),
// except that the answer is <= `target` exactly when the mixture's tail at `target` is <= 1 %,
// so an SLA check on it is exact.
// With short outputs in the mix the p99 request is a short one, whose few gaps a prompt or a
// handoff dominates: the mean output hides it (ShareGPT's 1 % quantile is 34 tokens, its mean 338).
template <class Exceeds>
Seconds tpot_p99_over_requests(const std::vector<WeightedLength>& gaps, Seconds lo, Seconds hi,
                               Seconds target, Exceeds exceeds) {
  auto over = [&](double t) { return share_over(gaps, exceeds, t); };
  double a = lo.value(), b = std::max(lo.value(), hi.value());
  if (over(a) <= 0.01) return lo;
  if (const double c = target.value(); c > a && c < b) (over(c) <= 0.01 ? b : a) = c;
  for (int i = 0; i < 30 && b - a > 1e-4 * b; ++i) {
    const double mid = 0.5 * (a + b);
    (over(mid) <= 0.01 ? b : a) = mid;
  }
  return Seconds(b);
}

// Whether tpot_p99_over_requests(gaps, lo, hi, target, exceeds) > target, with the same answer:
// the bisection's first two steps (the tail at `lo`, then at `target` when it lies inside the
// bracket) already decide which side of the target its result falls, and a target outside the
// bracket needs none (above it: never exceeded; below: the answer is at least lo). `over_lo` is the tail at lo (share_over(gaps,
// exceeds, lo)) where the caller knows it; the tail at the target is summed only until it passes
// 1 %, as the rest only adds to it.
template <class Exceeds>
bool tpot_p99_exceeds(const std::vector<WeightedLength>& gaps, Seconds lo, Seconds hi,
                      Seconds target, Exceeds exceeds, double over_lo) {
  const double a = lo.value(), b = std::max(lo.value(), hi.value());
  if (over_lo <= 0.01) return lo > target;  // the answer is lo
  const double c = target.value();
  if (c > a && c < b) {  // b moves to c (answer <= c) or a does (> c)
    double over = 0;
    for (size_t i = 0; i < gaps.size() && !(over > 0.01); ++i) over += gaps[i].weight * exceeds(i, c);
    return !(over <= 0.01);
  }
  if (c >= b) return false;  // the answer never exceeds the bracket's top
  if (c <= a) return true;   // c <= lo < b: the answer is at least lo, and above it as b > lo
  return tpot_p99_over_requests(gaps, lo, hi, target, exceeds) > target;  // a NaN target
}
template <class Exceeds>
bool tpot_p99_exceeds(const std::vector<WeightedLength>& gaps, Seconds lo, Seconds hi,
                      Seconds target, Exceeds exceeds) {
  return tpot_p99_exceeds(gaps, lo, hi, target, exceeds, share_over(gaps, exceeds, lo.value()));
}

// Whether the point meets the SLA; if not, `why` names the first term that fails, with numbers.
bool meets_sla(const OperatingPoint& p, const Sla& sla, std::string* why = nullptr);

}  // namespace memwall::plan
