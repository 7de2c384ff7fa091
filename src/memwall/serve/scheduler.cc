#include "memwall/serve/scheduler.h"

#include <fmt/format.h>

#include <algorithm>

#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t mod(int64_t a, int64_t b) {
  return ((a % b) + b) % b;
}
uint64_t key(uint32_t id, uint8_t epoch) {
  return (uint64_t{id} << 8) | epoch;
}

}  // namespace

SchedulerPolicy parse_scheduler_policy(const std::string& name) {
  if (name == "static") return SchedulerPolicy::static_batching;
  if (name == "dynamic") return SchedulerPolicy::dynamic_batching;
  if (name == "continuous") return SchedulerPolicy::continuous;
  if (name == "chunked") return SchedulerPolicy::chunked;
  throw InputError::unknown_name("--scheduler", name,
                                 {"static", "dynamic", "continuous", "chunked", "disaggregated"});
}

std::string to_string(SchedulerPolicy p) {
  switch (p) {
    case SchedulerPolicy::static_batching:
      return "static";
    case SchedulerPolicy::dynamic_batching:
      return "dynamic";
    case SchedulerPolicy::continuous:
      return "continuous";
    case SchedulerPolicy::chunked:
      return "chunked";
    case SchedulerPolicy::prefill_only:
      return "prefill-only";
    case SchedulerPolicy::decode_only:
      return "decode-only";
  }
  return "?";
}

std::string to_string(Admission a) {
  switch (a) {
    case Admission::queued:
      return "queued";
    case Admission::too_long:
      return "too_long";
    case Admission::never_fits:
      return "never_fits";
    case Admission::queue_full:
      return "queue_full";
  }
  return "?";
}

void HostKvStats::add(const HostKvStats& o) {
  swap_out_tokens += o.swap_out_tokens;
  swap_in_tokens += o.swap_in_tokens;
  swap_fallbacks += o.swap_fallbacks;
  swap_time_s += o.swap_time_s;
  prefix_lookups += o.prefix_lookups;
  prefix_requested_tokens += o.prefix_requested_tokens;
  prefix_gpu_tokens += o.prefix_gpu_tokens;
  prefix_host_tokens += o.prefix_host_tokens;
  prefix_computed_tokens += o.prefix_computed_tokens;
  host_cache.lookups += o.host_cache.lookups;
  host_cache.hits += o.host_cache.hits;
  host_cache.hit_tokens += o.host_cache.hit_tokens;
  host_cache.stored_tokens += o.host_cache.stored_tokens;
  host_cache.evicted_tokens += o.host_cache.evicted_tokens;
  host_cache.evictions += o.host_cache.evictions;
  host_cache.peak_tokens += o.host_cache.peak_tokens;
  host_cache_capacity_tokens += o.host_cache_capacity_tokens;
  load_time_s += o.load_time_s;
  load_exposed_s += o.load_exposed_s;
}

uint32_t RequestTable::add(const Request& r) {
  const auto id = static_cast<uint32_t>(requests.size());
  requests.push_back(r);
  seqs.emplace_back();
  first_token_s.push_back(-1);
  finish_s.push_back(-1);
  return id;
}

Scheduler::Scheduler(const SchedulerConfig& config, KvAllocator& kv, RequestTable& table)
    : config_(config), kv_(kv), t_(table) {
  if (config_.max_batch < 1 || config_.max_batch > 1'000'000)
    throw InputError("--max-batch", std::to_string(config_.max_batch), "sequences in [1, 1000000]");
  if (config_.token_budget < 1 || config_.token_budget > 100'000'000)
    throw InputError("--token-budget", std::to_string(config_.token_budget),
                     "tokens in [1, 100000000]");
  if (!(config_.batch_timeout_s >= 0 && config_.batch_timeout_s < 1e6))
    throw InputError("--batch-timeout", fmt::format("{}", config_.batch_timeout_s),
                     "seconds in [0, 1e6)");
  if (config_.policy == SchedulerPolicy::chunked && config_.token_budget < config_.max_batch)
    throw InputError("--token-budget", std::to_string(config_.token_budget),
                     fmt::format("at least --max-batch ({}) with chunked prefill, so every "
                                 "decoding sequence fits in an iteration",
                                 config_.max_batch));
  paged_ = is_paged(kv_.config().policy);
  block_ = kv_.config().block_tokens;
  if (config_.host_cache_tokens < 0)
    throw InputError("--host-kv-cache", std::to_string(config_.host_cache_tokens),
                     "KV tokens >= 0");
  if (config_.host_cache_tokens > 0) host_cache_.emplace(config_.host_cache_tokens);
  if (paged_) bucket_.assign(static_cast<size_t>(block_), 0);
}

