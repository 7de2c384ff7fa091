#include "memwall/serve/kv_allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

int order_for(int64_t slots) {  // smallest k with 2^k >= slots
  return slots <= 1 ? 0 : 64 - std::countl_zero(static_cast<uint64_t>(slots - 1));
}

}  // namespace

KvPolicy parse_kv_policy(const std::string& name) {
  if (name == "paged") return KvPolicy::paged;
  if (name == "contiguous" || name == "max") return KvPolicy::contiguous_max;
  if (name == "pow2") return KvPolicy::contiguous_pow2;
  if (name == "oracle") return KvPolicy::contiguous_oracle;
  throw InputError::unknown_name("--kv", name, {"paged", "contiguous", "pow2", "oracle"});
}

std::string to_string(KvPolicy p) {
  switch (p) {
    case KvPolicy::paged:
      return "paged";
    case KvPolicy::contiguous_max:
      return "contiguous";
    case KvPolicy::contiguous_pow2:
      return "pow2";
    case KvPolicy::contiguous_oracle:
      return "oracle";
  }
  return "?";
}

BuddyArena::BuddyArena(int64_t capacity_slots) {
  if (capacity_slots <= 0) return;
  // The arena is the binary decomposition of the capacity into aligned top blocks, largest first,
  // so every block's buddy (offset XOR size) lies inside the same top block or does not exist.
  const int top = 63 - std::countl_zero(static_cast<uint64_t>(capacity_slots));
  free_.resize(static_cast<size_t>(top) + 1);
  int64_t offset = 0;
  for (int k = top; k >= 0; --k) {
    if (capacity_slots & (int64_t{1} << k)) {
      free_[static_cast<size_t>(k)].insert(offset);
      offset += int64_t{1} << k;
    }
  }
  free_slots_ = capacity_slots;
}

int64_t BuddyArena::allocate(int order) {
  if (order < 0 || order > max_order()) return -1;
  for (int j = order; j <= max_order(); ++j) {
    auto& list = free_[static_cast<size_t>(j)];
    if (list.empty()) continue;
    const int64_t offset = *list.begin();
    list.erase(list.begin());
    while (j > order) {  // split, keeping the lower half
      --j;
      free_[static_cast<size_t>(j)].insert(offset + (int64_t{1} << j));
    }
    free_slots_ -= int64_t{1} << order;
    return offset;
  }
  return -1;
}

void BuddyArena::release(int64_t offset, int order) {
  free_slots_ += int64_t{1} << order;
  while (order < max_order()) {
    auto& list = free_[static_cast<size_t>(order)];
    const auto it = list.find(offset ^ (int64_t{1} << order));
    if (it == list.end()) break;
    list.erase(it);
    offset &= ~(int64_t{1} << order);
    ++order;
  }
  free_[static_cast<size_t>(order)].insert(offset);
}

int64_t BuddyArena::largest_free() const {
  for (int k = max_order(); k >= 0; --k)
    if (!free_[static_cast<size_t>(k)].empty()) return int64_t{1} << k;
  return 0;
}

KvAllocator::KvAllocator(const KvConfig& config)
    : config_(config), arena_(is_paged(config.policy) ? 0 : config.capacity_tokens) {
  if (config_.capacity_tokens < 1)
    throw InfeasibleError(
        fmt::format("no memory left for the KV cache ({} token slots)", config_.capacity_tokens));
  if (config_.block_tokens < 1 || config_.block_tokens > 65536)
    throw InputError("--block", std::to_string(config_.block_tokens), "tokens in [1, 65536]");
  if (config_.max_sequence_tokens < 2)
    throw InputError("--max-len", std::to_string(config_.max_sequence_tokens), ">= 2 tokens");
  if (!(config_.watermark >= 0 && config_.watermark < 1))
    throw InputError("--watermark", fmt::format("{}", config_.watermark), "a fraction in [0, 1)");
  if (is_paged(config_.policy)) {
    total_blocks_ = config_.capacity_tokens / config_.block_tokens;
    if (total_blocks_ < 1)
      throw InfeasibleError(fmt::format("KV capacity {} tokens is less than one block of {}",
                                        config_.capacity_tokens, config_.block_tokens));
    free_blocks_ = total_blocks_;
    watermark_blocks_ =
        static_cast<int64_t>(std::floor(config_.watermark * static_cast<double>(total_blocks_)));
  }
}

int64_t KvAllocator::reservation_tokens(int64_t held, int64_t final_tokens) const {
  switch (config_.policy) {
    case KvPolicy::paged:
      return blocks_for(held) * config_.block_tokens;
    case KvPolicy::contiguous_max:
      return config_.max_sequence_tokens;
    case KvPolicy::contiguous_pow2: {
      // Orca (Pow2) in Kwon et al. 2023 §6.1: output space over-reserved by at most 2x.
      const int64_t out = std::max<int64_t>(1, final_tokens - held);
      const int64_t want = held + (int64_t{1} << order_for(out));
      return std::max(final_tokens, std::min(want, config_.max_sequence_tokens));
    }
    case KvPolicy::contiguous_oracle:
      return std::max(final_tokens, held);
  }
  return held;
}

