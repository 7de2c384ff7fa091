#include "memwall/infer/step.h"

#include <algorithm>
#include <bit>

#include "memwall/core/error.h"
#include "memwall/infer/deployment.h"
#include "memwall/perf/graph.h"

namespace memwall::infer {
namespace {

perf::StepTokens tokens_of(const StepBatch& b) {
  if (b.prefill_tokens < 0 || b.prefill_sequences < 0 || !(b.prefill_attended_pairs >= 0) ||
      b.decode_sequences < 0 || b.decode_context_tokens < 0)
    throw InputError("step batch: token and sequence counts must be non-negative");
  return perf::StepTokens{b.prefill_tokens, b.prefill_sequences, b.prefill_attended_pairs,
                          b.decode_sequences, b.decode_context_tokens};
}

perf::OpTime time_of(const Deployment& d, const perf::Operator& op) {
  if (op.cost.kind == perf::OpKind::communication) {
    perf::OpTime t;
    t.time = d.comm[size_t(op.comm)].time(op.message_bytes) *
             (op.comm == perf::CommPattern::tp_all_reduce ? 1.0 - d.efficiency->tp_comm_overlap
                                                          : 1.0);
    return t;
  }
  return perf::time_op(op.cost, d.ceilings);
}

// The engine's host work of one iteration: a fixed part and a part per sequence it runs.
Seconds host_overhead(const Deployment& d, const StepBatch& b) {
  return d.ceilings.step_overhead +
         d.ceilings.step_overhead_per_sequence * double(b.prefill_sequences + b.decode_sequences);
}

}  // namespace

Seconds step_time(const Deployment& d, const StepBatch& batch) {
  const auto ops = perf::build_step_graph(d.model, d.shard, tokens_of(batch));
  if (ops.empty()) return Seconds(0);
  double total = 0;
  for (const auto& op : ops) total += op.repeat * time_of(d, op).time.value();
  return Seconds(total) + host_overhead(d, batch);
}

namespace {
// The fields of a kernel's cost that time_op reads.
struct KernelKey {
  perf::OpKind kind = perf::OpKind::communication;  // communication: an empty slot
  double flops = 0, bytes_read = 0, bytes_written = 0, fixed_time = 0;
  int64_t m = 0, n = 0, k = 0, batch = 0;
  int kernels = 0;
  bool operator==(const KernelKey&) const = default;
  size_t slot(size_t slots) const {  // a cheap mix of the fields that vary
    uint64_t h = static_cast<uint64_t>(kind) * 0x9E3779B97F4A7C15ull;
    for (uint64_t v : {std::bit_cast<uint64_t>(flops), std::bit_cast<uint64_t>(bytes_read),
                       static_cast<uint64_t>(m), static_cast<uint64_t>(n), static_cast<uint64_t>(k)})
      h = (h ^ v) * 0x100000001B3ull;
    return static_cast<size_t>(h ^ (h >> 29)) & (slots - 1);
  }
};
}  // namespace

// A direct-mapped memo: each kernel has one slot, whose key is compared whole (a collision only
// times the kernel again).
struct StepTimer::Memo {
  static constexpr size_t kSlots = StepTimer::kMaxEntries;
  std::vector<std::pair<KernelKey, double>> slots = std::vector<std::pair<KernelKey, double>>(kSlots);
  std::vector<perf::Operator> ops;  // the graph's storage, reused
};

StepTimer::StepTimer(const Deployment& d) : d_(&d), memo_(std::make_unique<Memo>()) {}
StepTimer::~StepTimer() = default;
StepTimer::StepTimer(StepTimer&&) noexcept = default;

Seconds StepTimer::operator()(const StepBatch& batch) {
  const Deployment& d = *d_;
  std::vector<perf::Operator>& ops = memo_->ops;
  perf::build_step_graph(d.model, d.shard, tokens_of(batch), ops);
  if (ops.empty()) return Seconds(0);
  double total = 0;
  for (const auto& op : ops) {
    const perf::OpCost& c = op.cost;
    double t;
    if (c.kind == perf::OpKind::communication || c.kind == perf::OpKind::attention_prefill ||
        c.kind == perf::OpKind::attention_decode) {
      t = time_of(d, op).time.value();  // by context: rarely the same twice
    } else {
      const KernelKey key{c.kind, c.flops.value(), c.bytes_read.value(), c.bytes_written.value(),
                          c.fixed_time.value(), c.gemm.m, c.gemm.n, c.gemm.k, c.gemm.batch, c.kernels};
      auto& [known, time] = memo_->slots[key.slot(Memo::kSlots)];
      if (!(known == key)) {
        known = key;
        time = time_of(d, op).time.value();
      }
      t = time;
    }
    total += op.repeat * t;
  }
  return Seconds(total) + host_overhead(d, batch);
}

StepCost step_cost(const Deployment& d, const StepBatch& batch) {
  StepCost c;
  const auto ops = perf::build_step_graph(d.model, d.shard, tokens_of(batch));
  if (ops.empty()) return c;
  c.ops.reserve(ops.size());
  for (const auto& op : ops) {
    TimedOp t{op, time_of(d, op)};
    const double r = op.repeat;
    c.total += t.time.time * r;
    c.overhead += t.time.overhead * r;
    if (op.cost.kind == perf::OpKind::communication)
      c.communication += (t.time.time - t.time.overhead) * r;
    else if (t.time.compute_bound)
      c.compute_bound += (t.time.time - t.time.overhead) * r;
    else
      c.memory_bound += (t.time.time - t.time.overhead) * r;
    if (op.cost.kind != perf::OpKind::communication) {
      c.bytes_moved += op.cost.bytes_moved() * r;
      c.flops += op.cost.flops * r;
    }
    c.ops.push_back(std::move(t));
  }
  // Operators repeat over the whole model's layers; one device holds 1/pp of them.
  c.bytes_moved = c.bytes_moved / double(d.pp);
  c.flops = c.flops / double(d.pp);
  const Seconds host = host_overhead(d, batch);
  c.total += host;
  c.overhead += host;
  return c;
}

}  // namespace memwall::infer
