// How many sequences an open-loop (Poisson) load holds in flight. Each request stays in the system
// for its latency, so the count is that of an M/G/infinity system: Poisson with mean
// lambda x E[latency] whatever the latency's distribution (Palm's theorem; Kleinrock 1975, Queueing
// Systems Vol. 1, section 4.6). A deployment sized for the mean alone has every slot taken about
// half the time, and arrivals then wait for a slot: it must hold the count's upper percentile.
#pragma once

namespace memwall::plan {

// The `probability` quantile of a Poisson count of mean `mean` (>= 0): exact (the smallest k with
// P(N <= k) >= probability) up to a mean of 500, beyond it the Cornish-Fisher expansion
// mean + z sqrt(mean) + (z^2 - 1) / 6 with z the normal quantile, whose error there is below one.
double poisson_quantile(double mean, double probability);

// P(N > k) for a Poisson count N of mean `mean`: summed exactly up to a mean of 500, beyond it the
// normal approximation with continuity correction; 0 once k is 12 deviations and 40 above the mean
// (a tail below 1e-30), which keeps the long-output terms of a mixture cheap.
double poisson_exceeds(double mean, double k);

// The sequences an open loop's replicas must hold: the Poisson count in flight at its 99.9th
// percentile. An arrival that finds every slot taken waits for a whole request's residual time
// (seconds), far beyond any TTFT target, so such arrivals must be rarer than the 1 % a TTFT p99
// leaves (arrivals see the time-average count: PASTA, Wolff 1982).
double sequences_to_hold(double mean_in_flight);

// The most sequences a KV cache of `capacity_tokens` holds when their contexts vary: the sum of B
// contexts of mean m and standard deviation sd is about normal (central limit theorem) with mean
// B m and deviation sd sqrt(B), and it must stay within the cache at its 99th percentile,
// B m + z sd sqrt(B) <= capacity (z = 2.3263), solved for sqrt(B). sd = 0: capacity / m.
int sequences_within_kv(double capacity_tokens, double mean_context, double sd_context);

}  // namespace memwall::plan
