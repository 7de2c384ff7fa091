// Disaggregated serving: prompts run on a prefill pool, their KV cache moves over the cluster
// network to a decode pool that only generates (DistServe, Zhong et al. OSDI 2024; Splitwise,
// Patel et al. ISCA 2024). The two pools may use different hardware. This file holds the analytic
// model of the two pools; the planner (inference_search.cc) pairs every prefill shape with every
// decode shape through it.
#pragma once

#include <functional>
#include <optional>

#include "memwall/core/units.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"
#include "memwall/plan/replica_model.h"
#include "memwall/plan/workload.h"

namespace memwall::plan {

// Bandwidth and latency of the scale-out link of one replica of `devices` devices in `node`, over
// `fabric`: its share of the node's NICs (each limited by the fabric port), per direction.
// nullopt when the node has no NIC or no fabric is given (no way to move KV between pools).
struct PoolLink {
  BytesPerSecond bandwidth;
  Seconds latency;  // endpoint + leaf-spine-leaf switch traversals
};
std::optional<PoolLink> pool_link(const Node* node, int devices, const Fabric* fabric);

// Time to move the KV of a prompt of `prompt_tokens` from a prefill replica to a decode replica:
// alpha-beta over the slower of the two links (Hockney 1994): latency + bytes / bandwidth.
Seconds kv_transfer_time(Bytes kv_bytes_per_token, double prompt_tokens, const PoolLink& a,
                         const PoolLink& b);

// Waiting time of a prefill replica at utilisation rho, mean service s and squared coefficient of
// variation c2 of the service time (M/G/1): the mean is Pollaczek-Khinchine's,
// W = rho s (1 + c2) / (2 (1 - rho)) (Kleinrock 1975, Queueing Systems Vol. 1 §5.7); the tail
// takes a prompt to wait with probability rho (P(W > 0) = rho, §5.7) and the wait then to be
// exponential with the mean that gives W: P(W > t) = rho exp(-t rho / W). For exponential
// service (c2 = 1) that is M/M/1's exact rho e^{-(1-rho) t / s} (§3.2); for fixed prompts
// (c2 = 0, M/D/1) the wait is half as long, where M/M/1 would double a long-context plan's
// prefill pool. W_p99 = (W / rho) ln(100 rho), 0 when rho <= 1 %.
double mg1_wait_mean(double s, double rho, double c2 = 1);
double mg1_wait_p99(double s, double rho, double c2 = 1);

// The prefill pool of a closed loop of `users` (each sends its next request when the last one
// ends): a finite-source queue, M/M/c//N (the machine-repairman model; Kleinrock 1975 Vol. 1
// §3.10; Gross & Harris, Fundamentals of Queueing Theory §2.7). `servers` replicas share the
// waiting prompts (least-outstanding routing, as the simulator's, approximated as one queue),
// each prompt takes an exponential time of mean `s`, and a user is away for `z` (KV transfer and
// decode) between prompts. The chain's state k = prompts in the pool: up-rate (N - k) / z,
// down-rate min(k, c) / s. An arriving prompt sees the pool as it is with N - 1 users (the
// arrival theorem, Sevcik & Mitrani 1981), and with k >= c ahead waits an Erlang(k - c + 1, c/s)
// time. The state distribution does not depend on how `z` is distributed (insensitivity of the
// finite-source queue to the source time). throughput = sum_k pi_N(k) min(k, c) / s.
// Unlike the open model it never has more than N - 1 prompts ahead, which is what a few users
// with long prompts see; as N grows at a fixed rate it approaches M/M/c.
struct ClosedPrefillQueue {
  double throughput_per_s = 0;  // prompts/s through the pool
  double wait_mean_s = 0, wait_p99_s = 0;
};
ClosedPrefillQueue closed_prefill_queue(int users, int servers, double s, double z);
// The closed loops the finite-source model sizes: where a few users make it differ from the open
// model. More users are sized by the open model above (lambda from the fixed point), which waits
// longer and so buys more, never fewer, replicas; the chain's cost grows with the users, and the
// planner solves thousands of pool pairs.
inline constexpr int kFiniteSourceMaxUsers = 64;

// The squared coefficient of variation of a prompt's prefill time, taken as that of its length
// (prefill time grows about linearly with the prompt; the attention term's quadratic growth makes
// the time vary somewhat more, the fixed per-step cost less): from the distribution's points; 0
// for fixed lengths (no points and p99 = mean); 1 (exponential, M/M/1) when only the mean and a
// different p99 are known.
double prompt_time_cv2(const Lengths& input);

// The largest utilisation of a prefill replica at which TTFT p99 = p99 prompt time + W_p99(rho)
// stays within `ttft_p99` (W_p99 is increasing in rho, so bisection). 0 when even an idle replica
// misses it.
double max_prefill_utilisation(Seconds prompt_mean, Seconds prompt_p99, Seconds ttft_p99,
                               double c2 = 1);

// Everything about a prefill shape that does not depend on the decode side.
struct PrefillProfile {
  Seconds prompt_mean;  // a mean prompt alone on one replica
  Seconds prompt_p99;   // a p99 prompt alone
  double rho_max = 0;   // from max_prefill_utilisation
  double service_cv2 = 1;  // prompt_time_cv2 of the workload's prompts
  double activity = 1;  // device activity while prefilling (power model)
};
PrefillProfile profile_prefill(const ReplicaModel& rm, const InferenceWorkload& w);

// The two pools at one load (docs/plan.md "Disaggregated pools"):
//  - lambda = offered requests/s (closed loop: users / e2e_mean, fixed point);
//  - prefill replicas N_p = ceil(lambda x prompt_mean / rho_max); TTFT = M/G/1 wait + prompt time
//    (the first token comes out of the prefill pool); a closed loop of at most
//    kFiniteSourceMaxUsers users: the fewest N_p whose finite-source wait (closed_prefill_queue)
//    keeps TTFT p99 = p99 prompt time + W_p99 within the target, the mean wait scaled by
//    (1 + c2) / 2 for the prompts' spread as Allen-Cunneen's GI/G/c approximation does (Allen
//    1990 §6.5), the p99 not (conservative for fixed prompts), and lambda = min(users / (prompt +
//    W_mean + transfer + decode), N_p / prompt) (Little's law over one request, at most what the
//    pool serves);
//  - TPOT = decode step at the decode batch + (KV transfer + one decode step) / (output - 1): the
//    handoff delays the second token (the pull starts and the sequence joins at decode iteration
//    boundaries, each wait uniform over one iteration), spread over the output's gaps like every
//    other gap; TPOT p99 (what the target binds) is the 99th percentile over requests of
//    step + (KV transfer + W) / (output - 1), W the sum of the two waits (triangular on [0, 2
//    steps]) and each request of its own output length (steady_state.h tpot_p99_over_outputs);
//  - decode sequences in flight = lambda x (output - 1) x TPOT (Little's law), N_d = ceil(that /
//  B).
struct PoolsPoint {
  bool feasible = false;
  double lambda = 0;           // requests/s through the deployment
  int prefill_replicas = 0, decode_replicas = 0;
  double prefill_utilisation = 0;
  int decode_batch = 0;        // sequences per decode replica
  int batch_cap = 0;           // the most a decode replica may hold within the TPOT target
  double decode_concurrency = 0;
  Seconds decode_step, transfer_mean, transfer_p99, tpot, ttft_mean, ttft_p99, e2e_mean, e2e_p99;
  Seconds tpot_p99;
  double generated_tokens_per_s = 0;  // whole deployment
};

// The decode pool alone: it depends on the prefill shape only through the KV transfer time, so
// the planner solves it once per (decode shape, transfer time) and pairs it with every prefill
// shape whose link gives that time. `decode_step(b)` times one decode iteration of b sequences on
// a decode replica; `batch_cap` is the largest batch a decode replica may hold (memory).
struct DecodePool {
  bool feasible = false;  // some decode batch meets the TPOT target with the transfer added
  int batch_cap = 0;      // the largest batch within the TPOT target
  int replicas = 0, batch = 0;
  Seconds tpot, step;     // at `batch`
  Seconds tpot_p99;       // at `batch`, a whole iteration's wait at each end of the handoff
};
DecodePool decode_pool(const InferenceWorkload& w, Seconds transfer_mean, int batch_cap,
                       const std::function<Seconds(int)>& decode_step);
// decode_pool in two parts, for a caller that sizes many pools and reports few (the planner's
// pairing): the pool without its TPOT p99 (left at 0) for the requests' gaps `request`
// (request_gaps(w.output), derived once), and the TPOT p99 of a pool at its step. decode_pool =
// decode_pool_sized, then tpot_p99 = decode_tpot_p99(.., pool.step) when feasible.
DecodePool decode_pool_sized(const InferenceWorkload& w, const std::vector<WeightedLength>& request,
                             Seconds transfer_mean, int batch_cap,
                             const std::function<Seconds(int)>& decode_step);
Seconds decode_tpot_p99(const InferenceWorkload& w, const std::vector<WeightedLength>& request,
                        Seconds transfer_mean, Seconds step);

// Returns feasible = false when no decode batch meets the TPOT target with the transfer added,
// or the TTFT / e2e target fails.
PoolsPoint pools_point(const InferenceWorkload& w, const PrefillProfile& pre, Seconds transfer_mean,
                       Seconds transfer_p99, const DecodePool& dec);
PoolsPoint pools_point(const InferenceWorkload& w, const PrefillProfile& pre, Seconds transfer_mean,
                       Seconds transfer_p99, int batch_cap,
                       const std::function<Seconds(int)>& decode_step);

}  // namespace memwall::plan
