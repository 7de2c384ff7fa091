// The host-memory KV cache of one replica for prompt-prefix reuse (LMCache's local CPU backend,
// SGLang HiCache's host tier): the KV of each shared prefix, keyed by prefix id, kept in host DRAM
// after its prefill and evicted least-recently-used when the capacity is full. A prefix is stored
// as its first S tokens; a later request using the first p tokens of the same prefix finds
// min(p, S) of them (prefix matching, as LMCache's chunk hashes and SGLang's radix tree do).
// It knows nothing of time; the scheduler asks it and the replica times the copies.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>

namespace memwall::serve {

struct HostCacheCounters {
  int64_t lookups = 0;         // requests that asked for a prefix
  int64_t hits = 0;            // of those, found at least one token
  int64_t hit_tokens = 0;      // tokens found
  int64_t stored_tokens = 0;   // tokens written into the cache
  int64_t evicted_tokens = 0;  // tokens dropped to make room
  int64_t evictions = 0;       // prefixes dropped (whole or in part)
  int64_t peak_tokens = 0;     // most tokens held at once
};

class HostPrefixCache {
 public:
  explicit HostPrefixCache(int64_t capacity_tokens) : capacity_(capacity_tokens) {}

  // Tokens of prefix `id` found for a request that uses its first `tokens`; marks it recently used.
  int64_t lookup(int32_t id, int64_t tokens);
  // The same without counting or touching it (for planning).
  int64_t peek(int32_t id, int64_t tokens) const;
  // After a prefill: the first `tokens` of prefix `id` are in the KV cache and are written to host
  // memory (only what the cache lacks), evicting least-recently-used prefixes to make room. A
  // prefix longer than the whole capacity is stored up to the capacity. Returns tokens written.
  int64_t store(int32_t id, int64_t tokens);

  int64_t capacity_tokens() const { return capacity_; }
  int64_t used_tokens() const { return used_; }
  const HostCacheCounters& counters() const { return c_; }

 private:
  struct Entry {
    int64_t tokens = 0;
    std::list<int32_t>::iterator lru;
  };
  void evict_until(int64_t room);

  int64_t capacity_ = 0, used_ = 0;
  std::list<int32_t> lru_;  // most recently used first
  std::unordered_map<int32_t, Entry> entries_;
  HostCacheCounters c_;
};

}  // namespace memwall::serve
