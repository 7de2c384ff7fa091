// memwall compare: the four-dimension scorecard of the source articles for one workload. Every
// candidate accelerator is planned for the workload (memwall plan infer restricted to it); its best
// plan gives the numbers behind the memory, interconnect, energy and cost scores, and sourced
// software facts give the ecosystem score. Unknown specs and prices are flagged, not guessed.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/plan/compare.h"
#include "memwall/plan/estimator.h"

namespace memwall::cli {
namespace {

struct CompareOptions {
  std::string model = "qwen2.5-72b";
  std::optional<double> rate;
  std::optional<double> concurrency;
  std::string workload;  // shorthand: "chat" = sharegpt lengths, 300 users, TTFT 1 s, TPOT 50 ms
  std::string input = "sharegpt", output = "sharegpt";
  std::string sla = "ttft_p99=1,tpot_p99=0.05";
  std::string gpus;
  std::string vendors;
  bool domestic_only = false;
  std::optional<int> max_gpus;
  std::string pricing = "auto";
  std::optional<double> price_per_gpu_hour, electricity, pue, life_years;
};


std::string score_cell(const score::Dimension& d) {
  return d.score ? fmt::format("{:.1f}", *d.score) : "unknown";
}

Json dimension_json(const score::Dimension& d) {
  return {{"score", d.score ? Json(*d.score) : Json(nullptr)}, {"basis", d.basis}};
}

int run_compare(const CompareOptions& o, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  const cost::PriceBook prices = cost::PriceBook::with_user_files(g.catalog_files);
  const score::EcosystemBook ecosystem = score::EcosystemBook::with_user_files(g.catalog_files);
  const ModelSpec model = catalog->model(o.model);

  plan::InferenceWorkload w;
  w.load.rate_per_s = o.rate;
  w.load.concurrency = o.concurrency;
  if (!o.workload.empty()) {
    if (o.workload != "chat") throw InputError::unknown_name("--workload", o.workload, {"chat"});
    if (!o.rate && !o.concurrency) w.load.concurrency = 300;
  }
  if (!w.load.rate_per_s && !w.load.concurrency) w.load.concurrency = 300;
  const serve::Dataset lengths = plan::parse_lengths(o.input, o.output);
  plan::summarize_lengths(lengths, w.input, w.output);
  w.sla = plan::parse_sla(o.sla);
  w.validate();

  plan::SearchSpace space;
  const std::optional<Fabric> fabric = catalog->fabric("ib-ndr");
  space.fabric = &*fabric;
  if (o.gpus.empty()) {
    for (const auto& a : catalog->accelerators()) space.accelerators.push_back(&a);
  } else {
    for (const auto& name : split_list(o.gpus)) space.accelerators.push_back(&catalog->accelerator(name));
  }
  for (const auto& n : catalog->nodes()) space.nodes.push_back(&n);
  plan::Constraints constraints;
  constraints.vendors = split_list(o.vendors);
  constraints.domestic_only = o.domestic_only;
  if (o.max_gpus) {
    if (*o.max_gpus < 1) throw InputError("--max-gpus", std::to_string(*o.max_gpus), "a positive count");
    constraints.max_gpus = o.max_gpus;
  }
  // Vendor filters apply to the rows too: an excluded accelerator is not scored.
  std::vector<const Accelerator*> kept;
  for (const Accelerator* a : space.accelerators) {
    std::string v = a->vendor;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (constraints.domestic_only && !plan::is_domestic_vendor(v)) continue;
    if (!constraints.vendors.empty() &&
        std::none_of(constraints.vendors.begin(), constraints.vendors.end(),
                     [&](const std::string& x) { return v.rfind(x, 0) == 0; }))
      continue;
    kept.push_back(a);
  }
  space.accelerators = kept;
  plan::SearchOptions options;
  options.cost.basis = cost::parse_pricing_basis(o.pricing);
  options.cost.price_per_gpu_hour = o.price_per_gpu_hour;
  options.cost.electricity_usd_per_kwh = o.electricity;
  options.cost.pue = o.pue;
  options.cost.life_years = o.life_years;
  options.cost.validate();

  const plan::Comparison c = plan::compare_accelerators(model, w, space, constraints, options,
                                                        plan::estimator_factory(fabric), prices, ecosystem);
  std::vector<size_t> order(c.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Feasible rows by cost score (best first), then the rest in catalog order.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = c.rows[a].cost.score;
    const auto& y = c.rows[b].cost.score;
    if (x.has_value() != y.has_value()) return x.has_value();
    return x && *x > *y;
  });

