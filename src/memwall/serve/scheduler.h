// The scheduler of one replica: which requests are admitted, which prompt tokens and which decoding
// sequences go into the next iteration, and whom to preempt when KV memory runs out. Policies:
// static and dynamic (request-level) batching, continuous (iteration-level, vLLM-style: prefill
// iterations first, whole prompts), chunked prefill under a token budget (Sarathi-Serve), and the
// prefill-only / decode-only halves of a disaggregated deployment. It asks the KV allocator for
// memory and knows nothing of how long an iteration takes.
//
// Cost per iteration is O(1) in the number of running sequences: decoding sequences are tracked by
// the decode step at which they joined, so the batch's context sum, the sequences that cross a KV
// block boundary (bucketed by step modulo the block size) and the ones that finish (a heap keyed
// by finishing step) are all maintained incrementally.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "memwall/infer/step.h"
#include "memwall/serve/host_cache.h"
#include "memwall/serve/kv_allocator.h"
#include "memwall/serve/workload.h"

namespace memwall::serve {

enum class SchedulerPolicy {
  static_batching,
  dynamic_batching,
  continuous,
  chunked,
  prefill_only,
  decode_only
};
SchedulerPolicy parse_scheduler_policy(const std::string& name);
std::string to_string(SchedulerPolicy p);

enum class Preemption { recompute, swap };

struct SchedulerConfig {
  SchedulerPolicy policy = SchedulerPolicy::continuous;
  int max_batch = 256;           // sequences resident at once (vLLM max_num_seqs, default 256)
  int64_t token_budget = 2048;   // tokens per iteration (vLLM max_num_batched_tokens)
  double batch_timeout_s = 0.1;  // dynamic batching: longest wait of the oldest request
  Preemption preemption = Preemption::recompute;
  int64_t swap_capacity_tokens =
      0;                    // host memory for swapped-out KV (swap falls back to recompute)
  int64_t max_waiting = 0;  // admission limit on the waiting queue; 0: unlimited
  // Host-memory KV cache for prompt prefixes (LMCache / SGLang HiCache), tokens; 0: none.
  int64_t host_cache_tokens = 0;
};

// What KV moved between the GPU and host memory, and where prompt prefixes came from. Tokens are
// counted per replica; every device of the replica moves its own shard of each token.
struct HostKvStats {
  // Swap preemption.
  int64_t swap_out_tokens = 0, swap_in_tokens = 0;
  int64_t swap_fallbacks = 0;  // preemptions that found the swap space full and recomputed
  double swap_time_s = 0;      // iteration stalls for the swap copies
  // Prefix reuse: every prefill of a request with a prefix looks it up. requested = gpu + host +
  // computed (the prefix tokens found in blocks shared on the GPU, loaded from the host cache, and
  // prefilled).
  int64_t prefix_lookups = 0, prefix_requested_tokens = 0, prefix_gpu_tokens = 0;
  int64_t prefix_host_tokens = 0, prefix_computed_tokens = 0;
  HostCacheCounters host_cache;  // hits, stores and evictions of the host cache
  int64_t host_cache_capacity_tokens = 0;
  double load_time_s = 0;     // link time of the host-cache loads
  double load_exposed_s = 0;  // of which not hidden behind the iteration's compute
  void add(const HostKvStats& o);
};

enum class Phase : uint8_t {
  pending,
  waiting,
  prefill,
  decode,
  swapped,
  handoff,
  held,
  finished,
  rejected
};

// Per-request state while it is served; one table shared by all replicas (a request lives on one
// replica at a time). Kept compact: a million of them fit in ~50 MB.
struct Sequence {
  int64_t s0 = 0;         // decode step of this replica at which it joined the decode set
  int32_t ctx0 = 0;       // context length (KV tokens incl. the one written) at step s0
  int32_t g0 = 0;         // output tokens generated before step s0
  int32_t prompt = 0;     // tokens to prefill in this residency (input, + generated on recompute)
  int32_t prefilled = 0;  // of those, in the KV cache
  int32_t generated = 0;  // output tokens generated (materialised whenever it leaves decode)
  int32_t held = 0;       // KV tokens while swapped out, handed off or held after finishing
  KvSeq kv;
  Phase phase = Phase::pending;
  uint8_t epoch = 0;  // bumped when it leaves the decode set: stale heap entries are skipped
  bool internal_counted = false;
};

struct RequestTable {
  std::vector<Request> requests;
  std::vector<Sequence> seqs;
  std::vector<double> first_token_s, finish_s;  // -1 until it happens
  uint32_t add(const Request& r);
};

struct Chunk {
  uint32_t id = 0;
  int32_t start = 0;   // prompt tokens already in the KV cache
  int32_t tokens = 0;  // computed this iteration
};

// What one iteration does.
struct IterationPlan {
  infer::StepBatch batch;
  std::vector<Chunk> prefill;
  int64_t step = -1;  // the decode step, or -1 when no sequence decodes
  int64_t swap_out_tokens = 0, swap_in_tokens = 0;
  int64_t load_tokens = 0;  // prefix tokens copied in from the host cache for this iteration
  bool empty() const { return prefill.empty() && step < 0 && swap_out_tokens == 0; }
  int sequences() const { return batch.prefill_sequences + batch.decode_sequences; }
};

// What an iteration produced, for the replica to time-stamp.
struct IterationOutcome {
  std::vector<uint32_t> first_token, finished, handed_off;
  void clear() {
    first_token.clear();
    finished.clear();
    handed_off.clear();
  }
};

enum class Admission { queued, too_long, never_fits, queue_full };
std::string to_string(Admission a);

// Token counts of the KV memory of the replica right now (see metrics.h for the definitions).
struct KvTokens {
  int64_t used = 0, reserved = 0, internal = 0, external = 0, free = 0;
};

class Scheduler {
 public:
  Scheduler(const SchedulerConfig& config, KvAllocator& kv, RequestTable& table);

