#include "memwall/train/collective_cache.h"

#include <bit>
#include <cstdint>

namespace memwall::train {

size_t CollectiveCache::KeyHash::operator()(const Key& k) const {
  uint64_t h = std::bit_cast<uint64_t>(k.bytes);
  for (int v : {k.nodes, k.op, k.size, k.stride, k.first})
    h = (h ^ uint64_t(uint32_t(v))) * 0x100000001b3ULL;
  return size_t(h ^ (h >> 29));
}

double CollectiveCache::seconds(const comm::Cluster& cluster, comm::Collective op, double bytes,
                                comm::Group g) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  const Key key{cluster.nodes, int(op), g.size, g.stride, g.first, bytes};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = times_.find(key);
    if (it != times_.end()) return it->second;
  }
  const double t = comm::estimate(cluster, op, Bytes(bytes), g).time.value();
  std::lock_guard<std::mutex> lock(mutex_);
  if (times_.size() >= kMaxEntries) times_.clear();
  times_.emplace(key, t);
  return t;
}

}  // namespace memwall::train
