// Pareto frontiers over two objectives: the points no other point beats on both (e.g. tokens/s
// per device vs tokens/s per user, or $ per million tokens vs latency).
#pragma once

#include <cstddef>
#include <vector>

namespace memwall::plan {

struct Objective2 {
  double x = 0, y = 0;
};

// Indices of the non-dominated points, sorted by x ascending. `maximize_x/y` choose the sense of
// each axis. A point dominates another when it is at least as good on both axes and strictly
// better on one; exact duplicates are all kept (ties are shown, not hidden). O(n log n): sort by x
// (best first), sweep keeping the best y seen.
std::vector<size_t> pareto_front(const std::vector<Objective2>& points, bool maximize_x,
                                 bool maximize_y);

}  // namespace memwall::plan