int64_t Scheduler::final_tokens(uint32_t id) const {
  const Request& r = t_.requests[id];
  return int64_t{r.input_tokens} + r.output_tokens - 1;  // the last token's KV is never written
}

int Scheduler::bucket_of(const Sequence& s) const {
  // A decoding sequence needs a new block at step s when its context ctx0 + (s - s0) is one past a
  // block boundary, i.e. s = s0 - ctx0 + 1 (mod B).
  return static_cast<int>(mod(s.s0 - s.ctx0 + 1, block_));
}

Admission Scheduler::enqueue(uint32_t id) {
  const Request& r = t_.requests[id];
  Sequence& s = t_.seqs[id];
  const int64_t fin = final_tokens(id);
  if (int64_t{r.input_tokens} + r.output_tokens > kv_.config().max_sequence_tokens) {
    s.phase = Phase::rejected;
    return Admission::too_long;
  }
  if (!kv_.fits_empty(r.input_tokens, fin)) {
    s.phase = Phase::rejected;
    return Admission::never_fits;
  }
  if (config_.max_waiting > 0 && static_cast<int64_t>(waiting_.size()) >= config_.max_waiting) {
    s.phase = Phase::rejected;
    return Admission::queue_full;
  }
  s.prompt = r.input_tokens;
  s.prefilled = 0;
  if (config_.policy != SchedulerPolicy::decode_only) s.generated = 0;
  s.phase = Phase::waiting;
  waiting_.push_back(id);
  return Admission::queued;
}

bool Scheduler::try_admit(uint32_t id) {
  Sequence& s = t_.seqs[id];
  const Request& r = t_.requests[id];
  const int64_t held = s.phase == Phase::swapped ? s.held + 1 : s.prompt;
  if (!kv_.admit(s.kv, held, final_tokens(id), r.prefix_id, r.prefix_tokens, paged_)) {
    blocked_by_memory_ = true;
    return false;
  }
  ++resident_;
  final_sum_ += final_tokens(id);
  shared_sum_ += int64_t{s.kv.shared_blocks} * block_;
  s.internal_counted = false;
  if (paged_ && ceil_div(held, block_) == ceil_div(final_tokens(id), block_)) realize_internal(id);
  return true;
}

int32_t Scheduler::reused_prefix(uint32_t id) {
  const Sequence& s = t_.seqs[id];
  const Request& r = t_.requests[id];
  // At least the last prompt token is computed, to produce the first output token.
  // The first user of a prefix computes it; later ones find its blocks (s.kv.reused_blocks).
  const int64_t gpu = std::min<int64_t>(int64_t{s.kv.reused_blocks} * block_, s.prompt - 1);
  if (r.prefix_id < 0 || r.prefix_tokens <= 0) return static_cast<int32_t>(gpu);
  const int64_t want = std::min<int64_t>(r.prefix_tokens, s.prompt - 1);
  // GPU prefix cache first (blocks shared with a resident sequence), then the host cache.
  const int64_t on_gpu = std::min(gpu, want);
  const int64_t host =
      host_cache_ ? std::max<int64_t>(0, host_cache_->lookup(r.prefix_id, want) - on_gpu) : 0;
  ++stats_.prefix_lookups;
  stats_.prefix_requested_tokens += want;
  stats_.prefix_gpu_tokens += on_gpu;
  stats_.prefix_host_tokens += host;
  stats_.prefix_computed_tokens += want - on_gpu - host;
  plan_.load_tokens += host;
  return static_cast<int32_t>(std::max(gpu, on_gpu + host));
}

