#include "memwall/plan/disaggregated.h"

#include <algorithm>
#include <cmath>

#include "memwall/plan/in_flight.h"
#include "memwall/plan/steady_state.h"

namespace memwall::plan {

std::optional<PoolLink> pool_link(const Node* node, int devices, const Fabric* fabric) {
  if (!node || !fabric || node->nics <= 0 || node->devices <= 0 || devices <= 0) return std::nullopt;
  // A NIC runs at the slower of its own rate and the fabric port it plugs into.
  const BytesPerSecond port =
      std::min(node->nic_bandwidth_per_direction, fabric->port_bandwidth_per_direction);
  if (!(port.value() > 0)) return std::nullopt;
  // The replica owns devices / node.devices of the node's NICs (all of them on several nodes).
  const BytesPerSecond bw = port * (static_cast<double>(node->nics) * devices / node->devices);
  // Leaf - spine - leaf (2 tiers: 3 switch traversals; 3 tiers: 5), plus both endpoints.
  const Seconds latency = fabric->endpoint_latency + fabric->switch_hop_latency * (2.0 * fabric->tiers - 1.0);
  return PoolLink{bw, latency};
}

Seconds kv_transfer_time(Bytes kv_bytes_per_token, double prompt_tokens, const PoolLink& a,
                         const PoolLink& b) {
  const BytesPerSecond bw = std::min(a.bandwidth, b.bandwidth);
  return std::max(a.latency, b.latency) + Seconds(kv_bytes_per_token.value() * prompt_tokens / bw.value());
}

double mg1_wait_mean(double s, double rho, double c2) {
  return rho < 1 ? rho * s * (1.0 + c2) / (2.0 * (1.0 - rho)) : HUGE_VAL;
}

double mg1_wait_p99(double s, double rho, double c2) {
  if (rho >= 1) return HUGE_VAL;
  return rho > 0.01 ? mg1_wait_mean(s, rho, c2) / rho * std::log(100.0 * rho) : 0.0;
}

namespace {

// pi(k), k = 0..m, of the finite-source chain with m users, c servers, service rate mu and
// return rate nu per user away: pi(k) / pi(k-1) = (m - k + 1) nu / (min(k, c) mu), summed in
// logarithms (the ratios' product spans hundreds of orders of magnitude) and normalised.
std::vector<double> closed_states(int m, int c, double mu, double nu) {
  std::vector<double> p(static_cast<size_t>(m) + 1, 0.0);
  const double log_ratio = std::log(nu / mu);
  for (int k = 1; k <= m; ++k)
    p[k] = p[k - 1] + log_ratio + std::log(double(m - k + 1) / std::min(k, c));
  const double top = *std::max_element(p.begin(), p.end());
  double sum = 0;
  for (double& v : p) sum += (v = std::exp(v - top));
  for (double& v : p) v /= sum;
  return p;
}

}  // namespace

ClosedPrefillQueue closed_prefill_queue(int users, int servers, double s, double z) {
  ClosedPrefillQueue q;
  if (users < 1 || servers < 1 || !(s > 0)) return q;
  const double mu = 1.0 / s;
  // No time away (one-token outputs): every user is always in the pool; a tiny z stands for it.
  const double nu = 1.0 / std::max(z, 1e-9 * s);
  const auto pn = closed_states(users, servers, mu, nu);
  for (int k = 1; k <= users; ++k) q.throughput_per_s += pn[k] * std::min(k, servers) * mu;
  // What an arriving prompt sees: the chain of users - 1.
  const int m = users - 1;
  if (m < servers) return q;  // a server is always free
  const auto pa = closed_states(m, servers, mu, nu);
  const double rate = servers * mu;  // prompts leave at c / s while all servers are busy
  double p_wait = 0;
  for (int k = servers; k <= m; ++k) {
    p_wait += pa[k];
    q.wait_mean_s += pa[k] * (k - servers + 1) / rate;
  }
  if (p_wait <= 0.01) return q;  // fewer than 1 % of prompts wait: W_p99 = 0
  // P(W > t) = sum_{k >= c} pi(k) Q(k - c + 1, rate t), Q the regularised upper incomplete gamma
  // (an Erlang tail): Q(i + 1, x) = Q(i, x) + e^-x x^i / i!, the term by the recurrence
  // x / i. e^-x underflows only for x > 700, where Q(i + 1, x) with i < kFiniteSourceMaxUsers is
  // below 1e-10 and the sum's 0 is right.
  auto tail = [&](double t) {
    const double x = rate * t;
    double p = 0, term = std::exp(-x), q_i = 0;
    for (int k = servers; k <= m; ++k) {
      const int i = k - servers;
      if (i > 0) term *= x / i;
      q_i += term;
      p += pa[k] * q_i;
    }
    return p;
  };
  double lo = 0, hi = (m - servers + 1) / rate;
  while (tail(hi) > 0.01) hi *= 2;
  while (hi - lo > 1e-4 * hi) {
    const double mid = 0.5 * (lo + hi);
    (tail(mid) > 0.01 ? lo : hi) = mid;
  }
  q.wait_p99_s = hi;
  return q;
}

double prompt_time_cv2(const Lengths& input) {
  if (input.points.empty()) return input.p99 == input.mean ? 0.0 : 1.0;
  double m1 = 0, m2 = 0, w = 0;
  for (const auto& p : input.points) {
    m1 += p.weight * p.tokens;
    m2 += p.weight * p.tokens * p.tokens;
    w += p.weight;
  }
  if (!(w > 0) || !(m1 > 0)) return 1.0;
  m1 /= w;
  m2 /= w;
  return std::max(0.0, m2 / (m1 * m1) - 1.0);
}

double max_prefill_utilisation(Seconds prompt_mean, Seconds prompt_p99, Seconds ttft_p99, double c2) {
  const double s = prompt_mean.value(), budget = ttft_p99.value() - prompt_p99.value();
  if (!(s > 0) || !(budget >= 0)) return 0.0;
  double lo = 0.01, hi = 1.0;  // W_p99(0.01) = 0 <= budget
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mg1_wait_p99(s, mid, c2) <= budget ? lo : hi) = mid;
  }
  return lo;
}

