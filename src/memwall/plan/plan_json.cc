#include "memwall/plan/plan_json.h"

#include <map>
#include <set>
#include <string>

#include "memwall/plan/intervals.h"
#include "memwall/plan/rejections.h"

namespace memwall::plan {
namespace {

Json prefill_to_json(const Plan& p) {
  if (!p.prefill) return nullptr;
  const auto& f = *p.prefill;
  return Json{{"accelerator", f.shape.accelerator->id},
              {"node", f.shape.node ? Json(f.shape.node->id) : Json(nullptr)},
              {"engine", f.shape.engine.empty() ? Json(nullptr) : Json(f.shape.engine)},
              {"tp", f.shape.tp}, {"pp", f.shape.pp}, {"ep", f.shape.ep}, {"replicas", f.replicas},
              {"devices", f.replicas * f.shape.devices()}, {"utilisation", f.utilisation},
              {"prompt_mean_s", f.prompt_mean.value()}, {"prompt_p99_s", f.prompt_p99.value()},
              {"kv_transfer_mean_s", f.kv_transfer_mean.value()}, {"kv_transfer_p99_s", f.kv_transfer_p99.value()},
              {"link_bytes_per_s", f.link.value()},
              {"usd_per_hour", f.cost.per_hour ? Json(f.cost.per_hour->value()) : Json(nullptr)}};
}

}  // namespace

Json to_json(const SoftwareFit& f) {
  return Json{{"engine", f.engine.empty() ? Json(nullptr) : Json(f.engine)},
              {"support", f.support},
              {"ecosystem_score", f.ecosystem ? Json(*f.ecosystem) : Json(nullptr)},
              {"ecosystem_reasons", f.ecosystem_reasons},
              {"risks", f.risks},
              {"risk", f.risks.empty() ? "low" : "flagged"},
              {"efficiency", f.efficiency_calibrated ? "calibrated" : "uncalibrated"},
              {"efficiency_source", f.efficiency_source}};
}

Json energy_json(const cost::DeploymentCost& c) {
  Json j{{"tokens_per_joule", c.tokens_per_joule ? Json(*c.tokens_per_joule) : Json(nullptr)},
         {"power_source", c.device.power_source.empty() ? Json(nullptr) : Json(c.device.power_source)}};
  // Tokens per kWh of facility energy and per dollar of electricity (tokens/J x 3.6e6 J/kWh / PUE).
  if (c.tokens_per_joule && c.device.board_power && c.device.facility_power &&
      c.device.board_power->value() > 0) {
    const double pue = c.device.facility_power->value() / c.device.board_power->value();
    const double per_kwh = *c.tokens_per_joule * 3.6e6 / pue;
    j["tokens_per_facility_kwh"] = per_kwh;
    if (c.device.energy && c.device.facility_power->value() > 0) {
      const double usd_per_kwh = c.device.energy->value() / (c.device.facility_power->value() / 1000.0);
      j["tokens_per_electricity_usd"] = usd_per_kwh > 0 ? Json(per_kwh / usd_per_kwh) : Json(nullptr);
    } else {
      j["tokens_per_electricity_usd"] = nullptr;
    }
  } else {
    j["tokens_per_facility_kwh"] = nullptr;
    j["tokens_per_electricity_usd"] = nullptr;
  }
  return j;
}

Json to_json(const Plan& p, const perf::Efficiency* calibration) {
  const auto& c = p.cost;
  Json j = Json{
      {"accelerator", p.shape.accelerator->id},
      {"node", p.shape.node ? Json(p.shape.node->id) : Json(nullptr)},
      {"tp", p.shape.tp}, {"pp", p.shape.pp}, {"ep", p.shape.ep},
      {"weight_precision", std::string(to_string(p.shape.weights))},
      {"kv_precision", std::string(to_string(p.shape.kv))},
      {"batch_per_replica", p.point.batch}, {"replicas", p.replicas}, {"devices", p.devices},
      {"ttft_p99_s", p.point.ttft_p99.value()}, {"ttft_mean_s", p.point.ttft_mean.value()},
      {"tpot_s", p.point.tpot.value()}, {"tpot_p99_s", p.point.tpot_p99.value()},
      {"e2e_mean_s", p.point.e2e_mean.value()}, {"e2e_p99_s", p.point.e2e_p99.value()},
      {"prefill_share", p.point.prefill_share},
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
      {"unknown", c.device.unknown}, {"sources", c.device.sources}};
  j["software"] = to_json(p.software);
  j["ecosystem_score"] = p.software.ecosystem ? Json(*p.software.ecosystem) : Json(nullptr);
  j["risks"] = p.software.risks;
  j["efficiency"] = p.software.efficiency_calibrated ? "calibrated" : "uncalibrated";
  j["energy"] = energy_json(c);
  j["servers"] = c.servers;
  // What `servers` counts: whole servers, or whole racks of a rack-scale system (Node::unit).
  j["purchase_unit"] = p.shape.node ? Json(p.shape.node->unit) : Json(nullptr);
  j["billed_devices"] = c.billed_devices;
  j["intervals"] = intervals_json(p, calibration);
  return j;
}

Json to_json(const Verification& v) {
  const auto& s = v.simulated;
  return Json{{"meets_sla", v.meets_sla}, {"requests", s.requests}, {"completed", s.completed},
              {"ttft_p99_s", s.ttft.p99}, {"tpot_p99_s", s.tpot.p99}, {"tpot_mean_s", s.tpot.mean},
              {"e2e_p99_s", s.e2e.p99}, {"throughput_tokens_per_s", s.throughput_tokens_per_s},
              {"sla_attainment", s.sla_attainment}, {"preemptions", s.preemptions_recompute + s.preemptions_swap},
              {"kv_transfers", s.kv_transfers}};
}

Json search_result_json(const InferenceSearchResult& r, const ModelSpec& model,
                        const InferenceWorkload& w, const SearchSpace& space, Objective objective,
                        int top, const std::vector<Verification>& checks,
                        const perf::Efficiency* calibration) {
  Json plans = Json::array();
  for (int i = 0; i < top && i < static_cast<int>(r.plans.size()); ++i) {
    plans.push_back(to_json(r.plans[static_cast<size_t>(i)], calibration));
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
  // Each frontier point with the rank (1-based) of the plan of its shape: a point is "SHAPE @
  // batch B" (aggregated: the plan is that shape at its best batch) or a disaggregated plan's own
  // description; null when the shape's plan failed a constraint. The plans of points ranked below
  // the first `top` are given too ("frontier_plans"), so every point leads to its plan.
  std::map<std::string, size_t> rank_of;
  for (size_t i = r.plans.size(); i-- > 0;) rank_of[r.plans[i].describe()] = i + 1;
  Json front = Json::array();
  std::set<size_t> beyond_top;
  for (size_t i : r.throughput_front) {
    const std::string& label = r.throughput_labels[i];
    const auto rank = rank_of.find(label.substr(0, label.rfind(" @ batch ")));
    front.push_back({{"label", label},
                     {"tokens_per_s_per_device", r.throughput_points[i].x},
                     {"tokens_per_s_per_user", r.throughput_points[i].y},
                     {"plan_rank", rank == rank_of.end() ? Json(nullptr) : Json(rank->second)}});
    if (rank != rank_of.end() && rank->second > plans.size()) beyond_top.insert(rank->second);
  }
  Json frontier_plans = Json::array();
  for (size_t rank : beyond_top) {
    frontier_plans.push_back(to_json(r.plans[rank - 1], calibration));
    frontier_plans.back()["plan_rank"] = rank;
  }
  Json cl = Json::array();
  for (size_t i : r.cost_latency_front) {
    cl.push_back(to_json(r.plans[i], calibration));
    cl.back()["plan_rank"] = i + 1;
  }
  Json rejected = Json::object();
  for (const auto& [id, why] : binding_rejections(r.rejected)) rejected[id] = why;
  return Json{{"model", model.id},
              {"objective", to_string(objective)},
              {"requirements", req},
              {"plans", plans},
              {"feasible_plans", r.plans.size()},
              {"pareto_throughput", front},
              {"frontier_plans", frontier_plans},
              {"pareto_cost_latency", cl},
              {"not_feasible", rejected},
              {"shapes_evaluated", r.shapes},
              {"explanation", explain_first(r)},
              {"configurations_evaluated", r.configurations},
              {"pool_pairs_evaluated", r.pool_pairs}};
}

}  // namespace memwall::plan
