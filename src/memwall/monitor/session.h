// A monitoring session: take a sampling pass every interval until the duration has passed or a
// stop is requested, handing each pass to the caller (view, recorder, exporter, advisor).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/monitor/sample.h"

namespace memwall::monitor {

struct SessionOptions {
  Seconds interval{1.0};
  std::optional<Seconds> duration;  // none: until stopped
  std::optional<size_t> passes;     // none: unlimited
};

// Checks the options: interval in [0.1 s (GPM's minimum), 1 h], duration in (0, 1e7 s];
// InputError naming --interval-ms / --duration otherwise.
void check(const SessionOptions& o);

// Takes a pass now (discarded: it starts the GPM interval), then one every interval, handing each
// to `on_pass`, until `duration`, `passes` or `stop`. Sleeps in slices of at most 50 ms so a stop
// is seen promptly.
void run_session(const std::function<std::vector<GpuSample>()>& take, const SessionOptions& o,
                 const std::atomic<bool>& stop,
                 const std::function<void(const std::vector<GpuSample>&)>& on_pass);

}  // namespace memwall::monitor