void Scheduler::start_prefill(uint32_t id) {
  Sequence& s = t_.seqs[id];
  s.phase = Phase::prefill;
  // Reused prefix tokens are in the KV cache already: prefill starts after them (prefix caching).
  s.prefilled = reused_prefix(id);
  prefill_kv_ += s.prefilled;
  prefilling_.push_back(id);
}

HostKvStats Scheduler::host_kv() const {
  HostKvStats k = stats_;
  if (host_cache_) {
    k.host_cache = host_cache_->counters();
    k.host_cache_capacity_tokens = host_cache_->capacity_tokens();
  }
  return k;
}

void Scheduler::realize_internal(uint32_t id) {
  Sequence& s = t_.seqs[id];
  if (s.internal_counted) return;
  const int64_t fin = final_tokens(id);
  internal_sum_ += ceil_div(fin, block_) * block_ - fin;
  s.internal_counted = true;
}

void Scheduler::release_seq(uint32_t id, int64_t held) {
  Sequence& s = t_.seqs[id];
  const int64_t fin = final_tokens(id);
  shared_sum_ -= int64_t{s.kv.shared_blocks} * block_;
  if (s.internal_counted) internal_sum_ -= ceil_div(fin, block_) * block_ - fin;
  s.internal_counted = false;
  kv_.release(s.kv, held);
  --resident_;
  final_sum_ -= fin;
}

void Scheduler::enter_decode(uint32_t id, int64_t step, int64_t held, int32_t generated) {
  Sequence& s = t_.seqs[id];
  const Request& r = t_.requests[id];
  s.s0 = step;
  s.ctx0 = static_cast<int32_t>(held + 1);
  s.g0 = generated;
  s.phase = Phase::decode;
  ++decode_n_;
  decode_a_ += s.ctx0 - s.s0;
  decoding_.insert(id);
  // It generates one token per step; the last one at step s0 + (output - generated) - 1.
  finish_heap_.emplace(s.s0 + (r.output_tokens - generated) - 1, key(id, s.epoch));
  if (paged_) {
    ++bucket_[static_cast<size_t>(bucket_of(s))];
    if (!s.internal_counted) {
      // The last block is allocated when the context first exceeds (blocks - 1) x B.
      const int64_t last_block_start = (ceil_div(final_tokens(id), block_) - 1) * block_;
      const int64_t at = s.s0 + last_block_start + 1 - s.ctx0;
      if (at <= s.s0) {
        realize_internal(id);
      } else {
        internal_heap_.emplace(at, key(id, s.epoch));
      }
    }
  }
}

void Scheduler::leave_decode(uint32_t id, int64_t step) {
  Sequence& s = t_.seqs[id];
  const int64_t k = step - s.s0;  // decode steps completed in this stay
  s.generated = static_cast<int32_t>(s.g0 + k);
  s.held = static_cast<int32_t>(s.ctx0 + k - 1);
  --decode_n_;
  decode_a_ -= s.ctx0 - s.s0;
  if (paged_) --bucket_[static_cast<size_t>(bucket_of(s))];
  decoding_.erase(id);
  ++s.epoch;
}

void Scheduler::preempt(uint32_t victim, int64_t step) {
  Sequence& s = t_.seqs[victim];
  leave_decode(victim, step);
  preempted_this_step_ = true;
  const int64_t held = s.held;
  release_seq(victim, held);
  const bool swap = config_.preemption == Preemption::swap;
  if (swap && swap_used_ + held <= config_.swap_capacity_tokens) {
    // vLLM swap: the blocks are copied to host memory and copied back before it resumes.
    swap_used_ += held;
    plan_.swap_out_tokens += held;
    stats_.swap_out_tokens += held;
    s.phase = Phase::swapped;
    swapped_.push_back(victim);
    ++preempt_swap_;
  } else {
    // vLLM recompute: the KV is dropped; prompt and generated tokens are prefilled again later.
    if (swap) ++stats_.swap_fallbacks;
    s.prompt = t_.requests[victim].input_tokens + s.generated;
    s.prefilled = 0;
    s.phase = Phase::waiting;
    waiting_.push_front(victim);
    ++preempt_recompute_;
  }
}

