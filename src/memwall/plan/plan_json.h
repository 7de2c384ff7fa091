// The JSON form of the planner's answers: one plan, a simulator check of a plan, and a whole
// inference search. The CLI (`memwall plan infer --json`), the HTTP API and the Python bindings all
// print this one form.
#pragma once

#include <vector>

#include "memwall/core/document.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/verify.h"

namespace memwall::plan {

// `calibration`: the profile the plan was timed with (its intervals, plan/intervals.h); null: none.
Json to_json(const Plan& p, const perf::Efficiency* calibration = nullptr);
Json to_json(const SoftwareFit& f);
// Energy of a costed deployment: tokens per joule (board/wall power), per facility kWh and per
// dollar of electricity, with the power figure's source.
Json energy_json(const cost::DeploymentCost& c);
Json to_json(const Verification& v);
// The search answer: requirements per weight precision, the top `top` plans (each with its
// simulator check where `checks` has one), the Pareto frontiers and why accelerators failed
// (binding_rejections).
Json search_result_json(const InferenceSearchResult& r, const ModelSpec& model,
                        const InferenceWorkload& w, const SearchSpace& space, Objective objective,
                        int top, const std::vector<Verification>& checks,
                        const perf::Efficiency* calibration = nullptr);

}  // namespace memwall::plan
