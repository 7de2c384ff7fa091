#include "memwall/serve/host_cache.h"

#include <algorithm>

namespace memwall::serve {

int64_t HostPrefixCache::lookup(int32_t id, int64_t tokens) {
  ++c_.lookups;
  const auto it = entries_.find(id);
  if (it == entries_.end() || tokens <= 0) return 0;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  const int64_t found = std::min(tokens, it->second.tokens);
  if (found > 0) ++c_.hits;
  c_.hit_tokens += found;
  return found;
}

int64_t HostPrefixCache::peek(int32_t id, int64_t tokens) const {
  const auto it = entries_.find(id);
  return it == entries_.end()
             ? 0
             : std::clamp<int64_t>(it->second.tokens, 0, std::max<int64_t>(0, tokens));
}

void HostPrefixCache::evict_until(int64_t room) {
  while (used_ + room > capacity_ && !lru_.empty()) {
    const int32_t victim = lru_.back();
    lru_.pop_back();
    const auto it = entries_.find(victim);
    used_ -= it->second.tokens;
    c_.evicted_tokens += it->second.tokens;
    ++c_.evictions;
    entries_.erase(it);
  }
}

int64_t HostPrefixCache::store(int32_t id, int64_t tokens) {
  tokens = std::min(tokens, capacity_);
  if (tokens <= 0) return 0;
  auto it = entries_.find(id);
  const int64_t have = it == entries_.end() ? 0 : it->second.tokens;
  const int64_t add = tokens - have;
  if (add <= 0) {
    if (it != entries_.end()) lru_.splice(lru_.begin(), lru_, it->second.lru);
    return 0;
  }
  if (it != entries_.end()) {  // grows: keep it out of its own eviction
    lru_.erase(it->second.lru);
    used_ -= have;
    entries_.erase(it);
  }
  evict_until(tokens);
  lru_.push_front(id);
  entries_[id] = Entry{tokens, lru_.begin()};
  used_ += tokens;
  c_.stored_tokens += add;
  c_.peak_tokens = std::max(c_.peak_tokens, used_);
  return add;
}

}  // namespace memwall::serve
