// Memo of collective times for one training setup: a configuration search asks the network model
// the same questions (same collective, message size and group) over and over, so each distinct
// question is answered by comm::estimate once. Shared by copies of the setup; thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>

#include "memwall/comm/collective.h"

namespace memwall::train {

class CollectiveCache {
 public:
  // comm::estimate(cluster, op, bytes, group).time in seconds; 0 for a group of one or no bytes.
  double seconds(const comm::Cluster& cluster, comm::Collective op, double bytes, comm::Group g);

 private:
  struct Key {
    int nodes, op, size, stride, first;
    double bytes;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  static constexpr size_t kMaxEntries = 1 << 16;  // cleared when full: bounded memory
  std::mutex mutex_;
  std::unordered_map<Key, double, KeyHash> times_;
};

}  // namespace memwall::train
