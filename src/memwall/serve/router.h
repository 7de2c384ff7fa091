// The router in front of a set of replicas: which replica a new request goes to.
#pragma once

#include <string>
#include <vector>

#include "memwall/serve/replica.h"

namespace memwall::serve {

enum class RouterPolicy {
  round_robin,        // replicas in turn
  least_outstanding,  // the replica with the fewest requests routed to it and not yet done
};
RouterPolicy parse_router_policy(const std::string& name);  // rr | least
std::string to_string(RouterPolicy p);

class Router {
 public:
  explicit Router(RouterPolicy policy) : policy_(policy) {}
  // Index into `pool` of the replica for the next request (ties go to the lowest index).
  size_t pick(const std::vector<Replica*>& pool);

 private:
  RouterPolicy policy_;
  size_t next_ = 0;
};

}  // namespace memwall::serve
