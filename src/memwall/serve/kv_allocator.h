// The KV-cache allocator of one replica: where each sequence's keys and values live. Either
// contiguous per-sequence reservations managed by a buddy allocator (as in Orca/FasterTransformer:
// reserve the model's maximum length, the prompt plus a power-of-two output, or exactly the final
// length when it is known in advance), or PagedAttention's fixed-size blocks with reference-counted
// sharing of a common prompt prefix (copy-on-write: only full prefix blocks are shared; the partial
// last block is each sequence's own copy). It knows nothing of scheduling or time.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace memwall::serve {

enum class KvPolicy {
  paged,              // blocks of block_tokens, allocated as the sequence grows
  contiguous_max,     // reserve max_sequence_tokens for every sequence
  contiguous_pow2,    // reserve the prompt plus the output length rounded up to a power of two
  contiguous_oracle,  // reserve exactly the final length (the output length known in advance)
};
KvPolicy parse_kv_policy(const std::string& name);  // paged | contiguous | pow2 | oracle
std::string to_string(KvPolicy p);
inline bool is_paged(KvPolicy p) {
  return p == KvPolicy::paged;
}

struct KvConfig {
  KvPolicy policy = KvPolicy::paged;
  int64_t capacity_tokens = 0;         // KV slots of the replica (from the memory plan)
  int block_tokens = 16;               // paged block size B
  int64_t max_sequence_tokens = 2048;  // longest sequence (model context)
  // Paged admission keeps this fraction of blocks free for running sequences to grow into
  // (vLLM's BlockSpaceManager watermark, default 0.01).
  double watermark = 0.01;
  // Paged admission reserves the blocks of the sequence's final length (prompt + output), so a
  // running sequence never waits for a block and is never preempted: TensorRT-LLM's
  // GUARANTEED_NO_EVICT capacity scheduler (its default). False: vLLM's, blocks for what is held.
  bool reserve_final = false;
};

// The allocator's record of one resident sequence; the caller keeps it with the sequence.
struct KvSeq {
  int64_t offset = -1;          // contiguous: start slot in the arena
  int32_t reserved_tokens = 0;  // contiguous: the reservation asked for
  int32_t shared_blocks = 0;    // paged: full prefix blocks shared with other sequences
  int32_t reused_blocks = 0;    // paged: of those, already resident (computed) at admission
  int32_t prefix_id = -1;       // paged: the shared prefix it references, -1 none
  int8_t order = -1;            // contiguous: buddy block of 2^order slots
  int32_t final_blocks = 0;     // paged with reserve_final: blocks of its final length
};

// Contiguous slots handed out in power-of-two blocks (Knuth's buddy system, TAOCP vol. 1 §2.5).
class BuddyArena {
 public:
  explicit BuddyArena(int64_t capacity_slots);
  int64_t allocate(int order);  // offset of a free 2^order block, or -1 when none is free
  void release(int64_t offset, int order);
  int max_order() const { return static_cast<int>(free_.size()) - 1; }
  int64_t free_slots() const { return free_slots_; }
  // Largest free block, in slots (0 when full).
  int64_t largest_free() const;

 private:
  std::vector<std::set<int64_t>> free_;  // free block offsets per order, address-ordered
  int64_t free_slots_ = 0;
};

class KvAllocator {
 public:
  explicit KvAllocator(const KvConfig& config);

  // Slots a sequence asks for at admission: contiguous policies reserve for its whole life; paged
  // asks for the blocks of the `held` tokens it has now. `final_tokens` is its KV length at the
  // end.
  int64_t reservation_tokens(int64_t held, int64_t final_tokens) const;
  // Whether the sequence could be admitted on an otherwise empty replica.
  bool fits_empty(int64_t held, int64_t final_tokens) const;

  // Admits a sequence holding `held` KV tokens now. Paged: the full blocks of a resident prefix
  // with the same id are shared instead of allocated. Returns false, changing nothing, when there
  // is no room (paged: also when it would eat into the watermark and `apply_watermark`).
  bool admit(KvSeq& seq, int64_t held, int64_t final_tokens, int32_t prefix_id,
             int32_t prefix_tokens, bool apply_watermark);
  // Paged: `blocks` more blocks for sequences that grew past a block boundary. False, changing
  // nothing, when fewer are free.
  bool grow(int64_t blocks);
  // Frees what the sequence holds; `held` is its KV length now.
  void release(KvSeq& seq, int64_t held);
  // Paged: blocks a sequence holding `held` tokens owns privately (the shared prefix excluded).
  int64_t private_blocks(const KvSeq& seq, int64_t held) const;
  // Paged: tokens of a resident prefix that a new sequence would share (0 if not resident).
  int64_t resident_prefix_tokens(int32_t prefix_id, int32_t prefix_tokens) const;

  const KvConfig& config() const { return config_; }
  int64_t capacity_tokens() const { return config_.capacity_tokens; }
  // Slots handed to sequences (paged: blocks in use x B; contiguous: the reservations asked for).
  int64_t reserved_tokens() const;
  // Slots the allocator itself wastes: buddy round-up of each reservation to a power of two;
  // paged: the capacity remainder smaller than one block.
  int64_t overhead_tokens() const;
  int64_t free_tokens() const;
  int64_t free_blocks() const { return free_blocks_; }
  // Paged with reserve_final: free blocks promised to running sequences' later tokens.
  int64_t reserved_future_blocks() const { return reserved_future_; }
  int64_t total_blocks() const { return total_blocks_; }
  // Cumulative counts for the conservation check (paged: blocks; contiguous: reservations).
  int64_t allocated_count() const { return allocated_count_; }
  int64_t freed_count() const { return freed_count_; }
  int64_t resident_sequences() const { return resident_; }
  // Paged: tokens in the blocks of resident shared prefixes.
  int64_t prefix_resident_tokens() const { return prefix_blocks_ * config_.block_tokens; }

 private:
  struct Prefix {
    int64_t refs = 0;
    int64_t blocks = 0;
  };
  int64_t blocks_for(int64_t tokens) const {
    return (tokens + config_.block_tokens - 1) / config_.block_tokens;
  }

  KvConfig config_;
  // paged
  int64_t total_blocks_ = 0, free_blocks_ = 0, watermark_blocks_ = 0, reserved_future_ = 0;
  std::unordered_map<int32_t, Prefix> prefixes_;
  int64_t prefix_blocks_ = 0;
  // contiguous
  BuddyArena arena_;
  int64_t reserved_sum_ = 0, block_sum_ = 0;
  int64_t allocated_count_ = 0, freed_count_ = 0, resident_ = 0;
};

}  // namespace memwall::serve