  // A request arrives (decode_only: its prefill is done elsewhere and its KV is to be loaded).
  Admission enqueue(uint32_t id);
  // The next iteration at `now` (request-level batching uses it for the timeout; `arrivals_done`:
  // nothing more will arrive). An empty plan means nothing to do until something changes.
  const IterationPlan& plan(double now, bool arrivals_done);
  // Applies the planned iteration's effects.
  void complete(IterationOutcome& out);
  // Dynamic batching: when the oldest waiting request's timeout expires (-1: no timer).
  double wake_at() const { return wake_at_; }
  // decode_only: requests admitted at the last plan whose KV is now to be transferred in.
  const std::vector<uint32_t>& transfers_started() const { return transfers_started_; }
  void transfer_done(uint32_t id);    // decode_only: the KV has arrived; decoding may start
  void release_handoff(uint32_t id);  // prefill_only: the KV has left; free it
  bool has_work() const;

  KvTokens kv_tokens() const;  // the split of the KV memory during the planned iteration
  int64_t generated_tokens() const { return generated_tokens_; }
  int64_t preemptions_recompute() const { return preempt_recompute_; }
  int64_t preemptions_swap() const { return preempt_swap_; }
  // Token counters of swap and prefix reuse (the replica adds the times).
  HostKvStats host_kv() const;
  int64_t waiting() const { return static_cast<int64_t>(waiting_.size()); }
  int64_t resident() const { return resident_; }
  const SchedulerConfig& config() const { return config_; }

 private:
  int64_t final_tokens(uint32_t id) const;
  int bucket_of(const Sequence& s) const;
  void enter_decode(uint32_t id, int64_t step, int64_t held, int32_t generated);
  void leave_decode(uint32_t id, int64_t step);  // materialises generated and held before `step`
  bool try_admit(uint32_t id);                   // KV for the prompt; false when no room
  void release_seq(uint32_t id, int64_t held);
  void preempt(uint32_t victim, int64_t step);
  void plan_decode();
  void plan_prefill(bool whole_prompts, int64_t budget);
  void finalize_plan();
  bool plan_request_level(double now, bool arrivals_done);
  void finish_seq(uint32_t id, int64_t held, IterationOutcome& out);
  void realize_internal(uint32_t id);
  int32_t reused_prefix(uint32_t id);  // prefix tokens not to compute: GPU-shared, then host
  void start_prefill(uint32_t id);

  SchedulerConfig config_;
  KvAllocator& kv_;
  RequestTable& t_;
  int block_ = 1;
  bool paged_ = true;

  std::deque<uint32_t> waiting_, swapped_;
  std::vector<uint32_t> prefilling_;     // admitted, prompt not yet fully in the KV cache
  std::set<uint32_t> decoding_;          // ordered by arrival: the latest is preempted first
  std::vector<uint32_t> batch_members_;  // request-level batching: the batch in flight
  std::vector<uint32_t> transfers_started_, arrived_;
  std::unordered_map<uint32_t, KvSeq> handoff_kv_;  // prefill_only: KV on its way out
  using StepEntry = std::pair<int64_t, uint64_t>;   // (step, id << 8 | epoch)
  std::priority_queue<StepEntry, std::vector<StepEntry>, std::greater<>> finish_heap_,
      internal_heap_;
  std::vector<int64_t> bucket_;  // decoding sequences needing a new block at step % B

  int64_t next_step_ = 0;
  int64_t decode_n_ = 0, decode_a_ = 0;  // count and sum(ctx0 - s0) of decoding sequences
  int64_t prefill_kv_ = 0;               // KV tokens of prefill-phase sequences
  int64_t held_kv_ = 0;                  // KV tokens of handed-off / finished-but-held sequences
  int64_t final_sum_ = 0, shared_sum_ = 0, internal_sum_ = 0;
  int64_t resident_ = 0, swap_used_ = 0;
  int64_t generated_tokens_ = 0, preempt_recompute_ = 0, preempt_swap_ = 0;
  std::optional<HostPrefixCache> host_cache_;
  HostKvStats stats_;
  bool blocked_by_memory_ = false, preempted_this_step_ = false, batch_active_ = false;
  double wake_at_ = -1;
  IterationPlan plan_;
};

}  // namespace memwall::serve
