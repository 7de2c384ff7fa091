#include "memwall/perf/operator.h"

#include <fmt/format.h>

namespace memwall::perf {

std::string_view to_string(CommPattern c) {
  switch (c) {
    case CommPattern::none: return "none";
    case CommPattern::tp_all_reduce: return "tp all-reduce";
    case CommPattern::tp_all_gather: return "tp all-gather";
    case CommPattern::pp_send_recv: return "pp send/recv";
  }
  return "?";
}

std::string Operator::shape() const {
  if (cost.kind == OpKind::gemm) {
    std::string s = fmt::format("{}x{}x{}", cost.gemm.m, cost.gemm.n, cost.gemm.k);
    if (cost.gemm.batch > 1) s += fmt::format(" x{} groups", cost.gemm.batch);
    return s + " " + std::string(to_string(element));
  }
  if (cost.kind == OpKind::communication)
    return fmt::format("{} of {:.3g} MB", to_string(comm), message_bytes.value() / 1e6);
  if (cost.bytes_moved().value() <= 0 && cost.fixed_time.value() > 0)
    return fmt::format("{:.0f} us fixed", cost.fixed_time.value() * 1e6);
  return fmt::format("{:.3g} MB moved", cost.bytes_moved().value() / 1e6);
}

std::string_view bound_of(const Operator& op, const OpTime& t) {
  if (op.cost.kind == OpKind::communication) return "communication";
  if (op.cost.bytes_moved().value() <= 0 && op.cost.flops.value() <= 0 &&
      op.cost.fixed_time.value() > 0)
    return "overhead";
  return t.compute_bound ? "compute" : "memory";
}

double Operator::intensity() const {
  const double b = cost.bytes_moved().value();
  return b > 0 ? cost.flops.value() / b : 0.0;
}

}  // namespace memwall::perf