PrefillProfile profile_prefill(const ReplicaModel& rm, const InferenceWorkload& w) {
  PrefillProfile p;
  p.prompt_mean = rm.step(prefill_batch(w.input.mean));
  p.prompt_p99 = rm.step(prefill_batch(w.input.p99));
  p.service_cv2 = prompt_time_cv2(w.input);
  p.rho_max = max_prefill_utilisation(p.prompt_mean, p.prompt_p99, w.sla.ttft_p99, p.service_cv2);
  if (rm.activity) p.activity = rm.activity(prefill_batch(w.input.mean));
  return p;
}

namespace {

// `answer(lo, hi, exceeds)` with the bounds and tail of the TPOT p99 of a decode pool at a step of
// `step` s: the percentile itself (tpot_p99_over_requests) or whether it is above the target
// (tpot_p99_exceeds). The p99 over requests, each of its own length: TPOT = step + (transfer + W)
// / g with W the two iteration-boundary waits, each uniform on [0, step], so triangular on
// [0, 2 step].
template <class Answer>
auto decode_tail(const std::vector<WeightedLength>& request, double step, Seconds transfer_mean,
                 Answer answer) {
  double fewest = request.front().tokens;
  for (const WeightedLength& g : request) fewest = std::min(fewest, g.tokens);
  const double transfer = transfer_mean.value();
  auto exceeds = [&](size_t i, double t) {
    const double x = (t - step) * request[i].tokens - transfer;  // waits putting TPOT above t
    if (x <= 0) return 1.0;
    if (x >= 2 * step) return 0.0;
    return x <= step ? 1.0 - x * x / (2 * step * step) : (2 * step - x) * (2 * step - x) / (2 * step * step);
  };
  return answer(Seconds(step), Seconds(step + (transfer + 2 * step) / fewest), exceeds);
}

}  // namespace

Seconds decode_tpot_p99(const InferenceWorkload& w, const std::vector<WeightedLength>& request,
                        Seconds transfer_mean, Seconds step) {
  return decode_tail(request, step.value(), transfer_mean, [&](Seconds lo, Seconds hi, auto exceeds) {
    return tpot_p99_over_requests(request, lo, hi, w.sla.tpot_p99, exceeds);
  });
}

DecodePool decode_pool(const InferenceWorkload& w, Seconds transfer_mean, int batch_cap,
                       const std::function<Seconds(int)>& decode_step) {
  const std::vector<WeightedLength> request = request_gaps(w.output);
  DecodePool p = decode_pool_sized(w, request, transfer_mean, batch_cap, decode_step);
  if (p.feasible) p.tpot_p99 = decode_tpot_p99(w, request, transfer_mean, p.step);
  return p;
}

