// The sampling loop: the priming pass is discarded, passes and stops are honoured, and the
// options are checked (GPM's 100 ms minimum interval).
#include "memwall/monitor/session.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::monitor {
namespace {

TEST(MonitorSession, DiscardsThePrimingPassAndStopsAfterThePasses) {
  int taken = 0;
  std::vector<int> seen;
  std::atomic<bool> stop{false};
  SessionOptions o;
  o.interval = Seconds(0.1);
  o.passes = 3;
  run_session(
      [&] {
        GpuSample s;
        s.index = taken++;
        return std::vector<GpuSample>{s};
      },
      o, stop, [&](const std::vector<GpuSample>& pass) { seen.push_back(pass[0].index); });
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));  // pass 0 only opened the GPM interval

  // A stop from the handler ends the loop after that pass.
  seen.clear();
  o.passes.reset();
  run_session([&] { return std::vector<GpuSample>{GpuSample{}}; }, o, stop,
              [&](const std::vector<GpuSample>&) {
                seen.push_back(0);
                stop = true;
              });
  EXPECT_EQ(seen.size(), 1u);
}

TEST(MonitorSession, OptionsAreChecked) {
  SessionOptions o;
  EXPECT_NO_THROW(check(o));
  o.interval = Seconds(0.05);
  EXPECT_THROW(check(o), InputError);
  o.interval = Seconds(std::nan(""));
  EXPECT_THROW(check(o), InputError);
  o.interval = Seconds(0.1);
  EXPECT_NO_THROW(check(o));
  for (double bad : {0.0, -1.0, 1e8, std::numeric_limits<double>::infinity()}) {
    o.duration = Seconds(bad);
    EXPECT_THROW(check(o), InputError) << bad;
  }
}

}  // namespace
}  // namespace memwall::monitor
