#include "memwall/plan/rejections.h"

#include <stdexcept>

namespace memwall::plan {
namespace {

// True when `x` came closer to a plan than `y`.
bool closer(const ShapeVerdict& x, const ShapeVerdict& y) {
  if (x.stage != y.stage) return x.stage > y.stage;
  const bool xm = x.shortfall > 0, ym = y.shortfall > 0;
  if (xm != ym) return xm;
  return xm && x.shortfall < y.shortfall;
}

}  // namespace

const ShapeVerdict& binding_rejection(const std::vector<const ShapeVerdict*>& verdicts) {
  if (verdicts.empty()) throw std::logic_error("binding_rejection: no verdicts");
  const ShapeVerdict* best = verdicts.front();
  for (const ShapeVerdict* v : verdicts)
    if (closer(*v, *best)) best = v;
  return *best;
}

std::map<std::string, std::string> binding_rejections(const std::vector<ShapeVerdict>& rejected) {
  std::map<std::string, std::vector<const ShapeVerdict*>> by_id;
  for (const auto& v : rejected) by_id[v.shape.accelerator->id].push_back(&v);
  std::map<std::string, std::string> out;
  for (const auto& [id, verdicts] : by_id) out[id] = binding_rejection(verdicts).reason;
  return out;
}

}  // namespace memwall::plan
