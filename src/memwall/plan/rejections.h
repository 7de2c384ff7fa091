// Why an accelerator has no plan: of all the shapes and precisions tried on it, the reason of the
// one that came closest (docs/plan.md "Accelerators with no feasible plan"). `plan` and `compare`
// both say this one reason.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "memwall/plan/inference_search.h"

namespace memwall::plan {

// The binding verdict: the furthest RejectionStage, then the smallest shortfall at it (a measured
// one before an unmeasured one), then the first tried. So an SLA miss or a capacity miss of one
// precision outranks "unsupported" of another, and an unknown peak is reported only when no
// precision got past it.
const ShapeVerdict& binding_rejection(const std::vector<const ShapeVerdict*>& verdicts);
// The binding reason per accelerator id, over a search's rejections.
std::map<std::string, std::string> binding_rejections(const std::vector<ShapeVerdict>& rejected);

}  // namespace memwall::plan
