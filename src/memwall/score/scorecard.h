// The four-dimension scorecard of the source articles (memory, interconnect, software ecosystem,
// energy efficiency) plus cost, for one workload across candidate accelerators. Each dimension
// keeps the numbers behind its 0-10 score; a dimension whose facts are unknown has no score and
// is flagged, never filled in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/score/ecosystem.h"

namespace memwall::score {

// What the planner found for one accelerator on the workload (filled by plan/compare).
struct Evidence {
  const Accelerator* accelerator = nullptr;
  Bytes required_capacity;         // weights + KV cache of every sequence in flight (plan §1)
  BytesPerSecond required_bandwidth;  // those bytes / TPOT target
  bool feasible = false;        // some plan met the SLA within the constraints
  std::string infeasible_reason;
  int devices = 0;              // devices of the best plan (all replicas)
  // How far the chip's links scale, whatever its best plan uses (plan/compare.h): all-reduce bus
  // bandwidth at 8 and at 64 devices over the best inside one node, on its largest catalog node and
  // the fabric; nullopt when the chip has no node (or 64 devices need NICs or a fabric it lacks).
  std::optional<double> link_efficiency_8, link_efficiency_64;
  std::string link_basis;                  // node, fabric and the bus bandwidths behind them
  std::optional<double> tokens_per_joule;  // of the wall power of every device bought, before PUE
  std::optional<double> usd_per_million_tokens;
  int billed_devices = 0;  // devices bought (whole servers or racks: >= devices)
  std::string node;        // the node they are bought in ("" without one)
  std::string plan_summary;  // "TP4 x 3 replicas, fp8 weights ..."
};

struct Dimension {
  std::optional<double> score;  // 0-10; nullopt = unknown (flagged)
  std::string basis;            // the numbers behind it, in words
};

struct ScorecardRow {
  const Accelerator* accelerator = nullptr;
  Dimension memory, interconnect, ecosystem, energy, cost;
  EcosystemScore ecosystem_facts;
  Evidence evidence;
  std::vector<std::string> flags;  // unknown specs or prices, infeasible ...
};

// Scores (docs/compare.md):
//  memory       = 5 x min(1, device capacity / capacity the workload needs)
//               + 5 x min(1, device bandwidth / bandwidth the workload needs)
//  interconnect = 5 x link efficiency at 8 devices + 5 x link efficiency at 64 devices
//  ecosystem    = score_ecosystem (facts with sources)
//  energy       = 10 x tokens-per-joule / best tokens-per-joule among the rows
//  cost         = 10 x best $/M tokens / $/M tokens
std::vector<ScorecardRow> build_scorecard(const std::vector<Evidence>& evidence,
                                          const EcosystemBook& ecosystem);

}  // namespace memwall::score
