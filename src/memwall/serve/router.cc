#include "memwall/serve/router.h"

#include "memwall/core/error.h"

namespace memwall::serve {

RouterPolicy parse_router_policy(const std::string& name) {
  if (name == "rr" || name == "round-robin") return RouterPolicy::round_robin;
  if (name == "least" || name == "least-outstanding") return RouterPolicy::least_outstanding;
  throw InputError::unknown_name("--router", name, {"rr", "least"});
}

std::string to_string(RouterPolicy p) {
  return p == RouterPolicy::round_robin ? "rr" : "least";
}

size_t Router::pick(const std::vector<Replica*>& pool) {
  if (policy_ == RouterPolicy::round_robin) {
    const size_t i = next_ % pool.size();
    next_ = (next_ + 1) % pool.size();
    return i;
  }
  size_t best = 0;
  for (size_t i = 1; i < pool.size(); ++i)
    if (pool[i]->outstanding < pool[best]->outstanding) best = i;
  return best;
}

}  // namespace memwall::serve
