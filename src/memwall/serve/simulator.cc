#include "memwall/serve/simulator.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <queue>

#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

enum class EventKind : uint8_t { arrival, iteration_done, wake, transfer_done };

struct Event {
  double t;
  uint64_t seq;  // insertion order: equal times resolve deterministically
  EventKind kind;
  uint32_t index;  // replica, or request for transfers
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Loop {
 public:
  Loop(const SimulationConfig& c, const StepCost& cost, const StepCost& prefill_cost)
      : c_(c),
        source_(c.workload),
        metrics_(total_replicas(c)),
        router_(c.router),
        decode_router_(c.router) {
    const auto& d = c.disaggregation;
    if (d.enabled) {
      if (d.prefill_replicas < 1 || d.decode_replicas < 1 || d.prefill_replicas > 4096 ||
          d.decode_replicas > 4096)
        throw InputError("--prefill-replicas/--decode-replicas",
                         fmt::format("{}/{}", d.prefill_replicas, d.decode_replicas),
                         "1 to 4096 each");
      if (!(d.link_bandwidth.value() > 0) || !std::isfinite(d.link_bandwidth.value()))
        throw InputError("--link-bandwidth", fmt::format("{}", d.link_bandwidth.value()), "> 0");
      ReplicaConfig pre = c.replica, dec = c.replica;
      pre.scheduler.policy = SchedulerPolicy::prefill_only;
      if (d.prefill_token_budget > 0) pre.scheduler.token_budget = d.prefill_token_budget;
      dec.scheduler.policy = SchedulerPolicy::decode_only;
      for (int i = 0; i < d.prefill_replicas; ++i)
        add(pre, prefill_cost ? prefill_cost : cost, prefill_);
      for (int i = 0; i < d.decode_replicas; ++i) add(dec, cost, decode_);
    } else {
      if (c.replicas < 1 || c.replicas > 4096)
        throw InputError("--replicas", std::to_string(c.replicas), "1 to 4096");
      for (int i = 0; i < c.replicas; ++i) add(c.replica, cost, prefill_);
    }
    wake_pending_.assign(replicas_.size(), false);
  }

  SimulationResult run() {
    const bool closed = c_.workload.arrival.kind == ArrivalKind::closed_loop;
    if (closed) {
      const auto& a = c_.workload.arrival;
      for (int i = 0; i < a.concurrency; ++i) pull(a.ramp_s * i / a.concurrency);
    } else {
      pull(0.0);
    }
    // The cancel flag, every 4096 events (about 0.2 ms of this loop).
    for (uint64_t n = 0; !events_.empty(); ++n) {
      if (n % 4096 == 0) throw_if_cancelled(c_.cancel);
      const Event ev = events_.top();
      events_.pop();
      now_ = ev.t;
      switch (ev.kind) {
        case EventKind::arrival:
          arrive(ev.index);
          break;
        case EventKind::iteration_done:
          iteration_done(*replicas_[ev.index]);
          break;
        case EventKind::wake:
          wake_pending_[ev.index] = false;
          try_start(*replicas_[ev.index]);
          break;
        case EventKind::transfer_done:
          transfer_done(ev.index);
          break;
      }
    }
    SimulationResult r = metrics_.summarize(table_, c_.sla);
    r.rejected_too_long = rejected_[0];
    r.rejected_never_fits = rejected_[1];
    r.rejected_queue_full = rejected_[2];
    for (const auto& rep : replicas_) {
      r.generated_tokens += rep->scheduler().generated_tokens();
      r.preemptions_recompute += rep->scheduler().preemptions_recompute();
      r.preemptions_swap += rep->scheduler().preemptions_swap();
      r.kv_allocated += rep->kv().allocated_count();
      r.kv_freed += rep->kv().freed_count();
      r.kv_capacity_tokens += rep->kv().capacity_tokens();
      r.host_kv.add(rep->host_kv());
    }
    r.kv_transfers = transfers_;
    return r;
  }

 private:
  static int total_replicas(const SimulationConfig& c) {
    return c.disaggregation.enabled
               ? c.disaggregation.prefill_replicas + c.disaggregation.decode_replicas
               : c.replicas;
  }
  void add(const ReplicaConfig& rc, const StepCost& cost, std::vector<Replica*>& pool) {
    replicas_.push_back(
        std::make_unique<Replica>(static_cast<int>(replicas_.size()), rc, cost, table_, metrics_));
    pool.push_back(replicas_.back().get());
  }
  void push(double t, EventKind k, uint32_t index) { events_.push(Event{t, seq_++, k, index}); }

  // Takes the next request from the source; open-loop requests arrive at their own time.
  void pull(double closed_loop_time) {
    Request r;
    if (!source_.next(r)) {
      arrivals_done_ = true;
      for (auto& rep : replicas_) wake_soon(*rep);  // batching policies stop waiting for more
      return;
    }
    if (c_.workload.arrival.kind == ArrivalKind::closed_loop) r.arrival_s = closed_loop_time;
    const uint32_t id = table_.add(r);
    push(r.arrival_s, EventKind::arrival, id);
    if (source_.total() == static_cast<int64_t>(table_.requests.size()))
      arrivals_pending_last_ = id;
  }

  void arrive(uint32_t id) {
    if (c_.workload.arrival.kind != ArrivalKind::closed_loop) pull(0.0);
    if (arrivals_pending_last_ == id) arrivals_done_ = true;
    Replica& rep = *prefill_[router_.pick(prefill_)];
    if (c_.disaggregation.enabled) {
      prefill_of_.resize(table_.requests.size(), 0);
      prefill_of_[id] = static_cast<uint16_t>(rep.index());
    }
    place(rep, id);
    if (arrivals_done_)
      for (auto& r : replicas_) wake_soon(*r);
  }

  void place(Replica& rep, uint32_t id) {
    const Admission a = rep.scheduler().enqueue(id);
    if (a != Admission::queued) {
      ++rejected_[a == Admission::too_long ? 0 : a == Admission::never_fits ? 1 : 2];
      done(id);
      return;
    }
    ++rep.outstanding;
    wake_soon(rep);
  }

  // Starts the replica after every event at this instant has been handled, so requests arriving
  // together are planned together.
  void wake_soon(Replica& rep) {
    if (rep.busy() || wake_pending_[static_cast<size_t>(rep.index())]) return;
    wake_pending_[static_cast<size_t>(rep.index())] = true;
    push(now_, EventKind::wake, static_cast<uint32_t>(rep.index()));
  }

  void done(uint32_t) {
    if (c_.workload.arrival.kind == ArrivalKind::closed_loop) pull(now_);
  }

  void try_start(Replica& rep) {
    if (rep.busy()) return;
    const auto end = rep.start(now_, arrivals_done_);
    for (uint32_t id : rep.scheduler().transfers_started()) {
      const double bytes = static_cast<double>(table_.requests[id].input_tokens) *
                           c_.replica.kv_bytes_per_token.value();
      ++transfers_;
      push(now_ + c_.disaggregation.link_latency.value() +
               bytes / c_.disaggregation.link_bandwidth.value(),
           EventKind::transfer_done, id);
    }
    if (end) {
      push(*end, EventKind::iteration_done, static_cast<uint32_t>(rep.index()));
    } else if (rep.scheduler().wake_at() >= 0) {
      push(rep.scheduler().wake_at(), EventKind::wake, static_cast<uint32_t>(rep.index()));
    }
  }

  void iteration_done(Replica& rep) {
    rep.finish(outcome_);
    for (uint32_t id : outcome_.first_token) table_.first_token_s[id] = now_;
    for (uint32_t id : outcome_.finished) {
      table_.finish_s[id] = now_;
      --rep.outstanding;
      metrics_.finished_one();
      done(id);
    }
    // Copy: placing a request on a decode replica may start it and reuse outcome_.
    const std::vector<uint32_t> handed = outcome_.handed_off;
    for (uint32_t id : handed) {
      --rep.outstanding;
      Replica& dec = *decode_[decode_router_.pick(decode_)];
      decode_of_.resize(table_.requests.size(), 0);
      decode_of_[id] = static_cast<uint16_t>(dec.index());
      place(dec, id);
      if (table_.seqs[id].phase == Phase::rejected) rep.scheduler().release_handoff(id);
    }
    try_start(rep);
  }

  void transfer_done(uint32_t id) {
    Replica& dec = *replicas_[decode_of_[id]];
    Replica& pre = *replicas_[prefill_of_[id]];
    dec.scheduler().transfer_done(id);
    pre.scheduler().release_handoff(id);
    try_start(dec);
    try_start(pre);
  }

  const SimulationConfig& c_;
  RequestSource source_;
  RequestTable table_;
  MetricsRecorder metrics_;
  Router router_, decode_router_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> prefill_, decode_;  // aggregated serving: all replicas are in prefill_
  std::vector<uint16_t> prefill_of_, decode_of_;
  std::vector<bool> wake_pending_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  IterationOutcome outcome_;
  uint64_t seq_ = 0;
  double now_ = 0;
  bool arrivals_done_ = false;
  int64_t arrivals_pending_last_ = -1;
  int64_t rejected_[3] = {0, 0, 0};
  int64_t transfers_ = 0;
};

}  // namespace

SimulationResult simulate(const SimulationConfig& config, const StepCost& cost,
                          const StepCost& prefill_cost) {
  if (!cost) throw InputError("simulate: no step-cost function");
  Loop loop(config, cost, prefill_cost);
  return loop.run();
}

}  // namespace memwall::serve