void Scheduler::plan_decode() {
  if (decode_n_ == 0 && swapped_.empty()) return;
  const int64_t step = next_step_;
  if (paged_) {
    while (!internal_heap_.empty() && internal_heap_.top().first <= step) {
      const auto [at, k] = internal_heap_.top();
      internal_heap_.pop();
      const auto id = static_cast<uint32_t>(k >> 8);
      const Sequence& s = t_.seqs[id];
      if (s.phase == Phase::decode && s.epoch == static_cast<uint8_t>(k & 0xff))
        realize_internal(id);
    }
    const auto slot = static_cast<size_t>(mod(step, block_));
    while (bucket_[slot] > kv_.free_blocks() && decode_n_ > 0) preempt(*decoding_.rbegin(), step);
    kv_.grow(bucket_[slot]);
    if (!preempted_this_step_) {
      while (!swapped_.empty() && resident_ < config_.max_batch) {
        const uint32_t id = swapped_.front();
        Sequence& s = t_.seqs[id];
        if (!try_admit(id)) break;
        swapped_.pop_front();
        swap_used_ -= s.held;
        plan_.swap_in_tokens += s.held;
        stats_.swap_in_tokens += s.held;
        enter_decode(id, step, s.held, s.generated);
      }
    }
  }
  if (decode_n_ > 0) plan_.step = step;
}

void Scheduler::plan_prefill(bool whole_prompts, int64_t budget) {
  int64_t used = 0;
  auto add_chunk = [&](uint32_t id) {
    const Sequence& s = t_.seqs[id];
    const int64_t remaining = s.prompt - s.prefilled;
    const int64_t c = whole_prompts ? remaining : std::min(remaining, budget - used);
    plan_.prefill.push_back(Chunk{id, s.prefilled, static_cast<int32_t>(c)});
    used += c;
  };
  for (uint32_t id : prefilling_) {
    if (!whole_prompts && used >= budget) break;
    add_chunk(id);
  }
  if (!swapped_.empty()) return;  // swapped-out sequences resume before new ones start (vLLM)
  while (!waiting_.empty() && resident_ < config_.max_batch) {
    const uint32_t id = waiting_.front();
    Sequence& s = t_.seqs[id];
    const Request& r = t_.requests[id];
    if (whole_prompts) {
      int64_t shared = kv_.resident_prefix_tokens(r.prefix_id, r.prefix_tokens);
      if (host_cache_ && r.prefix_id >= 0)
        shared = std::max(shared, host_cache_->peek(r.prefix_id, r.prefix_tokens));
      const int64_t compute = s.prompt - std::min<int64_t>(shared, s.prompt - 1);
      if (used > 0 && used + compute > budget) break;
    } else if (used >= budget) {
      break;
    }
    if (!try_admit(id)) break;
    waiting_.pop_front();
    start_prefill(id);
    add_chunk(id);
  }
}

bool Scheduler::plan_request_level(double now, bool arrivals_done) {
  if (batch_active_) {
    plan_decode();
    if (!plan_.empty()) return true;
    for (uint32_t id : batch_members_) {  // the batch is over: its memory is released together
      Sequence& s = t_.seqs[id];
      if (s.phase != Phase::held) continue;
      held_kv_ -= s.held;
      release_seq(id, s.held);
      s.phase = Phase::finished;
    }
    batch_members_.clear();
    batch_active_ = false;
  }
  if (waiting_.empty()) return false;
  const size_t queued = waiting_.size();
  std::vector<uint32_t> formed;
  while (!waiting_.empty() && formed.size() < static_cast<size_t>(config_.max_batch)) {
    const uint32_t id = waiting_.front();
    if (!try_admit(id)) break;
    waiting_.pop_front();
    formed.push_back(id);
  }
  const double oldest = t_.requests[formed.empty() ? waiting_.front() : formed.front()].arrival_s;
  // Static batching starts with whatever is waiting; dynamic batching (Triton-style) waits for a
  // full batch (max batch, or as many as memory holds) until the oldest request's timeout.
  const bool full = formed.size() == static_cast<size_t>(config_.max_batch) ||
                    formed.size() < queued || arrivals_done;
  // The deadline is computed once, as the wake-up time: `now - oldest >= timeout` can be false at
  // now = oldest + timeout (0.7 + 0.1 - 0.7 < 0.1 in binary64), which re-armed the same instant
  // forever.
  const double deadline = oldest + config_.batch_timeout_s;
  if (formed.empty()) return false;
  if (config_.policy == SchedulerPolicy::dynamic_batching && !full && now < deadline) {
    for (auto it = formed.rbegin(); it != formed.rend(); ++it) {
      release_seq(*it, t_.seqs[*it].prompt);
      waiting_.push_front(*it);
    }
    blocked_by_memory_ = false;
    wake_at_ = deadline;
    return false;
  }
  for (uint32_t id : formed) {
    Sequence& s = t_.seqs[id];
    start_prefill(id);
    plan_.prefill.push_back(Chunk{id, s.prefilled, s.prompt - s.prefilled});
  }
  batch_members_ = std::move(formed);
  batch_active_ = true;
  return true;
}

