// `compare` like for like (issue 28): every row at one weight/KV precision and quality floor, and
// an interconnect score that measures how far each chip's links scale, whatever its best plan uses.
#include "memwall/plan/compare_query.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

CompareAnswer compare(CompareQuery q) {
  return answer_compare(Catalog::builtin(), cost::PriceBook::builtin(),
                        score::EcosystemBook::builtin(), q);
}

const score::ScorecardRow& row(const CompareAnswer& a, const std::string& id) {
  for (const auto& r : a.comparison.rows)
    if (r.accelerator->id == id) return r;
  throw std::runtime_error("no row " + id);
}

// Once each chip was scored at its own best precision (int4 on one row, fp8 on the next). Now
// every row runs --precision: the H100 and B200 plans are fp8, and the A100, which has no fp8
// path, is infeasible with that reason rather than scored at bf16.
TEST(CompareQuery, EveryRowRunsTheOnePrecisionAsked) {
  CompareQuery q;
  q.gpus = {"h100", "b200", "a100"};
  q.precision = q.kv_precision = "fp8";
  q.quality = "any";
  const CompareAnswer a = compare(q);
  EXPECT_EQ(a.weights, Precision::fp8_e4m3);
  EXPECT_EQ(a.kv, Precision::fp8_e4m3);
  ASSERT_EQ(a.comparison.best_plans.size(), 3u);
  for (const Plan& p : a.comparison.best_plans) {
    if (!p.shape.accelerator) continue;
    EXPECT_EQ(p.shape.weights, Precision::fp8_e4m3) << p.describe();
    EXPECT_EQ(p.shape.kv, Precision::fp8_e4m3) << p.describe();
  }
  const auto& a100 = row(a, "nvidia-a100-80gb-sxm");
  EXPECT_FALSE(a100.evidence.feasible);
  EXPECT_NE(a100.evidence.infeasible_reason.find("fp8 weights on nvidia-a100-80gb-sxm"),
            std::string::npos)
      << a100.evidence.infeasible_reason;
  const Json j = to_json(a);
  EXPECT_EQ(j["precision"]["weights"], "fp8_e4m3");
  // A precision the quality floor refuses is exit 3, not rows at another precision.
  q.precision = "int4";
  q.kv_precision = "bf16";
  q.quality = "near-lossless";
  EXPECT_THROW(compare(q), InfeasibleError);
  q.precision = "int3";
  EXPECT_THROW(compare(q), InputError);
}

// The interconnect score is 5 x (all-reduce efficiency at 8 devices + at 64): the 1 GiB
// all-reduce's bus bandwidth there over the best inside the node. HGX H100 + ib-ndr: 477 GB/s in
// the node and at 8 devices, 354 at 64 (74 %); HGX B200: 949 in the node, the same 354 at 64 (37
// %): its faster NVLink leaves the same NICs further behind. The same chips score the same for a 7B
// model whose best plans are 2- and 4-device replicas and for a 72B one: the score is the links',
// not the plan's (it once was 10 x the best plan's own scaling efficiency).
TEST(CompareQuery, InterconnectMeasuresHowFarTheLinksScale) {
  CompareQuery q;
  q.gpus = {"h100", "b200", "h100-nvl"};
  const CompareAnswer big = compare(q);
  q.model = "qwen2.5-7b";
  const CompareAnswer small = compare(q);
  const auto& h100 = row(big, "nvidia-h100-sxm");
  const auto& b200 = row(big, "nvidia-b200");
  ASSERT_TRUE(h100.evidence.link_efficiency_8 && h100.evidence.link_efficiency_64);
  EXPECT_NEAR(*h100.evidence.link_efficiency_8, 1.0, 1e-9);
  EXPECT_NEAR(*h100.evidence.link_efficiency_64, 354.0 / 477.0, 0.005);
  EXPECT_NEAR(*b200.evidence.link_efficiency_64, 354.0 / 949.0, 0.005);
  EXPECT_NEAR(*h100.interconnect.score, 5 * (1.0 + *h100.evidence.link_efficiency_64), 1e-9);
  EXPECT_GT(*h100.interconnect.score, *b200.interconnect.score);
  EXPECT_DOUBLE_EQ(*row(small, "nvidia-h100-sxm").interconnect.score, *h100.interconnect.score);
  EXPECT_DOUBLE_EQ(*row(small, "nvidia-b200").interconnect.score, *b200.interconnect.score);
  // A card in no catalog node: unknown, flagged, with the reason.
  const auto& nvl = row(big, "nvidia-h100-nvl");
  EXPECT_FALSE(nvl.interconnect.score.has_value());
  EXPECT_NE(nvl.interconnect.basis.find("no catalog node of nvidia-h100-nvl"), std::string::npos);
  const Json j = to_json(big);
  for (const auto& r : j["rows"])
    if (r["accelerator"] == "nvidia-h100-sxm") {
      EXPECT_NEAR(r["link_efficiency"]["devices_8"].get<double>(), 1.0, 1e-9);
      EXPECT_NEAR(r["link_efficiency"]["devices_64"].get<double>(), 354.0 / 477.0, 0.005);
    }
}

}  // namespace
}  // namespace memwall::plan
