#include "memwall/plan/pareto.h"

#include <gtest/gtest.h>

#include <random>

namespace memwall::plan {
namespace {

bool dominates(const Objective2& a, const Objective2& b) {  // maximise both
  return a.x >= b.x && a.y >= b.y && (a.x > b.x || a.y > b.y);
}

TEST(Pareto, KeepsExactlyTheNonDominatedPoints) {
  const std::vector<Objective2> p{{1, 5}, {2, 4}, {2, 3}, {3, 1}, {0.5, 5}, {3, 1}, {1, 1}};
  const auto front = pareto_front(p, true, true);
  // {0.5,5} is dominated by {1,5}; {2,3} by {2,4}; {1,1} by several; both {3,1} are kept (a tie).
  EXPECT_EQ(front, (std::vector<size_t>{0, 1, 3, 5}));
}

TEST(Pareto, MatchesBruteForceOnRandomPoints) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(0, 20);  // small range: many ties
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Objective2> p(60);
    for (auto& q : p) q = {double(d(rng)), double(d(rng))};
    for (bool mx : {true, false}) {
      for (bool my : {true, false}) {
        std::vector<Objective2> g(p);
        for (auto& q : g) q = {mx ? q.x : -q.x, my ? q.y : -q.y};
        std::vector<size_t> expected;
        for (size_t i = 0; i < g.size(); ++i) {
          bool dom = false;
          for (size_t j = 0; j < g.size() && !dom; ++j) dom = dominates(g[j], g[i]);
          if (!dom) expected.push_back(i);
        }
        auto got = pareto_front(p, mx, my);
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, expected);
      }
    }
  }
}

}  // namespace
}  // namespace memwall::plan
