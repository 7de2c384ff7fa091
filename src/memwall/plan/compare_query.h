// The `compare` question by names (model id, workload, SLA text, accelerator and vendor filters,
// pricing) and its answer: the scorecard rows ranked by cost score, and the JSON every face prints
// (the CLI's `memwall compare --json`, the HTTP API), so their keys cannot drift apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/prices.h"
#include "memwall/plan/compare.h"
#include "memwall/quality/policy.h"
#include "memwall/score/ecosystem.h"

namespace memwall::plan {

struct CompareQuery {
  std::string model = "qwen2.5-72b";
  std::optional<double> rate, concurrency;              // neither: 300 concurrent users
  std::string input = "sharegpt", output = "sharegpt";  // plan::parse_lengths forms
  std::string sla = "ttft_p99=1,tpot_p99=0.05";
  std::vector<std::string> gpus, vendors;  // empty: all
  bool domestic_only = false;
  std::optional<int> max_gpus;
  std::string pricing = "owned";
  // A calibration profile (memwall calibrate, memwall probe) every chip's plans are timed with.
  std::optional<std::string> calibration;
  std::optional<double> price_per_gpu_hour, electricity, pue, life_years;
  // Every row at these weight and KV precisions (like for like; a chip without bf16 stores the same
  // 16-bit tensors as fp16); the quality policy must keep them.
  std::string precision = "bf16", kv_precision = "bf16";
  std::string quality = "near-lossless";  // as InferenceQuery: every chip at the same quality floor
  std::optional<double> min_recovery;
  const CancelFlag* cancel = nullptr;  // the HTTP server's, as InferenceQuery::cancel
};

struct CompareAnswer {
  ModelSpec model;
  InferenceWorkload workload;
  Comparison comparison;
  std::vector<size_t>
      order;  // feasible rows by cost score (best first), then the rest in catalog order
  Precision weights = Precision::bf16, kv = Precision::bf16;  // every row's
  quality::QualityPolicy quality;
  std::vector<std::string> removed_by_quality;  // precisions the policy took out, with the reason
  std::vector<std::optional<quality::QualityVerdict>> row_quality;  // of each row's best plan (rows' order)
};

// InputError naming the field for a bad value (precision, kv_precision; quality, min_recovery as
// plan infer); InfeasibleError (exit 3) when the quality policy admits none of the precisions.
CompareAnswer answer_compare(const Catalog& catalog, const cost::PriceBook& prices,
                             const score::EcosystemBook& ecosystem, const CompareQuery& q);

// The three parts of an ecosystem score and the porting verdict (docs/compare.md "Ecosystem"),
// as `compare --json` prints them under rows[].ecosystem_parts.
Json ecosystem_parts_json(const score::EcosystemScore& e);

// The answer as `memwall compare --json` prints it: rows in `order`.
Json to_json(const CompareAnswer& a);

}  // namespace memwall::plan
