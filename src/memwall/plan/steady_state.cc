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

OperatingPoint steady_state(const ReplicaModel& model, const InferenceWorkload& w, int batch) {
  OperatingPoint p;
  p.batch = batch;
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
  const double gaps = std::max(1.0, out - 1.0);
  const double interleaved_p99 = poisson_quantile(rho / s * gaps * p.tpot.value(), 0.99);
  p.tpot_p99 = std::max(p.tpot, Seconds(td + s * interleaved_p99 / gaps));
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
