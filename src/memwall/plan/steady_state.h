// The analytic steady state of one aggregated replica (continuous batching, prefill interleaved
// with decode) holding `batch` sequences in flight: decode and prefill iteration times from the
// estimator, then TPOT, TTFT p99 and end-to-end latency with the queueing the prefill load causes.
// Quick to evaluate; the serving simulator (--verify) checks the chosen plans event by event.
#pragma once

#include <string>

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
//    ln(100 rho) for rho > 0.01, mean W = S rho / (1 - rho), with S = prefill_mean;
//  - a request of mean output n decodes over (n - 1) TPOT while prompts arrive at
//    lambda_r = rho / S; each prompt interleaved adds about S to its gaps, so its TPOT is
//    t_d + K S / (n - 1) with K Poisson of mean lambda_r (n - 1) TPOT, whose mean is TPOT;
//    TPOT_p99 takes K at its 99th percentile (plan/in_flight.h): with short outputs one prompt in
//    the only gap is the p99 request's whole TPOT, where the mean spreads it thin;
//  - TTFT_p99 = prefill_p99 + W_p99; e2e = TTFT + (output - 1) x TPOT (PRODUCT.md definition),
//    e2e_p99 with the p99 output length.
// The iterations the planner asks the estimator about: `batch` decodes at a mean context of
// `context_tokens`, and one causal prompt of `prompt_tokens` alone.
infer::StepBatch decode_batch(int batch, double context_tokens);
infer::StepBatch prefill_batch(double prompt_tokens);

OperatingPoint steady_state(const ReplicaModel& model, const InferenceWorkload& w, int batch);

// Whether the point meets the SLA; if not, `why` names the first term that fails, with numbers.
bool meets_sla(const OperatingPoint& p, const Sla& sla, std::string* why = nullptr);

}  // namespace memwall::plan
