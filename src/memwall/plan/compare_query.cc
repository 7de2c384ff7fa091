#include "memwall/plan/compare_query.h"

#include <algorithm>

#include "memwall/core/error.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/quality_filter.h"
#include "memwall/plan/workload.h"

namespace memwall::plan {
namespace {

Json dimension_json(const score::Dimension& d) {
  return {{"score", d.score ? Json(*d.score) : Json(nullptr)}, {"basis", d.basis}};
}

const char* support_name(score::Support s) {
  return s == score::Support::native ? "native" : s == score::Support::plugin ? "plugin" : "none";
}

Json part_json(const score::EcosystemPart& p) {
  Json items = Json::array();
  for (const auto& i : p.items)
    items.push_back({{"item", i.id},
                     {"label", i.label},
                     {"weight", i.weight},
                     {"points", i.points ? Json(*i.points) : Json(nullptr)},
                     {"found", i.found}});
  return {{"points", p.points}, {"weight", p.weight}, {"unknown", p.unknown}, {"items", items}};
}

}  // namespace

Json ecosystem_parts_json(const score::EcosystemScore& e) {
  const auto& v = e.porting;
  return {{"coverage", part_json(e.coverage)},
          {"operators", part_json(e.operators)},
          {"toolchain", part_json(e.toolchain)},
          {"porting",
           {{"effort", std::string(score::to_string(v.effort))},
            {"tool", v.tool},
            {"verdict", v.sentence},
            {"kernels_to_write", v.kernels_to_write},
            {"no_hardware", v.no_hardware},
            {"unknown", v.unknown}}}};
}

CompareAnswer answer_compare(const Catalog& catalog, const cost::PriceBook& prices,
                             const score::EcosystemBook& ecosystem, const CompareQuery& q) {
  CompareAnswer a;
  a.model = catalog.model(q.model);
  InferenceWorkload& w = a.workload;
  w.load.rate_per_s = q.rate;
  w.load.concurrency = q.concurrency;
  if (!w.load.rate_per_s && !w.load.concurrency) w.load.concurrency = 300;
  const serve::Dataset lengths = parse_lengths(q.input, q.output);
  summarize_lengths(lengths, w.input, w.output, &w);
  w.sla = parse_sla(q.sla);
  w.validate();

  SearchSpace space;
  const Fabric& fabric = catalog.fabric("ib-ndr");
  space.fabric = &fabric;
  space.accelerators = accelerators_named(catalog, q.gpus);
  for (const auto& n : catalog.nodes()) space.nodes.push_back(&n);
  a.weights = parse_precision_or_throw(q.precision, "precision");
  a.kv = parse_precision_or_throw(q.kv_precision, "kv_precision");
  space.weight_precisions = {a.weights};
  space.kv_precisions = {a.kv};
  a.quality = quality::parse_quality_policy(q.quality, q.min_recovery);
  a.removed_by_quality = apply_quality_policy(a.model, a.quality, quality::QualityTable::builtin(),
                                              space.weight_precisions, space.kv_precisions);
  Constraints constraints;
  constraints.vendors = q.vendors;
  constraints.domestic_only = q.domestic_only;
  if (q.max_gpus) {
    if (*q.max_gpus < 1)
      throw InputError("max_gpus", std::to_string(*q.max_gpus), "a positive count");
    constraints.max_gpus = q.max_gpus;
  }
  // Vendor filters apply to the rows too: an excluded accelerator is not scored.
  require_some_allowed(space.accelerators, constraints.domestic_only, constraints.vendors);
  space.accelerators = filter_vendors(space.accelerators, constraints.domestic_only, constraints.vendors);
  SearchOptions options;
  options.cost.basis = cost::parse_pricing_basis(q.pricing);
  options.cost.price_per_gpu_hour = q.price_per_gpu_hour;
  options.cost.electricity_usd_per_kwh = q.electricity;
  options.cost.pue = q.pue;
  options.cost.life_years = q.life_years;
  options.cost.validate();
  options.cancel = q.cancel;

  a.comparison = compare_accelerators(a.model, w, space, constraints, options,
                                      estimator_factory(
                                          fabric, q.calibration
                                                      ? std::make_shared<const perf::Efficiency>(
                                                            perf::load_calibration(*q.calibration))
                                                      : nullptr),
                                      prices, ecosystem);
  const auto& rows = a.comparison.rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    const bool planned = i < a.comparison.best_plans.size() && a.comparison.best_plans[i].shape.accelerator;
    a.row_quality.push_back(planned ? std::optional(plan_quality(a.model, a.comparison.best_plans[i].shape,
                                                                 quality::QualityTable::builtin()))
                                    : std::nullopt);
  }
  a.order.resize(rows.size());
  for (size_t i = 0; i < a.order.size(); ++i) a.order[i] = i;
  std::stable_sort(a.order.begin(), a.order.end(), [&](size_t x, size_t y) {
    const auto& cx = rows[x].cost.score;
    const auto& cy = rows[y].cost.score;
    if (cx.has_value() != cy.has_value()) return cx.has_value();
    return cx && *cx > *cy;
  });
  return a;
}

Json to_json(const CompareAnswer& a) {
  const Comparison& c = a.comparison;
  Json rows = Json::array();
  for (size_t i : a.order) {
    const auto& r = c.rows[i];
    Json facts = Json::array();
    for (const auto& f : r.ecosystem_facts.facts)
      facts.push_back({{"name", f.name},
                       {"kind", f.kind},
                       {"support", support_name(f.support)},
                       {"source", f.source},
                       {"date", f.date},
                       {"path", f.path ? Json(std::string(score::to_string(*f.path))) : Json(nullptr)}});
    rows.push_back(
        {{"accelerator", r.accelerator->id},
         {"vendor", r.accelerator->vendor},
         {"memory", dimension_json(r.memory)},
         {"interconnect", dimension_json(r.interconnect)},
         {"link_efficiency",
          {{"devices_8",
            r.evidence.link_efficiency_8 ? Json(*r.evidence.link_efficiency_8) : Json(nullptr)},
           {"devices_64",
            r.evidence.link_efficiency_64 ? Json(*r.evidence.link_efficiency_64) : Json(nullptr)}}},
         {"ecosystem", dimension_json(r.ecosystem)},
         {"energy", dimension_json(r.energy)},
         {"cost", dimension_json(r.cost)},
         {"ecosystem_facts", facts},
         {"ecosystem_parts", ecosystem_parts_json(r.ecosystem_facts)},
         {"plan", r.evidence.plan_summary},
         {"devices", r.evidence.devices},
         {"quality", a.row_quality[i] ? quality::to_json(*a.row_quality[i]) : Json(nullptr)},
         {"flags", r.flags}});
  }
  Json quality_json = quality::to_json(a.quality);
  quality_json["removed"] = a.removed_by_quality;
  return Json{
      {"model", a.model.id},
      {"precision",
       {{"weights", std::string(to_string(a.weights))}, {"kv", std::string(to_string(a.kv))}}},
      {"required_capacity_bytes", c.requirements.capacity.value()},
      {"required_bandwidth_bytes_per_s", c.requirements.bandwidth.value()},
      {"quality", quality_json},
      {"rows", rows}};
}

}  // namespace memwall::plan
