// `compare --scenario`: which accelerator suits which workload (issue 33 item 5). A scenario is a
// concrete workload preset (docs/compare.md "Scenarios"): chat, long-context and batch are
// inference workloads answered by the compare scorecard (answer_compare), training a pre-training
// run answered by the training planner (search_training). Each row is ranked by what the scenario
// buys (cost per million tokens, or the run's cost) and names the wall that decides it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/prices.h"
#include "memwall/plan/compare_query.h"
#include "memwall/score/ecosystem.h"

namespace memwall::plan {

struct ScenarioPreset {
  std::string name;   // chat | long-context | batch | training
  std::string model;
  std::string why;    // one sentence: what it stands for and why these numbers
  bool training = false;
  // Inference: the load, the lengths and the SLA (CompareQuery forms).
  double concurrency = 0;
  std::string input, output, sla;
  // Training: tokens, deadline and the largest cluster searched.
  double tokens = 0, days = 0;
  int max_gpus = 0;
};

const std::vector<ScenarioPreset>& scenario_presets();
// InputError naming --scenario, the value and the allowed names.
const ScenarioPreset& scenario_preset(const std::string& name);

// The wall that decides a row (docs/compare.md "Scenarios"). Ecosystem decides a row whose stack
// cannot run the workload's formats, or is immature (score below kMatureEcosystem or unknown): the
// porting work comes before the hardware's limit.
enum class DecidingWall {
  memory_capacity, memory_bandwidth, compute, interconnect, ecosystem, overhead, load,
  engine_limit, latency, scale, unknown
};
std::string_view to_string(DecidingWall w);

struct ScenarioRow {
  const Accelerator* accelerator = nullptr;
  bool domestic = false;
  bool feasible = false;
  std::optional<double> usd_per_million_tokens;  // inference
  std::optional<double> run_usd, run_days;       // training
  int devices = 0;
  DecidingWall wall = DecidingWall::unknown;
  DecidingWall hardware_wall = DecidingWall::unknown;  // the hardware's own wall (= wall unless ecosystem decides)
  std::string basis;  // the numbers behind the hardware wall (the plan's binding sentence, or why no plan)
  std::optional<double> ecosystem;
  score::PortingEffort porting = score::PortingEffort::unknown;
};

struct ScenarioAnswer {
  ScenarioPreset preset;
  std::vector<ScenarioRow> rows;  // ranked: feasible by cost (unpriced after priced), then the rest
};

// The scenario over the accelerators `filters` keeps (its gpus, vendors, domestic_only, pricing and
// cost overrides; the preset fixes model, load, lengths and SLA).
ScenarioAnswer answer_scenario(const Catalog& catalog, const cost::PriceBook& prices,
                               const score::EcosystemBook& ecosystem, const std::string& scenario,
                               const CompareQuery& filters);

Json to_json(const ScenarioAnswer& a);

}  // namespace memwall::plan
