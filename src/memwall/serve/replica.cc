#include "memwall/serve/replica.h"

#include <fmt/format.h>

#include <algorithm>
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
  const offload::HostLinkModel link =
      config_.host_link ? *config_.host_link
                        : offload::HostLinkModel{"", config_.swap_bandwidth, Seconds(0)};
  const double layers = std::max(1, config_.layers);
  // Prefix KV loaded from the host cache: layer by layer, each layer's copy overlapping the
  // previous layer's compute (SGLang HiCache's layer-wise overlap, LMCache's layerwise
  // retrieval), a two-stage pipeline of `layers` steps: (compute + load) / L + (L - 1) / L x max.
  if (plan.load_tokens > 0) {
    const double load =
        offload::copy_time(link, config_.kv_bytes_per_token * double(plan.load_tokens), layers)
            .value();
    const double overlapped = (dt + load) / layers + (layers - 1) / layers * std::max(dt, load);
    load_time_s_ += load;
    load_exposed_s_ += overlapped - dt;
    dt = overlapped;
  }
  // Swapping blocks to and from host memory stalls the iteration: vLLM (V0) copies them
  // synchronously before the forward pass, layer by layer, out then in.
  const int64_t swapped = plan.swap_out_tokens + plan.swap_in_tokens;
  if (swapped > 0) {
    const double directions =
        (plan.swap_out_tokens > 0 ? 1.0 : 0.0) + (plan.swap_in_tokens > 0 ? 1.0 : 0.0);
    const double t =
        offload::copy_time(link, config_.kv_bytes_per_token * double(swapped), directions * layers)
            .value();
    swap_time_s_ += t;
    dt += t;
  }
  if (dt <= 0) dt = 1e-9;  // a swap-only iteration with no bytes cannot happen; keep time moving
  metrics_.iteration(index_, now, dt, plan, scheduler_.kv_tokens(), kv_.capacity_tokens(),
                     scheduler_.resident(), scheduler_.waiting());
  busy_ = true;
  return now + dt;
}

HostKvStats Replica::host_kv() const {
  HostKvStats k = scheduler_.host_kv();
  k.swap_time_s = swap_time_s_;
  k.load_time_s = load_time_s_;
  k.load_exposed_s = load_exposed_s_;
  return k;
}

void Replica::finish(IterationOutcome& out) {
  scheduler_.complete(out);
  busy_ = false;
}

}  // namespace memwall::serve
