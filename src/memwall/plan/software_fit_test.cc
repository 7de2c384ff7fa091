// The support matrix and the ecosystem in the planner, swept over the whole built-in catalog: no
// plan uses a weight or KV format the matrix (or the hardware) marks unsupported, an unknown one is
// always flagged, and the domestic questions of issue 15 plan on real server nodes.
#include <gtest/gtest.h>

#include <algorithm>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/plan/plan_json.h"
#include "memwall/plan/query.h"

namespace memwall::plan {
namespace {

bool hardware_lacks(const Accelerator& a, Precision p) {
  const std::string key(info(p).peak_key);
  return std::find(a.unsupported_precisions.begin(), a.unsupported_precisions.end(), key) !=
         a.unsupported_precisions.end();
}

TEST(SoftwareFit, SweepNeverPlansAnUnsupportedFormatOrEngine) {
  const Catalog& c = Catalog::builtin();
  const SupportMatrix& m = SupportMatrix::builtin();
  const score::EcosystemBook eco = score::EcosystemBook::builtin();
  const Precision formats[] = {Precision::bf16, Precision::fp16, Precision::fp8_e4m3, Precision::int8,
                               Precision::int4, Precision::fp4};
  int checked = 0;
  for (const auto& a : c.accelerators()) {
    for (const std::string& engine : [&] {
           std::vector<std::string> e{""};
           e.insert(e.end(), kEngineIds.begin(), kEngineIds.end());
           return e;
         }()) {
      Constraints cons;
      cons.engine = engine;
      for (Precision w : formats) {
        for (Precision k : formats) {
          const SoftwareFit fit = software_fit(a, w, k, cons, m, eco);
          ++checked;
          const SupportVerdict vw = engine.empty() ? m.weights(a, w) : m.weights(a, w, engine);
          const SupportVerdict vk = engine.empty() ? m.kv(a, k) : m.kv(a, k, engine);
          if (!fit.feasible) {
            EXPECT_NE(fit.why.find("unsupported"), std::string::npos) << a.id;
            continue;
          }
          // Feasible: the chosen engine's verdicts are never "unsupported" ...
          for (const auto& s : fit.support) EXPECT_EQ(s.find(": unsupported"), std::string::npos) << s;
          // ... a format the hardware lacks is planned only where an entry says an engine runs it ...
          for (const auto& [p, v] : {std::pair{w, vw}, std::pair{k, vk}}) {
            if (hardware_lacks(a, p) && v.level == SupportLevel::supported) {
              EXPECT_EQ(v.source.find("the hardware"), std::string::npos) << a.id;
            }
          }
          // ... and an unknown verdict is always carried as a risk.
          for (const auto& s : fit.support) {
            if (s.find(": unknown") != std::string::npos) {
              EXPECT_TRUE(std::any_of(fit.risks.begin(), fit.risks.end(),
                                      [&](const std::string& r) { return r.find(s) != std::string::npos; }))
                  << s;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(SoftwareFit, Fp8KvDisappearsOnChipsWithoutFp8) {
  const Catalog& c = Catalog::builtin();
  const SupportMatrix& m = SupportMatrix::builtin();
  const score::EcosystemBook eco = score::EcosystemBook::builtin();
  for (const char* id : {"910c", "910b", "910b4", "mlu370", "biren-br100"}) {
    const SoftwareFit fit = software_fit(c.accelerator(id), Precision::bf16, Precision::fp8_e4m3, {}, m, eco);
    EXPECT_FALSE(fit.feasible) << id;
  }
  // Ampere has no FP8 matmuls, but vLLM stores an FP8 KV cache and dequantises it (sourced entry).
  EXPECT_TRUE(software_fit(c.accelerator("a100"), Precision::bf16, Precision::fp8_e4m3, {}, m, eco).feasible);
  EXPECT_FALSE(software_fit(c.accelerator("a100"), Precision::fp8_e4m3, Precision::bf16, {}, m, eco).feasible);
  // int4 on Gaudi 3 is unknown in every engine: planned only with a flag.
  const SoftwareFit g = software_fit(c.accelerator("gaudi3"), Precision::int4, Precision::bf16, {}, m, eco);
  EXPECT_TRUE(g.feasible);
  EXPECT_FALSE(g.risks.empty());
  EXPECT_FALSE(g.efficiency_calibrated);
  // A named engine narrows the verdicts; an unknown engine id is bad input.
  Constraints trt;
  trt.engine = "trtllm";
  EXPECT_FALSE(software_fit(c.accelerator("910b"), Precision::bf16, Precision::bf16, trt, m, eco).risks.empty());
  EXPECT_TRUE(software_fit(c.accelerator("h100"), Precision::fp8_e4m3, Precision::fp8_e4m3, trt, m, eco).feasible);
  EXPECT_THROW(check_engine_id("vllm-gpu"), InputError);
}

TEST(SoftwareFit, EcosystemPerGeneration) {
  const Catalog& c = Catalog::builtin();
  const score::EcosystemBook eco = score::EcosystemBook::builtin();
  const auto v100 = score::score_ecosystem(c.accelerator("v100"), eco);
  const auto h100 = score::score_ecosystem(c.accelerator("h100"), eco);
  ASSERT_TRUE(v100.score && h100.score);
  EXPECT_DOUBLE_EQ(*h100.score, 10.0);
  EXPECT_LT(*v100.score, 6.0);  // no FlashAttention 2, no Triton, no TensorRT-LLM, no bf16
  EXPECT_NE(std::find(v100.missing.begin(), v100.missing.end(), "kernels"), v100.missing.end());
  const auto tpu = score::score_ecosystem(c.accelerator("tpu-v5p"), eco);
  ASSERT_TRUE(tpu.score);
  EXPECT_GE(*tpu.score, 3.0);  // JAX counts as the framework
  const auto gaudi = score::score_ecosystem(c.accelerator("gaudi3"), eco);
  ASSERT_TRUE(gaudi.score);
  EXPECT_LT(*gaudi.score, kMatureEcosystem);
}

InferenceQuery domestic_70b() {
  InferenceQuery q;
  q.model = "llama-3.1-70b";
  q.concurrency = 50;
  q.domestic_only = true;
  q.serving = "aggregated";
  return q;
}

TEST(SoftwareFit, DomesticInferencePlansOnServersWithSourcedPrices) {
  InferenceQuery q = domestic_70b();
  q.budget_usd = 500000;
  const auto a = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  ASSERT_FALSE(a->result.plans.empty());
  for (const auto& p : a->result.plans) {
    EXPECT_NE(p.shape.node, nullptr) << p.describe();
    EXPECT_NE(p.shape.kv, Precision::fp8_e4m3) << p.describe();
    ASSERT_TRUE(p.cost.tco.has_value()) << p.describe();
    EXPECT_LE(p.cost.tco->value(), 500000.0);
    EXPECT_FALSE(p.cost.device.sources.empty());
    EXPECT_FALSE(p.software.efficiency_calibrated);  // Ascend: the vendor prior, marked
    EXPECT_GE(p.cost.billed_devices, p.devices);
    EXPECT_EQ(p.cost.billed_devices % p.shape.node->devices, 0);
  }
  const Json j = to_json(*a);
  const Json& first = j["plans"][0];
  EXPECT_EQ(first["efficiency"], "uncalibrated");
  EXPECT_TRUE(first["ecosystem_score"].is_number());
  EXPECT_TRUE(first["energy"]["tokens_per_joule"].is_number());
  EXPECT_TRUE(first["energy"]["power_source"].is_string());
  EXPECT_EQ(j["explanation"].size(), 3u);
}

// A disaggregated plan is deployable only where the two pools can hand KV over: one engine's
// connector on both sides (vLLM's NixlConnector, SGLang's and TensorRT-LLM's own transfer), and
// one vendor's build of it, since vLLM's NIXL handshake refuses a peer whose vLLM version or
// attention backend differ (docs/plan.md "Disaggregated pools", *pairing*). Different accelerators
// of one vendor still pair (Splitwise-HA's A100 + H100 pools).
TEST(SoftwareFit, DisaggregatedPoolsShareOneEngineAndOneVendor) {
  for (const std::vector<std::string>& vendors :
       {std::vector<std::string>{"nvidia", "huawei"}, std::vector<std::string>{"nvidia", "amd", "huawei", "cambricon"}}) {
    InferenceQuery q;
    q.model = "llama-3.1-70b";
    q.concurrency = 200;
    q.vendors = vendors;
    q.serving = "disaggregated";
    q.offload = false;
    q.top = 1000;
    const auto a = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
    int pairs = 0, mixed_hardware = 0;
    for (const Plan& p : a->result.plans) {
      if (!p.prefill) continue;
      ++pairs;
      const ReplicaShape& pre = p.prefill->shape;
      EXPECT_EQ(pre.engine, p.shape.engine) << p.describe();
      EXPECT_EQ(pre.accelerator->vendor, p.shape.accelerator->vendor) << p.describe();
      if (pre.accelerator != p.shape.accelerator) ++mixed_hardware;
    }
    EXPECT_GT(pairs, 0) << "no disaggregated plan to check";
    EXPECT_GT(mixed_hardware, 0) << "one vendor's different accelerators still pair";
  }
}

// A card whose catalog entry names a deployment risk (GeForce: its driver licence excludes
// datacenter deployment, which an owned plan's colocation hosting is) flags every plan on it, in
// both planners, and --risk-averse plans without it.
TEST(SoftwareFit, GeforcePlansCarryTheirDriverLicenceAndRiskAverseDropsThem) {
  InferenceQuery q;
  q.model = "llama-3.1-70b";
  q.concurrency = 200;
  q.vendors = {"nvidia"};
  q.serving = "aggregated";
  q.offload = false;
  const auto all = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  const auto geforce = [](const Plan& p) { return p.shape.accelerator->name.find("GeForce") != std::string::npos; };
  int flagged = 0;
  for (const Plan& p : all->result.plans) {
    if (!geforce(p)) continue;
    ++flagged;
    EXPECT_TRUE(std::any_of(p.software.risks.begin(), p.software.risks.end(), [](const std::string& r) {
      return r.find("No Datacenter Deployment") != std::string::npos;
    })) << p.describe();
  }
  ASSERT_GT(flagged, 0) << "no GeForce plan in the scenario";
  q.risk_averse = true;
  const auto averse = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  ASSERT_FALSE(averse->result.plans.empty());
  for (const Plan& p : averse->result.plans) EXPECT_FALSE(geforce(p)) << p.describe();
  // The training planner reads the same stack verdict.
  const Accelerator& card = *Catalog::builtin().find_accelerator("nvidia-rtx-4090");
  const SoftwareFit fit = stack_fit(card, Precision::bf16, score::EcosystemBook::builtin());
  ASSERT_EQ(fit.risks.size(), 1u);
  EXPECT_EQ(fit.risks[0].rfind("nvidia-rtx-4090: ", 0), 0u) << fit.risks[0];
  EXPECT_NE(fit.risks[0].find("section 2.1.3 'No Datacenter Deployment'"), std::string::npos) << fit.risks[0];
}

TEST(SoftwareFit, BudgetWithMissingPriceNamesIt) {
  InferenceQuery q = domestic_70b();
  q.gpus = {"910c"};  // no sourced price for a 910C outside the CloudMatrix rack
  q.budget_usd = 500000;
  try {
    answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
    FAIL() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("capex of huawei-ascend-910c"), std::string::npos) << e.what();
  }
}

TEST(SoftwareFit, RiskAverseAndMinEcosystemDropFlaggedPlans) {
  InferenceQuery q;
  q.model = "llama-3.1-8b";
  q.concurrency = 20;
  q.gpus = {"gaudi3", "h100"};
  q.serving = "aggregated";
  const auto all = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  const auto has_gaudi = [](const InferenceSearchResult& r) {
    return std::any_of(r.plans.begin(), r.plans.end(),
                       [](const Plan& p) { return p.shape.accelerator->id == "intel-gaudi3"; });
  };
  ASSERT_TRUE(has_gaudi(all->result));
  for (const auto& p : all->result.plans) {
    if (p.shape.accelerator->id == "intel-gaudi3") {
      EXPECT_FALSE(p.software.risks.empty());
    }
  }
  q.risk_averse = true;
  EXPECT_FALSE(has_gaudi(answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q)->result));
  q.risk_averse = false;
  q.min_ecosystem = 6;
  EXPECT_FALSE(has_gaudi(answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q)->result));
  q.min_ecosystem = 11;
  EXPECT_THROW(answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q), InputError);
}

TEST(SoftwareFit, UserPriceChangesThePlan) {
  InferenceQuery q = domestic_70b();
  q.gpus = {"910b"};
  const auto base = answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q);
  ASSERT_FALSE(base->result.plans.empty());
  cost::PriceBook cheaper = cost::PriceBook::builtin();
  cheaper.load(Json::parse(R"({"prices": {"accelerators": [{"accelerator": "910b", "capex_usd": 5000}]}})"), "user.json");
  const auto cut = answer_inference(Catalog::builtin(), cheaper, q);
  ASSERT_FALSE(cut->result.plans.empty());
  EXPECT_LT(*cut->result.plans.front().cost.capex_total, *base->result.plans.front().cost.capex_total);
}

}  // namespace
}  // namespace memwall::plan