DecodePool decode_pool_sized(const InferenceWorkload& w, const std::vector<WeightedLength>& request,
                             Seconds transfer_mean, int batch_cap,
                             const std::function<Seconds(int)>& decode_step) {
  DecodePool p;
  if (batch_cap < 1) return p;
  const double out = w.output.mean;
  const double gaps = std::max(1.0, out - 1.0);
  // The handoff delays the second token by the KV transfer plus about one decode iteration: the
  // decode replica starts the pull and admits the sequence at iteration boundaries (half an
  // iteration's wait on average at each end).
  auto tpot_at = [&](int b) {
    const Seconds step = decode_step(b);
    return step + (transfer_mean + step) / gaps;
  };
  auto tpot_tail_at = [&](int b, auto answer) {
    return decode_tail(request, decode_step(b).value(), transfer_mean, answer);
  };
  const Seconds sla = w.sla.tpot_p99;
  auto tpot_p99_at = [&](int b) {
    return tpot_tail_at(b, [&](Seconds lo, Seconds hi, auto exceeds) {
      return tpot_p99_over_requests(request, lo, hi, sla, exceeds);
    });
  };
  // At t = step every request's waits put its TPOT above t (x = -transfer <= 0 in decode_tail),
  // so the tail there is the sum of the weights: known once for every batch.
  double weights = 0;
  for (const WeightedLength& g : request) weights += g.weight * 1.0;
  const bool tail_at_step_known = transfer_mean.value() >= 0;
  auto over_target = [&](int b) {  // tpot_p99_at(b) > sla
    return tpot_tail_at(b, [&](Seconds lo, Seconds hi, auto exceeds) {
      if (tail_at_step_known && std::isfinite(lo.value()))
        return tpot_p99_exceeds(request, lo, hi, sla, exceeds, weights);
      return tpot_p99_exceeds(request, lo, hi, sla, exceeds);
    });
  };
  auto within_target = [&](int b) {  // tpot_p99_at(b) <= sla: not over it, unless it is NaN
    if (std::isnan(decode_step(b).value())) return tpot_p99_at(b) <= sla;
    return !over_target(b);
  };
  // The largest decode batch within the TPOT target: TPOT is non-decreasing in the batch.
  int best = batch_cap;
  if (over_target(best)) {
    if (over_target(1)) return p;
    int lo = 1, hi = batch_cap;
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      (within_target(mid) ? lo : hi) = mid;
    }
    best = lo;
  }
  // Decode pool: the fewest replicas nd whose batch b holds the sequences in flight with b <= best.
  // Open loop: sequences(b) = lambda x (output - 1) x TPOT(b) (Little's law), which grows with b;
  // for a given nd the least sufficient b is reached by iterating b <- ceil(sequences(b) / nd)
  // from 1 (the iterates rise until they stop, or pass the cap: try nd + 1); the pool holds the
  // 99.9th percentile of that Poisson count (plan/in_flight.h), not its mean. Closed loop: every
  // user is at most one sequence in flight, so the decode pool is sized for all of them
  // (conservative by the few users whose prompt is still in the prefill pool).
  int n_dec = 1, batch = 1;
  Seconds tpot = tpot_at(1);
  auto sequences = [&](Seconds t) {
    return w.load.concurrency
               ? *w.load.concurrency
               : sequences_to_hold(*w.load.rate_per_s * std::max(0.0, out - 1.0) * t.value());
  };
  n_dec = std::max(1, static_cast<int>(std::ceil(sequences(tpot) / best - 1e-9)));
  for (;; ++n_dec) {
    batch = 1;
    bool fits = true;
    for (;;) {
      tpot = tpot_at(batch);
      const int need = std::max(1, static_cast<int>(std::ceil(sequences(tpot) / n_dec - 1e-9)));
      if (need > best) {
        fits = false;
        break;
      }
      if (need <= batch) break;
      batch = need;
    }
    if (fits) break;
  }
  p.feasible = true;
  p.batch_cap = best;
  p.replicas = n_dec;
  p.batch = batch;
  p.tpot = tpot;
  p.step = decode_step(batch);
  return p;
}

