#include "memwall/serve/replica.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"

namespace memwall::serve {

Replica::Replica(int index, const ReplicaConfig& config, StepCost cost, RequestTable& table,
                 MetricsRecorder& metrics)
    : index_(index),
      config_(config),
      cost_(std::move(cost)),
      kv_(config.kv),
      scheduler_(config.scheduler, kv_, table),
      metrics_(metrics) {}

std::optional<double> Replica::start(double now, bool arrivals_done) {
  if (busy_) return std::nullopt;
  const IterationPlan& plan = scheduler_.plan(now, arrivals_done);
  if (plan.empty()) return std::nullopt;
  double dt = 0;
  if (plan.prefill.size() + static_cast<size_t>(plan.batch.decode_sequences) > 0) {
    dt = cost_(plan.batch).value();
    if (!std::isfinite(dt) || dt <= 0)
      throw InfeasibleError(fmt::format(
          "the step-cost model returned {} s for an iteration of {} prefill tokens and {} "
          "decoding sequences",
          dt, plan.batch.prefill_tokens, plan.batch.decode_sequences));
  }
  // Swapping blocks to and from host memory stalls the iteration (vLLM swaps synchronously).
  const double swapped_bytes = static_cast<double>(plan.swap_out_tokens + plan.swap_in_tokens) *
                               config_.kv_bytes_per_token.value();
  if (swapped_bytes > 0) dt += swapped_bytes / config_.swap_bandwidth.value();
  if (dt <= 0) dt = 1e-9;  // a swap-only iteration with no bytes cannot happen; keep time moving
  metrics_.iteration(index_, now, dt, plan, scheduler_.kv_tokens(), kv_.capacity_tokens(),
                     scheduler_.resident(), scheduler_.waiting());
  busy_ = true;
  return now + dt;
}

void Replica::finish(IterationOutcome& out) {
  scheduler_.complete(out);
  busy_ = false;
}

}  // namespace memwall::serve