  if (g.json) {
    Json rows = Json::array();
    for (size_t i : order) {
      const auto& r = c.rows[i];
      Json facts = Json::array();
      for (const auto& f : r.ecosystem_facts.facts) {
        facts.push_back({{"name", f.name}, {"kind", f.kind},
                         {"support", f.support == score::Support::native ? "native"
                                     : f.support == score::Support::plugin ? "plugin" : "none"},
                         {"source", f.source}, {"date", f.date}});
      }
      rows.push_back({{"accelerator", r.accelerator->id}, {"vendor", r.accelerator->vendor},
                      {"memory", dimension_json(r.memory)}, {"interconnect", dimension_json(r.interconnect)},
                      {"ecosystem", dimension_json(r.ecosystem)}, {"energy", dimension_json(r.energy)},
                      {"cost", dimension_json(r.cost)}, {"ecosystem_facts", facts},
                      {"plan", r.evidence.plan_summary}, {"devices", r.evidence.devices},
                      {"flags", r.flags}});
    }
    std::cout << Json{{"model", model.id},
                      {"required_capacity_bytes", c.requirements.capacity.value()},
                      {"required_bandwidth_bytes_per_s", c.requirements.bandwidth.value()},
                      {"rows", rows}}
                     .dump(2)
              << "\n";
    return 0;
  }
  fmt::print("memwall compare: {} for {}, SLA TTFT p99 <= {:g} s, TPOT <= {:g} ms\n", model.id,
             w.load.concurrency ? fmt::format("{:g} concurrent users", *w.load.concurrency)
                                : fmt::format("{:g} requests/s", *w.load.rate_per_s),
             w.sla.ttft_p99.value(), w.sla.tpot_p99.value() * 1e3);
  fmt::print("Needs (bf16 weights and KV): {:.1f} GB of memory, {:.2f} TB/s of bandwidth.\n"
             "Scores 0-10: memory = capacity + bandwidth sufficiency of one device; interconnect = "
             "scaling efficiency of the best plan; ecosystem = sourced software facts; energy and "
             "cost relative to the best row.\n\n",
             c.requirements.capacity.value() / 1e9, c.requirements.bandwidth.value() / 1e12);
  fmt::print("{:<24} {:>6} {:>6} {:>6} {:>6} {:>6}  {}\n", "ACCELERATOR", "MEMORY", "INTERC", "ECOSYS",
             "ENERGY", "COST", "BEST PLAN / FLAGS");
  for (size_t i : order) {
    const auto& r = c.rows[i];
    fmt::print("{:<24} {:>6} {:>6} {:>6} {:>6} {:>6}  {}\n", r.accelerator->id, score_cell(r.memory),
               score_cell(r.interconnect), score_cell(r.ecosystem), score_cell(r.energy), score_cell(r.cost),
               r.evidence.feasible ? r.evidence.plan_summary : fmt::format("{}", fmt::join(r.flags, "; ")));
  }
  fmt::print("\nThe numbers behind each score:\n");
  for (size_t i : order) {
    const auto& r = c.rows[i];
    fmt::print("  {}\n    memory: {}\n    interconnect: {}\n    ecosystem: {}\n    energy: {}\n    cost: {}\n",
               r.accelerator->id, r.memory.basis, r.interconnect.basis, r.ecosystem.basis, r.energy.basis,
               r.cost.basis);
    if (!r.flags.empty()) fmt::print("    flags: {}\n", fmt::join(r.flags, "; "));
  }
  return 0;
}

}  // namespace

void register_compare(CLI::App& app, GlobalOptions& g, Runner& run) {
  static CompareOptions o;
  auto* sub = app.add_subcommand(
      "compare", "Four-dimension scorecard (memory, interconnect, ecosystem, energy) plus cost for a workload");
  add_global_options(*sub, g);
  sub->add_option("--model", o.model, "Built-in model id or a Hugging Face config.json")->capture_default_str();
  sub->add_option("--workload", o.workload, "Preset: chat (sharegpt lengths, 300 users, TTFT 1 s, TPOT 50 ms)");
  sub->add_option("--rate", o.rate, "Requests per second");
  sub->add_option("--concurrency", o.concurrency, "Concurrent users (default 300)");
  sub->add_option("--input", o.input, "Prompt lengths (as plan infer)")->capture_default_str();
  sub->add_option("--output", o.output, "Output lengths (as plan infer)")->capture_default_str();
  sub->add_option("--sla", o.sla, "ttft_p99=S,tpot_p99=S[,e2e_p99=S]")->capture_default_str();
  sub->add_option("--gpus", o.gpus, "Only these accelerators (comma list)");
  sub->add_option("--vendors", o.vendors, "Only these vendors (comma list)");
  sub->add_flag("--domestic-only", o.domestic_only, "Only Huawei, Cambricon, Hygon");
  sub->add_option("--max-gpus", o.max_gpus, "At most this many devices per plan");
  sub->add_option("--pricing", o.pricing, "auto, cloud, owned")->capture_default_str();
  sub->add_option("--price-per-gpu-hour", o.price_per_gpu_hour, "Cloud $ per device-hour (all)");
  sub->add_option("--electricity", o.electricity, "$ per kWh");
  sub->add_option("--pue", o.pue, "Power usage effectiveness");
  sub->add_option("--life-years", o.life_years, "Amortisation life, years");
  sub->callback([&run, &g] { run = [&g] { return run_compare(o, g); }; });
}

}  // namespace memwall::cli
