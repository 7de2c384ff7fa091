#include "memwall/plan/pareto.h"

#include <algorithm>
#include <numeric>

namespace memwall::plan {

std::vector<size_t> pareto_front(const std::vector<Objective2>& points, bool maximize_x,
                                 bool maximize_y) {
  // Work in "larger is better" on both axes.
  auto gx = [&](size_t i) { return maximize_x ? points[i].x : -points[i].x; };
  auto gy = [&](size_t i) { return maximize_y ? points[i].y : -points[i].y; };
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (gx(a) != gx(b)) return gx(a) > gx(b);
    return gy(a) > gy(b);
  });
  std::vector<size_t> front;
  bool any = false;
  double best_y = 0, best_y_x = 0;  // best y so far and the x it came with
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    const double x = gx(i), y = gy(i);
    // Dominated if an earlier point (x' >= x) has y' > y, or y' == y with x' > x.
    if (any && (best_y > y || (best_y == y && best_y_x > x))) continue;
    front.push_back(i);
    if (!any || y > best_y || (y == best_y && x > best_y_x)) {
      best_y = y;
      best_y_x = x;
    }
    any = true;
  }
  std::sort(front.begin(), front.end(), [&](size_t a, size_t b) { return points[a].x < points[b].x; });
  return front;
}

}  // namespace memwall::plan
