#include "memwall/monitor/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "memwall/core/error.h"
#include "memwall/monitor/nvml_source.h"

namespace memwall::monitor {

void check(const SessionOptions& o) {
  const double ms = o.interval.value() * 1e3;
  if (!std::isfinite(ms) || ms < kGpmMinIntervalS * 1e3 || ms > 3.6e6)
    throw InputError("--interval-ms", fmt::format("{:g}", ms),
                     "milliseconds in [100, 3600000] (GPM needs 100 ms between samples)");
  if (o.duration && (!std::isfinite(o.duration->value()) || o.duration->value() <= 0 ||
                     o.duration->value() > 1e7))
    throw InputError("--duration", fmt::format("{:g}", o.duration->value()), "seconds in (0, 1e7]");
}

void run_session(const std::function<std::vector<GpuSample>()>& take, const SessionOptions& o,
                 const std::atomic<bool>& stop,
                 const std::function<void(const std::vector<GpuSample>&)>& on_pass) {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(o.interval.value()));
  const auto slice = std::chrono::milliseconds(50);
  take();
  // Counted from after the priming pass, so no pass comes sooner than one interval after the last.
  const auto start = Clock::now();
  size_t passes = 0;
  for (auto next = start + interval; !stop;) {
    while (!stop && Clock::now() < next)
      std::this_thread::sleep_for(std::min<Clock::duration>(slice, next - Clock::now()));
    if (stop) break;
    const auto began = Clock::now();
    // Next deadline on the grid, but never less than one interval after this pass began.
    next = std::max(next + interval, began + interval);
    on_pass(take());
    ++passes;
    if (o.passes && passes >= *o.passes) break;
    if (o.duration &&
        std::chrono::duration<double>(Clock::now() - start).count() >= o.duration->value())
      break;
  }
}

}  // namespace memwall::monitor
