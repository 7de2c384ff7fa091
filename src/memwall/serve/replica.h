// One model replica (a TP x PP group of devices serving as one engine): its KV allocator and
// scheduler, and the clock of its iterations. The time of every iteration comes from the
// inference estimator through a step-cost function (infer/step.h); KV copies between the GPU and
// host memory (swap preemption, host prefix-cache loads) are timed over the host link by the
// offload library's transfer model (offload/bandwidth.h).
#pragma once

#include <functional>
#include <optional>

#include "memwall/core/units.h"
#include "memwall/infer/step.h"
#include "memwall/offload/bandwidth.h"
#include "memwall/serve/kv_allocator.h"
#include "memwall/serve/metrics.h"
#include "memwall/serve/scheduler.h"

namespace memwall::serve {

using StepCost = std::function<Seconds(const infer::StepBatch&)>;

struct ReplicaConfig {
  SchedulerConfig scheduler;
  KvConfig kv;
  Bytes kv_bytes_per_token{0};          // per device: for swap time (and disaggregated transfers)
  BytesPerSecond swap_bandwidth{16e9};  // host link used by swap preemption
  // The host link of each device for swap and host-cache loads; unset: swap_bandwidth with no
  // per-copy cost.
  std::optional<offload::HostLinkModel> host_link;
  int layers = 1;  // layers on a device: the KV moves as one copy per layer (and direction)
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
  // Swap and prefix-reuse counters with the time their copies took.
  HostKvStats host_kv() const;

 private:
  int index_;
  ReplicaConfig config_;
  StepCost cost_;
  KvAllocator kv_;
  Scheduler scheduler_;
  MetricsRecorder& metrics_;
  bool busy_ = false;
  double swap_time_s_ = 0, load_time_s_ = 0, load_exposed_s_ = 0;
};

}  // namespace memwall::serve
