// One model replica (a TP x PP group of devices serving as one engine): its KV allocator and
// scheduler, and the clock of its iterations. The time of every iteration comes from the
// inference estimator through a step-cost function (infer/step.h); swapping KV to host memory
// adds the copy time over the host link.
#pragma once

#include <functional>
#include <optional>

#include "memwall/core/units.h"
#include "memwall/infer/step.h"
#include "memwall/serve/kv_allocator.h"
#include "memwall/serve/metrics.h"
#include "memwall/serve/scheduler.h"

namespace memwall::serve {

using StepCost = std::function<Seconds(const infer::StepBatch&)>;

struct ReplicaConfig {
  SchedulerConfig scheduler;
  KvConfig kv;
  Bytes kv_bytes_per_token{0};          // for swap time (and disaggregated transfers)
  BytesPerSecond swap_bandwidth{16e9};  // host link used by swap preemption
};

class Replica {
 public:
  Replica(int index, const ReplicaConfig& config, StepCost cost, RequestTable& table,
          MetricsRecorder& metrics);
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // When idle: plans the next iteration at `now` and returns when it ends (nullopt: nothing to do).
  std::optional<double> start(double now, bool arrivals_done);
  // Completes the iteration in flight; `out` lists what happened in it.
  void finish(IterationOutcome& out);
  bool busy() const { return busy_; }
  int index() const { return index_; }
  Scheduler& scheduler() { return scheduler_; }
  const KvAllocator& kv() const { return kv_; }
  int64_t outstanding = 0;  // requests routed here and not yet done (for the router)

 private:
  int index_;
  ReplicaConfig config_;
  StepCost cost_;
  KvAllocator kv_;
  Scheduler scheduler_;
  MetricsRecorder& metrics_;
  bool busy_ = false;
};

}  // namespace memwall::serve