const IterationPlan& Scheduler::plan(double now, bool arrivals_done) {
  plan_ = IterationPlan{};
  blocked_by_memory_ = false;
  preempted_this_step_ = false;
  transfers_started_.clear();
  wake_at_ = -1;
  for (uint32_t id : arrived_) {  // decode_only: KV transferred in; decoding starts this step
    Sequence& s = t_.seqs[id];
    held_kv_ -= s.held;
    enter_decode(id, next_step_, s.held, s.generated);
  }
  arrived_.clear();
  switch (config_.policy) {
    case SchedulerPolicy::static_batching:
    case SchedulerPolicy::dynamic_batching:
      plan_request_level(now, arrivals_done);
      break;
    case SchedulerPolicy::continuous:
      // vLLM (V0) default: an iteration either prefills newly admitted prompts whole, up to the
      // token budget, or decodes every running sequence.
      if (swapped_.empty()) plan_prefill(true, config_.token_budget);
      if (plan_.prefill.empty()) plan_decode();
      break;
    case SchedulerPolicy::chunked:
      // Sarathi-Serve: all decodes first, then prompt chunks fill the rest of the token budget.
      plan_decode();
      plan_prefill(false, config_.token_budget - (plan_.step >= 0 ? decode_n_ : 0));
      break;
    case SchedulerPolicy::prefill_only:
      plan_prefill(true, config_.token_budget);
      break;
    case SchedulerPolicy::decode_only:
      while (!waiting_.empty() && resident_ < config_.max_batch) {
        const uint32_t id = waiting_.front();
        Sequence& s = t_.seqs[id];
        if (!try_admit(id)) break;
        waiting_.pop_front();
        s.phase = Phase::handoff;
        s.held = s.prompt;
        held_kv_ += s.held;
        transfers_started_.push_back(id);
      }
      plan_decode();
      break;
  }
  finalize_plan();
  return plan_;
}

void Scheduler::finalize_plan() {
  infer::StepBatch& b = plan_.batch;
  for (const Chunk& c : plan_.prefill) {
    b.prefill_tokens += c.tokens;
    // Causal attention: token i of the chunk attends to start + i positions (i = 1..tokens).
    b.prefill_attended_pairs += static_cast<double>(c.tokens) * c.start +
                                0.5 * static_cast<double>(c.tokens) * (c.tokens + 1.0);
  }
  b.prefill_sequences = static_cast<int>(plan_.prefill.size());
  if (plan_.step >= 0) {
    b.decode_sequences = static_cast<int>(decode_n_);
    b.decode_context_tokens = decode_a_ + decode_n_ * plan_.step;
  }
}

void Scheduler::finish_seq(uint32_t id, int64_t held, IterationOutcome& out) {
  Sequence& s = t_.seqs[id];
  if (config_.policy == SchedulerPolicy::static_batching ||
      config_.policy == SchedulerPolicy::dynamic_batching) {
    s.phase = Phase::held;  // request-level batching frees the batch's memory together
    s.held = static_cast<int32_t>(held);
    held_kv_ += held;
  } else {
    release_seq(id, held);
    s.phase = Phase::finished;
  }
  out.finished.push_back(id);
}