PoolsPoint pools_point(const InferenceWorkload& w, const PrefillProfile& pre, Seconds transfer_mean,
                       Seconds transfer_p99, const DecodePool& dec) {
  PoolsPoint p;
  const double s = pre.prompt_mean.value();
  if (!dec.feasible || !(pre.rho_max > 0) || !(s > 0)) return p;
  const double out = w.output.mean;
  const Seconds tpot = dec.tpot;
  // Prefill pool at arrival rate lambda; closed loop: lambda = users / e2e_mean(lambda), where
  // only the prefill queue depends on lambda (the decode side is fixed above), iterated.
  int n_pre = 1;
  double rho = 0, e2e_mean = 0;
  double lambda = w.load.rate_per_s ? *w.load.rate_per_s : *w.load.concurrency / (s + (out - 1.0) * tpot.value());
  for (int pass = 0; pass < 30; ++pass) {
    n_pre = std::max(1, static_cast<int>(std::ceil(lambda * s / pre.rho_max - 1e-9)));
    rho = lambda * s / n_pre;
    e2e_mean = s + mg1_wait_mean(s, rho, pre.service_cv2) + (out - 1.0) * tpot.value();
    if (w.load.rate_per_s) break;
    const double next = *w.load.concurrency / e2e_mean;
    if (std::abs(next - lambda) <= 1e-9 * lambda) break;
    lambda = next;
  }
  Seconds wait_mean(mg1_wait_mean(s, rho, pre.service_cv2));
  Seconds wait_p99(mg1_wait_p99(s, rho, pre.service_cv2));
  if (w.load.concurrency && *w.load.concurrency <= kFiniteSourceMaxUsers) {
    // A few users: the finite-source queue, whose wait falls as replicas are added; the fewest
    // replicas (bisection, at most the open model's) whose TTFT p99 meets the target.
    // The mean wait is scaled by the prompts' spread (Allen-Cunneen); the p99 is the exponential
    // chain's own, unscaled: for fixed prompts the halved tail was 20 % short of the simulated
    // one on the long-context question (TTFT p99 22.2 s analytic, 26.3 s simulated), and a short
    // tail buys too few replicas.
    const int users = static_cast<int>(*w.load.concurrency);
    const double away = transfer_mean.value() + (out - 1.0) * tpot.value();
    const double spread = (1.0 + pre.service_cv2) / 2.0;  // Allen-Cunneen
    auto ttft_ok = [&](int n) {
      const auto q = closed_prefill_queue(users, n, s, away);
      return pre.prompt_p99.value() + q.wait_p99_s <= w.sla.ttft_p99.value();
    };
    int lo = 0, hi = std::min(n_pre, users);  // ttft_ok(users): nobody waits
    if (!ttft_ok(hi)) hi = users;
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      (ttft_ok(mid) ? hi : lo) = mid;
    }
    n_pre = hi;
    const auto q = closed_prefill_queue(users, n_pre, s, away);
    wait_mean = Seconds(spread * q.wait_mean_s);
    wait_p99 = Seconds(q.wait_p99_s);
    // Little's law over one request, at most what n_pre busy replicas serve.
    lambda = std::min(users / (s + wait_mean.value() + away), n_pre / s);
    rho = lambda * s / n_pre;
    e2e_mean = s + wait_mean.value() + (out - 1.0) * tpot.value();
  }
  const double conc = lambda * std::max(0.0, out - 1.0) * tpot.value();  // sequences decoding
  p.lambda = lambda;
  p.prefill_replicas = n_pre;
  p.decode_replicas = dec.replicas;
  p.prefill_utilisation = rho;
  p.decode_batch = dec.batch;
  p.batch_cap = dec.batch_cap;
  p.decode_concurrency = conc;
  p.decode_step = dec.step;
  p.transfer_mean = transfer_mean;
  p.transfer_p99 = transfer_p99;
  p.tpot = tpot;
  p.tpot_p99 = dec.tpot_p99;
  p.ttft_mean = Seconds(s) + wait_mean;
  p.ttft_p99 = pre.prompt_p99 + wait_p99;
  p.e2e_mean = Seconds(e2e_mean);
  p.e2e_p99 = p.ttft_p99 + transfer_p99 + p.decode_step * std::max(w.output.p99, out);
  p.generated_tokens_per_s = lambda * out;
  p.feasible = p.ttft_p99 <= w.sla.ttft_p99 && (!w.sla.e2e_p99 || p.e2e_p99 <= *w.sla.e2e_p99);
  return p;
}

PoolsPoint pools_point(const InferenceWorkload& w, const PrefillProfile& pre, Seconds transfer_mean,
                       Seconds transfer_p99, int batch_cap,
                       const std::function<Seconds(int)>& decode_step) {
  if (batch_cap < 1 || !(pre.rho_max > 0) || !(pre.prompt_mean.value() > 0)) return {};
  return pools_point(w, pre, transfer_mean, transfer_p99, decode_pool(w, transfer_mean, batch_cap, decode_step));
}

}  // namespace memwall::plan
