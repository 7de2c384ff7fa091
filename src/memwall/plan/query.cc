#include "memwall/plan/query.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "memwall/core/error.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/intervals.h"
#include "memwall/plan/plan_json.h"
#include "memwall/plan/quality_filter.h"

namespace memwall::plan {

const char* const kPlanDefinitions =
    "Definitions: TTFT = arrival to first output token; TPOT = mean time between output tokens "
    "after the first; e2e = TTFT + (output - 1) x TPOT; throughput = generated tokens/s; "
    "$/M tokens = deployment $/hour / generated tokens per hour x 1e6. (low-high) and "
    "\"intervals\": 80 % intervals fitted on the validation errors (docs/validate.md); "
    "--confidence c keeps plans whose SLA holds at the high end of their c interval.";

namespace {

std::vector<Precision> precisions(const std::vector<std::string>& names, const char* field) {
  std::vector<Precision> out;
  for (const auto& p : names) out.push_back(parse_precision_or_throw(p, field));
  if (out.empty()) throw InputError(field, "(empty)", "a list such as bf16,fp8,int4");
  return out;
}

// A budget with no plan left because prices are unknown: exit 3 naming each missing price.
void throw_if_prices_missing(const InferenceSearchResult& r, double budget) {
  std::vector<std::string> missing;
  const std::string tag = "cost unknown under --budget: missing ";
  for (const auto& v : r.rejected) {
    const auto at = v.reason.find(tag);
    if (at == std::string::npos) continue;
    const std::string what = v.reason.substr(at + tag.size());
    if (std::find(missing.begin(), missing.end(), what) == missing.end()) missing.push_back(what);
  }
  if (missing.empty()) return;
  std::string list;
  for (const auto& m : missing) list += (list.empty() ? "" : "; ") + m;
  throw InfeasibleError("--budget $" + std::to_string(static_cast<long long>(budget)) +
                        ": no plan can be priced within it; missing price figures: " + list +
                        ". Add them in a --catalog file (\"prices\": accelerators capex_usd, nodes capex_usd/power_w) "
                        "or with --capex / --price-per-gpu-hour");
}

double positive(double v, const char* field) {
  if (!(v > 0) || !std::isfinite(v)) throw InputError(field, std::to_string(v), "a positive finite number");
  return v;
}

}  // namespace

std::unique_ptr<const InferenceAnswer> answer_inference(const Catalog& catalog, const cost::PriceBook& prices,
                                                        const InferenceQuery& q) {
  auto a = std::make_unique<InferenceAnswer>();
  a->model = catalog.model(q.model);
  InferenceWorkload& w = a->workload;
  if (q.rate.has_value() == q.concurrency.has_value())
    throw InputError("rate / concurrency", q.rate ? "both given" : "neither given",
                     "exactly one: rate (requests/s, open loop; CLI --rate R) or concurrency "
                     "(users, closed loop; CLI --concurrency C)");
  w.load.rate_per_s = q.rate;
  w.load.concurrency = q.concurrency;
  a->lengths = parse_lengths(q.input, q.output);
  summarize_lengths(a->lengths, w.input, w.output, &w);
  w.sla = parse_sla(q.sla);
  w.validate();

  if (!q.fabric.empty()) a->fabric = catalog.fabric(q.fabric);
  SearchSpace& space = a->space;
  space.fabric = a->fabric ? &*a->fabric : nullptr;
  space.accelerators = accelerators_named(catalog, q.gpus);
  // The vendor filters bind every section of the answer (all-GPU and offload plans alike).
  require_some_allowed(space.accelerators, q.domestic_only, q.vendors);
  space.accelerators = filter_vendors(space.accelerators, q.domestic_only, q.vendors);
  for (const auto& n : catalog.nodes()) space.nodes.push_back(&n);
  if (q.serving != "both" && q.serving != "aggregated" && q.serving != "disaggregated")
    throw InputError("serving", q.serving, "aggregated, disaggregated or both");
  space.aggregated = q.serving != "disaggregated";
  space.disaggregated = q.serving != "aggregated";
  space.weight_precisions = precisions(q.weight_precisions, "weight_precisions");
  space.kv_precisions = precisions(q.kv_precisions, "kv_precisions");
  a->quality = quality::parse_quality_policy(q.quality, q.min_recovery);
  a->removed_by_quality = apply_quality_policy(a->model, a->quality, quality::QualityTable::builtin(),
                                               space.weight_precisions, space.kv_precisions);

  Constraints constraints;
  if (q.budget_usd) constraints.budget_usd = positive(*q.budget_usd, "budget");
  if (q.power_cap_kw) constraints.power_cap_w = positive(*q.power_cap_kw, "power_cap_kw") * 1e3;
  if (q.max_gpus) {
    if (*q.max_gpus < 1 || *q.max_gpus > 1'000'000)
      throw InputError("max_gpus", std::to_string(*q.max_gpus), "1 to 1000000");
    constraints.max_gpus = q.max_gpus;
  }
  constraints.vendors = q.vendors;
  constraints.domestic_only = q.domestic_only;
  if (q.min_ecosystem) {
    if (!(*q.min_ecosystem >= 0 && *q.min_ecosystem <= 10))
      throw InputError("min_ecosystem", std::to_string(*q.min_ecosystem), "a score from 0 to 10");
    constraints.min_ecosystem = q.min_ecosystem;
  }
  constraints.risk_averse = q.risk_averse;
  if (!q.engine.empty()) check_engine_id(q.engine);
  constraints.engine = q.engine;
  a->support = SupportMatrix::with_user_files(q.catalog_files);
  a->ecosystem = score::EcosystemBook::with_user_files(q.catalog_files);
  if (q.top < 1 || q.top > 10000) throw InputError("top", std::to_string(q.top), "1 to 10000");
  if (q.verify < 0 || q.verify > 20) throw InputError("verify", std::to_string(q.verify), "0 to 20 plans");
  if (q.verify_requests != 0 && (q.verify_requests < 10 || q.verify_requests > 1'000'000))
    throw InputError("verify_requests", std::to_string(q.verify_requests), "10 to 1000000");
  a->options.objective = parse_objective(q.objective);
  a->options.cost = q.cost;
  a->options.cost.validate();
  a->options.support = &a->support;
  a->options.ecosystem = &a->ecosystem;
  a->options.cancel = q.cancel;

  if (q.calibration)
    a->efficiency = std::make_shared<const perf::Efficiency>(perf::load_calibration(*q.calibration));
  const auto factory = estimator_factory(a->fabric, a->efficiency);
  const auto start = std::chrono::steady_clock::now();
  a->result = search_inference(a->model, w, space, constraints, a->options, factory, prices);
  a->search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (constraints.budget_usd && a->result.plans.empty()) throw_if_prices_missing(a->result, *constraints.budget_usd);
  if (q.confidence) {
    a->confidence = q.confidence;
    a->removed_by_confidence =
        require_confidence(a->result, w.sla, *q.confidence, a->efficiency.get());
  }
  a->top = std::min<int>(q.top, static_cast<int>(a->result.plans.size()));
  for (int i = 0; i < a->top; ++i)
    a->plan_quality.push_back(
        plan_quality(a->model, a->result.plans[static_cast<size_t>(i)].shape, quality::QualityTable::builtin()));
  // 100 requests per closed-loop user (10,000 to 300,000) keeps the users' start inside the
  // simulated steady state; open loop: 20,000.
  a->verify_requests =
      q.verify_requests > 0 ? q.verify_requests
      : w.load.concurrency
          ? std::clamp<int64_t>(static_cast<int64_t>(100 * *w.load.concurrency), 10'000, 300'000)
          : 20'000;
  if (q.offload)
    a->offload_plans =
        search_offload(catalog, a->model, w, space, prices, a->options.cost, std::min(q.top, 5));
  for (int i = 0; i < std::min(q.verify, a->top); ++i)
    a->checks.push_back(verify_plan(a->model, a->result.plans[static_cast<size_t>(i)], w,
                                    a->lengths, factory, a->verify_requests, q.cancel));
  return a;
}

Json to_json(const InferenceAnswer& a) {
  Json out = search_result_json(a.result, a.model, a.workload, a.space, a.options.objective, a.top,
                                a.checks, a.efficiency.get());
  out["search_seconds"] = a.search_seconds;
  out["definitions"] = kPlanDefinitions;
  if (a.confidence)
    out["confidence"] = Json{{"level", *a.confidence},
                             {"plans_removed", a.removed_by_confidence},
                             {"rule", "the SLA must hold with TTFT, TPOT and e2e at the high end "
                                      "of their interval at this level"}};
  out["offload_plans"] = offload_plans_json(a.offload_plans);
  Json q = quality::to_json(a.quality);
  q["removed"] = a.removed_by_quality;
  out["quality"] = q;
  for (size_t i = 0; i < a.plan_quality.size() && i < out["plans"].size(); ++i)
    out["plans"][i]["quality"] = quality::to_json(a.plan_quality[i]);
  return out;
}

}  // namespace memwall::plan