void Scheduler::complete(IterationOutcome& out) {
  out.clear();
  if (plan_.step >= 0) {
    const int64_t step = plan_.step;
    generated_tokens_ += decode_n_;
    while (!finish_heap_.empty() && finish_heap_.top().first <= step) {
      const auto [at, k] = finish_heap_.top();
      finish_heap_.pop();
      const auto id = static_cast<uint32_t>(k >> 8);
      Sequence& s = t_.seqs[id];
      if (s.phase != Phase::decode || s.epoch != static_cast<uint8_t>(k & 0xff)) continue;
      leave_decode(id, step + 1);
      finish_seq(id, s.held, out);
    }
    next_step_ = step + 1;
  }
  for (const Chunk& c : plan_.prefill) {
    Sequence& s = t_.seqs[c.id];
    s.prefilled += c.tokens;
    prefill_kv_ += c.tokens;
    if (s.prefilled < s.prompt) continue;
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), c.id));
    prefill_kv_ -= s.prompt;
    const Request& r = t_.requests[c.id];
    // The prompt's prefix KV is written to the host cache (LMCache store, HiCache write-through).
    if (host_cache_ && r.prefix_id >= 0)
      host_cache_->store(r.prefix_id, std::min<int64_t>(r.prefix_tokens, s.prompt));
    ++s.generated;
    ++generated_tokens_;
    if (t_.first_token_s[c.id] < 0) out.first_token.push_back(c.id);
    if (s.generated >= t_.requests[c.id].output_tokens) {
      finish_seq(c.id, s.prompt, out);
    } else if (config_.policy == SchedulerPolicy::prefill_only) {
      // Disaggregated: the KV leaves for a decode replica; it is held here until it has left.
      s.phase = Phase::handoff;
      s.held = s.prompt;
      held_kv_ += s.held;
      handoff_kv_.emplace(c.id, s.kv);
      s.kv = KvSeq{};
      out.handed_off.push_back(c.id);
    } else {
      enter_decode(c.id, next_step_, s.prompt, s.generated);
    }
  }
}

void Scheduler::transfer_done(uint32_t id) {
  arrived_.push_back(id);
}

void Scheduler::release_handoff(uint32_t id) {
  auto it = handoff_kv_.find(id);
  if (it == handoff_kv_.end()) return;
  const Request& r = t_.requests[id];
  const int64_t held = r.input_tokens;
  const int64_t fin = final_tokens(id);
  held_kv_ -= held;
  shared_sum_ -= int64_t{it->second.shared_blocks} * block_;
  kv_.release(it->second, held);
  handoff_kv_.erase(it);
  --resident_;
  final_sum_ -= fin;
  if (paged_ && ceil_div(held, block_) == ceil_div(fin, block_))
    internal_sum_ -= ceil_div(fin, block_) * block_ - fin;
}

bool Scheduler::has_work() const {
  return !waiting_.empty() || decode_n_ > 0 || !prefilling_.empty() || !swapped_.empty() ||
         !arrived_.empty() || batch_active_;
}

KvTokens Scheduler::kv_tokens() const {
  KvTokens k;
  const int64_t step = plan_.step >= 0 ? plan_.step : next_step_ - 1;
  int64_t logical = decode_a_ + decode_n_ * step + prefill_kv_ + held_kv_;
  for (const Chunk& c : plan_.prefill) logical += c.tokens;
  // Free blocks promised to running sequences at admission (GUARANTEED_NO_EVICT) are reserved.
  const int64_t promised = paged_ ? kv_.reserved_future_blocks() * kv_.config().block_tokens : 0;
  if (paged_) {
    k.used = logical - shared_sum_ + kv_.prefix_resident_tokens();
    k.internal = internal_sum_;
    k.reserved = std::max<int64_t>(0, kv_.reserved_tokens() - k.used - k.internal) + promised;
  } else {
    k.used = logical;
    k.reserved = std::max<int64_t>(0, final_sum_ - logical);
    k.internal = kv_.reserved_tokens() - final_sum_;
  }
  k.external = kv_.overhead_tokens();
  k.free = kv_.free_tokens() - promised;
  if (blocked_by_memory_) {  // free memory that the waiting requests cannot use
    k.external += k.free;
    k.free = 0;
  }
  return k;
}

}  // namespace memwall::serve
