// Stopping a long library call whose answer is no longer wanted (the HTTP server's client went
// away): the caller owns a flag, sets it from another thread, and the call checks it at natural
// points (between replica shapes of the planner's search, every few thousand events of the
// serving simulator) and throws Cancelled. The CLI and Python never set one (nullptr: not
// cancellable).
#pragma once

#include <atomic>
#include <stdexcept>

namespace memwall {

using CancelFlag = std::atomic<bool>;

// Not an error of the input: nobody waits for the answer, so nothing is sent.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled: the answer is no longer wanted") {}
};

inline void throw_if_cancelled(const CancelFlag* cancel) {
  if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

}  // namespace memwall