bool KvAllocator::fits_empty(int64_t held, int64_t final_tokens) const {
  if (final_tokens > config_.max_sequence_tokens) return false;
  // Paged admission must also leave the watermark free, or the sequence could never be admitted.
  if (is_paged(config_.policy))
    return blocks_for(final_tokens) <= total_blocks_ &&
           blocks_for(held) + watermark_blocks_ <= total_blocks_;
  const int64_t r = reservation_tokens(held, final_tokens);
  return order_for(r) <= arena_.max_order();
}

int64_t KvAllocator::resident_prefix_tokens(int32_t prefix_id, int32_t prefix_tokens) const {
  if (!is_paged(config_.policy) || prefix_id < 0) return 0;
  const auto it = prefixes_.find(prefix_id);
  if (it == prefixes_.end()) return 0;
  return std::min<int64_t>(it->second.blocks, prefix_tokens / config_.block_tokens) *
         config_.block_tokens;
}

bool KvAllocator::admit(KvSeq& seq, int64_t held, int64_t final_tokens, int32_t prefix_id,
                        int32_t prefix_tokens, bool apply_watermark) {
  if (is_paged(config_.policy)) {
    int64_t shared = 0;
    const auto it = prefix_id >= 0 ? prefixes_.find(prefix_id) : prefixes_.end();
    const bool resident = it != prefixes_.end();
    const int64_t own_prefix_blocks =
        prefix_id >= 0 ? std::min<int64_t>(prefix_tokens, held) / config_.block_tokens : 0;
    if (resident) shared = std::min(it->second.blocks, own_prefix_blocks);
    const int64_t needed = blocks_for(held) - shared;
    const int64_t keep = apply_watermark ? watermark_blocks_ : 0;
    // GUARANTEED_NO_EVICT: the blocks its later tokens will fill are promised now, beside those
    // promised to the sequences already running.
    const int64_t future =
        config_.reserve_final ? std::max<int64_t>(0, blocks_for(final_tokens) - blocks_for(held)) : 0;
    if (free_blocks_ - reserved_future_ - needed - future < keep) return false;
    free_blocks_ -= needed;
    allocated_count_ += needed;
    reserved_future_ += future;
    seq = KvSeq{};
    if (config_.reserve_final)
      seq.final_blocks = static_cast<int32_t>(std::max(blocks_for(final_tokens), blocks_for(held)));
    if (prefix_id >= 0 && own_prefix_blocks > 0) {
      if (resident) {
        ++it->second.refs;
        seq.shared_blocks = static_cast<int32_t>(shared);
        seq.reused_blocks = static_cast<int32_t>(shared);
      } else {
        prefixes_.emplace(prefix_id, Prefix{1, own_prefix_blocks});
        prefix_blocks_ += own_prefix_blocks;
        seq.shared_blocks = static_cast<int32_t>(own_prefix_blocks);
      }
      seq.prefix_id = prefix_id;
    }
    ++resident_;
    return true;
  }
  const int64_t r = reservation_tokens(held, final_tokens);
  const int order = order_for(r);
  const int64_t offset = arena_.allocate(order);
  if (offset < 0) return false;
  seq = KvSeq{};
  seq.offset = offset;
  seq.order = static_cast<int8_t>(order);
  seq.reserved_tokens = static_cast<int32_t>(r);
  reserved_sum_ += r;
  block_sum_ += int64_t{1} << order;
  ++allocated_count_;
  ++resident_;
  return true;
}

bool KvAllocator::grow(int64_t blocks) {
  if (blocks <= 0) return true;
  if (blocks > free_blocks_) return false;
  free_blocks_ -= blocks;
  allocated_count_ += blocks;
  reserved_future_ = std::max<int64_t>(0, reserved_future_ - blocks);  // promised blocks taken
  return true;
}

int64_t KvAllocator::private_blocks(const KvSeq& seq, int64_t held) const {
  return blocks_for(held) - seq.shared_blocks;
}

void KvAllocator::release(KvSeq& seq, int64_t held) {
  if (is_paged(config_.policy)) {
    const int64_t own = private_blocks(seq, held);
    free_blocks_ += own;
    freed_count_ += own;
    // A sequence leaving early (preempted, or shorter than promised) returns its untaken promise.
    if (seq.final_blocks > 0)
      reserved_future_ = std::max<int64_t>(0, reserved_future_ - std::max<int64_t>(0, seq.final_blocks - blocks_for(held)));
    if (seq.prefix_id >= 0) {
      auto it = prefixes_.find(seq.prefix_id);
      if (it != prefixes_.end() && --it->second.refs == 0) {
        free_blocks_ += it->second.blocks;
        freed_count_ += it->second.blocks;
        prefix_blocks_ -= it->second.blocks;
        prefixes_.erase(it);
      }
    }
  } else {
    arena_.release(seq.offset, seq.order);
    reserved_sum_ -= seq.reserved_tokens;
    block_sum_ -= int64_t{1} << seq.order;
    ++freed_count_;
  }
  --resident_;
  seq = KvSeq{};
}

int64_t KvAllocator::reserved_tokens() const {
  if (is_paged(config_.policy)) return (total_blocks_ - free_blocks_) * config_.block_tokens;
  return reserved_sum_;
}

int64_t KvAllocator::overhead_tokens() const {
  if (is_paged(config_.policy))
    return config_.capacity_tokens - total_blocks_ * config_.block_tokens;
  return block_sum_ - reserved_sum_;
}

int64_t KvAllocator::free_tokens() const {
  if (is_paged(config_.policy)) return free_blocks_ * config_.block_tokens;
  return arena_.free_slots();
}

}  // namespace memwall::serve
