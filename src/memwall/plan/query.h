// The `plan infer` question by names (model id, accelerator ids, length presets, SLA text) and its
// whole answer: the workload and search space built from the catalog, the ranked search, the
// simulator checks of the top plans and the JSON every face prints. The CLI, the HTTP API and the
// Python bindings all answer through `answer_inference`, so they agree by construction.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/prices.h"
#include "memwall/cost/tco.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/offload_plans.h"
#include "memwall/plan/verify.h"
#include "memwall/quality/policy.h"
#include "memwall/serve/workload.h"

namespace memwall::plan {

struct InferenceQuery {
  std::string model = "qwen2.5-72b";
  std::optional<double> rate, concurrency;  // exactly one
  std::string input = "sharegpt", output = "sharegpt";  // plan::parse_lengths forms
  std::string sla = "ttft_p99=1,tpot_p99=0.05";
  std::optional<double> budget_usd, power_cap_kw;
  std::optional<int> max_gpus;
  std::vector<std::string> vendors, gpus;  // empty: all
  bool domestic_only = false;
  std::vector<std::string> weight_precisions{"bf16", "fp8", "int4"}, kv_precisions{"bf16", "fp8"};
  std::string fabric = "ib-ndr";  // empty: none (no multi-node replicas, no disaggregation)
  std::string serving = "both";   // aggregated | disaggregated | both
  std::string objective = "cost";
  cost::CostOverrides cost;
  std::optional<double> min_ecosystem;  // 0-10
  bool risk_averse = false;
  std::string engine;                   // kEngineIds; empty: any engine
  std::vector<std::string> catalog_files;  // user files whose "support"/"ecosystem" keys extend the built-ins
  // A calibration profile (memwall calibrate, memwall probe) every candidate is timed with.
  std::optional<std::string> calibration;
  int top = 10;
  bool offload = true;           // also one-GPU plans with the model partly in host memory
  int verify = 0;                // re-check this many top plans in the serving simulator
  int64_t verify_requests = 0;   // 0: 100 per closed-loop user (10,000 to 300,000), else 20,000
  // Keep only plans whose SLA holds at the pessimistic end of this interval (plan/intervals.h).
  std::optional<double> confidence;
  // Model quality (docs/plan.md "Model quality"): lossless | near-lossless | any, or a floor in %.
  std::string quality = "near-lossless";
  std::optional<double> min_recovery;
  // The HTTP server's: the search and its checks stop with Cancelled once set (core/cancel.h).
  const CancelFlag* cancel = nullptr;
};

struct InferenceAnswer {
  ModelSpec model;
  InferenceWorkload workload;
  serve::Dataset lengths;
  std::optional<Fabric> fabric;
  SearchSpace space;  // points into the catalog and into `fabric`
  SearchOptions options;
  SupportMatrix support;            // options.support points here
  score::EcosystemBook ecosystem;   // options.ecosystem points here
  InferenceSearchResult result;
  std::vector<Verification> checks;  // of the first plans, in rank order
  std::vector<OffloadPlan> offload_plans;  // one GPU + host memory (plan/offload_plans.h)
  int64_t verify_requests = 0;       // requests each check simulated
  int top = 0;                       // plans reported
  double search_seconds = 0;
  std::optional<double> confidence;  // as asked
  int removed_by_confidence = 0;     // feasible plans whose SLA fails at the pessimistic end
  quality::QualityPolicy quality;
  std::vector<std::string> removed_by_quality;  // precisions the policy took out, with the reason
  std::vector<quality::QualityVerdict> plan_quality;  // of each reported plan, in rank order
  // The calibration profile every candidate was timed with (InferenceQuery::calibration); null:
  // the built-in parameters. The plans' intervals on a stack it fitted are its calibrated ones.
  std::shared_ptr<const perf::Efficiency> efficiency;
};

// InputError naming the field (model, rate/concurrency, input, output, sla, budget, power_cap_kw,
// max_gpus, gpus, weight_precisions, kv_precisions, fabric, serving, objective, top, verify,
// verify_requests, min_ecosystem, engine, quality, min_recovery) for a bad value. InfeasibleError (exit 3) when a --budget
// leaves no plan because prices are unknown: the message names each missing price. Not copyable once built (the space points into it).
std::unique_ptr<const InferenceAnswer> answer_inference(const Catalog& catalog, const cost::PriceBook& prices,
                                                        const InferenceQuery& q);

// plan::search_result_json plus "search_seconds", "definitions", "offload_plans" and "quality"
// (the policy, the precisions it removed, and each plan's "quality").
Json to_json(const InferenceAnswer& a);

// The definitions printed with every planner answer.
extern const char* const kPlanDefinitions;

}  // namespace memwall::plan
