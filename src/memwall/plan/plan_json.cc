#include "memwall/plan/plan_json.h"

#include <map>
#include <string>

#include "memwall/plan/intervals.h"

namespace memwall::plan {
namespace {

Json prefill_to_json(const Plan& p) {
  if (!p.prefill) return nullptr;
  const auto& f = *p.prefill;
  return Json{{"accelerator", f.shape.accelerator->id},
              {"node", f.shape.node ? Json(f.shape.node->id) : Json(nullptr)},
              {"tp", f.shape.tp}, {"pp", f.shape.pp}, {"ep", f.shape.ep}, {"replicas", f.replicas},
              {"devices", f.replicas * f.shape.devices()}, {"utilisation", f.utilisation},
              {"prompt_mean_s", f.prompt_mean.value()}, {"prompt_p99_s", f.prompt_p99.value()},
              {"kv_transfer_mean_s", f.kv_transfer_mean.value()}, {"kv_transfer_p99_s", f.kv_transfer_p99.value()},
              {"link_bytes_per_s", f.link.value()},
              {"usd_per_hour", f.cost.per_hour ? Json(f.cost.per_hour->value()) : Json(nullptr)}};
}

}  // namespace

Json to_json(const Plan& p) {
  const auto& c = p.cost;
  return Json{
      {"accelerator", p.shape.accelerator->id},
      {"node", p.shape.node ? Json(p.shape.node->id) : Json(nullptr)},
      {"tp", p.shape.tp}, {"pp", p.shape.pp}, {"ep", p.shape.ep},
      {"weight_precision", std::string(to_string(p.shape.weights))},
      {"kv_precision", std::string(to_string(p.shape.kv))},
      {"batch_per_replica", p.point.batch}, {"replicas", p.replicas}, {"devices", p.devices},
      {"ttft_p99_s", p.point.ttft_p99.value()}, {"ttft_mean_s", p.point.ttft_mean.value()},
      {"tpot_s", p.point.tpot.value()}, {"e2e_mean_s", p.point.e2e_mean.value()},
      {"e2e_p99_s", p.point.e2e_p99.value()}, {"prefill_share", p.point.prefill_share},
      {"throughput_tokens_per_s", p.generated_tokens_per_s},
      {"tokens_per_s_per_device", p.tokens_per_s_per_device},
      {"tokens_per_s_per_user", p.tokens_per_s_per_user},
      {"pricing_basis", cost::to_string(c.device.basis)},
      {"usd_per_million_tokens", c.usd_per_million_tokens ? Json(*c.usd_per_million_tokens) : Json(nullptr)},
      {"usd_per_hour", c.per_hour ? Json(c.per_hour->value()) : Json(nullptr)},
      {"capex_usd", c.capex_total ? Json(c.capex_total->value()) : Json(nullptr)},
      {"tco_usd", c.tco ? Json(c.tco->value()) : Json(nullptr)}, {"tco_years", c.tco_years},
      {"facility_power_w", c.facility_power ? Json(c.facility_power->value()) : Json(nullptr)},
      {"tokens_per_joule", c.tokens_per_joule ? Json(*c.tokens_per_joule) : Json(nullptr)},
      {"scaling_efficiency", p.scaling_efficiency ? Json(*p.scaling_efficiency) : Json(nullptr)},
      {"objective", p.objective ? Json(*p.objective) : Json(nullptr)},
      {"near_tie", p.near_tie}, {"binding", p.binding},
      {"serving", p.disaggregated() ? "disaggregated" : "aggregated"},
      {"prefill_pool", prefill_to_json(p)},
      {"unknown", c.device.unknown}, {"sources", c.device.sources},
      {"intervals", intervals_json(p)}};
}

Json to_json(const Verification& v) {
  const auto& s = v.simulated;
  return Json{{"meets_sla", v.meets_sla}, {"requests", s.requests}, {"completed", s.completed},
              {"ttft_p99_s", s.ttft.p99}, {"tpot_p99_s", s.tpot.p99}, {"tpot_mean_s", s.tpot.mean},
              {"e2e_p99_s", s.e2e.p99}, {"throughput_tokens_per_s", s.throughput_tokens_per_s},
              {"sla_attainment", s.sla_attainment}, {"preemptions", s.preemptions_recompute + s.preemptions_swap},
              {"kv_transfers", s.kv_transfers}};
}

std::map<std::string, std::string> first_rejection(const InferenceSearchResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& v : r.rejected) out.emplace(v.shape.accelerator->id, v.reason);  // first per id
  return out;
}

Json search_result_json(const InferenceSearchResult& r, const ModelSpec& model,
                        const InferenceWorkload& w, const SearchSpace& space, Objective objective,
                        int top, const std::vector<Verification>& checks) {
  Json plans = Json::array();
  for (int i = 0; i < top && i < static_cast<int>(r.plans.size()); ++i) {
    plans.push_back(to_json(r.plans[static_cast<size_t>(i)]));
    if (static_cast<size_t>(i) < checks.size()) plans.back()["verified"] = to_json(checks[static_cast<size_t>(i)]);
  }
  Json req = Json::object();
  for (Precision wp : space.weight_precisions) {
    const auto q = derive_requirements(model, w, wp, space.kv_precisions.front());
    req[std::string(to_string(wp))] = {{"weights_bytes", q.weights.value()}, {"kv_cache_bytes", q.kv_cache.value()},
                                        {"capacity_bytes", q.capacity.value()}, {"bandwidth_bytes_per_s", q.bandwidth.value()},
                                        {"decode_flops_per_s", q.decode_compute.value()},
                                        {"ttft_flops_per_s", q.ttft_compute.value()},
                                        {"concurrency", q.concurrency}, {"generated_tokens_per_s", q.generated_tokens_per_s}};
  }
  Json front = Json::array();
  for (size_t i : r.throughput_front) {
    front.push_back({{"label", r.throughput_labels[i]}, {"tokens_per_s_per_device", r.throughput_points[i].x},
                     {"tokens_per_s_per_user", r.throughput_points[i].y}});
  }
  Json cl = Json::array();
  for (size_t i : r.cost_latency_front) cl.push_back(to_json(r.plans[i]));
  Json rejected = Json::object();
  for (const auto& [id, why] : first_rejection(r)) rejected[id] = why;
  return Json{{"model", model.id}, {"objective", to_string(objective)},
              {"requirements", req}, {"plans", plans}, {"feasible_plans", r.plans.size()},
              {"pareto_throughput", front}, {"pareto_cost_latency", cl},
              {"not_feasible", rejected}, {"shapes_evaluated", r.shapes},
              {"configurations_evaluated", r.configurations}, {"pool_pairs_evaluated", r.pool_pairs}};
}

}  // namespace memwall::plan
