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
#include "memwall/plan/compare_query.h"
#include "memwall/plan/scenario.h"
#include "memwall/plan/vendors.h"

namespace memwall::cli {
namespace {

struct CompareOptions {
  plan::CompareQuery query;
  bool explain = false;  // the ecosystem parts of every stack, item by item
  std::string scenario;  // chat | long-context | batch | training (plan/scenario.h)
  std::string fixed_option, fixed_value;  // an option the scenario preset fixes, given with it
  std::string workload;  // shorthand: "chat" = sharegpt lengths, 300 users, TTFT 1 s, TPOT 50 ms
  std::string gpus, vendors;
};

std::string score_cell(const score::Dimension& d) {
  return d.score ? fmt::format("{:.1f}", *d.score) : "unknown";
}

// "3.2/2.0/1.0": the coverage, operators and toolchain parts of the ecosystem score.
std::string parts_cell(const score::EcosystemScore& e) {
  return fmt::format("{:.1f}/{:.1f}/{:.1f}", e.coverage.points, e.operators.points, e.toolchain.points);
}

void print_ecosystem_parts(const score::EcosystemScore& e) {
  const int unknown = e.coverage.unknown + e.operators.unknown + e.toolchain.unknown;
  const int items = static_cast<int>(e.coverage.items.size() + e.operators.items.size() + e.toolchain.items.size());
  double porting = 0;
  for (const auto& i : e.toolchain.items)
    if (i.id == "porting") porting = i.points.value_or(0.0);
  fmt::print("    ecosystem parts: coverage {:.2f}/{:g}, operators {:.2f}/{:g}, toolchain {:.2f}/{:g} (porting {:.2f}/2){}\n",
             e.coverage.points, e.coverage.weight, e.operators.points, e.operators.weight, e.toolchain.points,
             e.toolchain.weight, porting,
             unknown ? fmt::format("; {} of {} items have no sourced fact (unknown, 0 points)", unknown, items) : "");
  fmt::print("    porting: {}\n", e.porting.sentence);
}

// --explain: each stack's parts item by item, once per stack (the rows that share its facts).
void print_ecosystem_explain(const plan::CompareAnswer& a) {
  const auto& rows = a.comparison.rows;
  std::vector<std::string> seen;
  fmt::print("\nEcosystem parts per stack, item by item (docs/compare.md \"Ecosystem\"):\n");
  for (size_t i : a.order) {
    const auto& e = rows[i].ecosystem_facts;
    const std::string key = rows[i].accelerator->vendor + "|" + e.stack;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    std::string ids;
    for (size_t j : a.order) {
      const auto& o = rows[j].ecosystem_facts;
      if (rows[j].accelerator->vendor + "|" + o.stack == key)
        ids += (ids.empty() ? "" : ", ") + rows[j].accelerator->id;
    }
    fmt::print("  stack {}: {}\n", e.stack.empty() ? rows[i].accelerator->vendor : e.stack, ids);
    fmt::print("    ecosystem: {}\n", e.score ? fmt::format("{:.2f}/10", *e.score) : std::string("unknown"));
    fmt::print("    porting: {}\n", e.porting.sentence);
    fmt::print("    {:<10} {:<18} {:>9}  {}\n", "PART", "ITEM", "POINTS", "FOUND (SOURCES IN --json)");
    for (const score::EcosystemPart* part : {&e.coverage, &e.operators, &e.toolchain})
      for (const auto& item : part->items)
        fmt::print("    {:<10} {:<18} {:>9}  {}\n", part->id, item.label,
                   item.points ? fmt::format("{:.2f}/{:g}", *item.points, item.weight) : fmt::format("?/{:g}", item.weight),
                   item.found);
  }
}

// --scenario: the preset's ranking with the wall that decides each row.
int run_scenario(const CompareOptions& o, const CommandCatalog& catalog, const cost::PriceBook& prices,
                 const score::EcosystemBook& ecosystem, const GlobalOptions& g) {
  const plan::ScenarioAnswer a = plan::answer_scenario(*catalog, prices, ecosystem, o.scenario, o.query);
  if (g.json) {
    std::cout << plan::to_json(a).dump(2) << "\n";
    return 0;
  }
  const auto& p = a.preset;
  if (p.training) {
    fmt::print("memwall compare --scenario {}: {} on {:g} tokens within {:g} days, at most {} devices\n", p.name,
               p.model, p.tokens, p.days, o.query.max_gpus.value_or(p.max_gpus));
  } else {
    fmt::print("memwall compare --scenario {}: {}, {:g} concurrent users, input {} / output {} tokens, SLA {}\n",
               p.name, p.model, p.concurrency, p.input, p.output, p.sla);
  }
  fmt::print("Scenario: {}.\n", p.why);
  fmt::print("{}", p.training ? "Ranked by the cost of the run (feasible first). WALL decides the row: ecosystem when the stack "
                          "is immature (below 6/10 or unknown), else the hardware's own wall (HW WALL: the largest share "
                          "of the training step); docs/compare.md \"Scenarios\".\n"
                        : "Ranked by $ per million tokens (feasible first). WALL decides the row: ecosystem when the stack "
                          "cannot run the formats or is immature (below 6/10 or unknown), else the hardware's own wall "
                          "(HW WALL: what binds the best plan); docs/compare.md \"Scenarios\".\n");
  fmt::print("\n{:<5} {:<24} {:<8} {:>10} {:>7} {:>7} {:<10} {:<17} {}\n", "RANK", "ACCELERATOR", "DOMESTIC",
             p.training ? "RUN $" : "$/M TOK", "DEVICES", "ECOSYS", "PORTING", "WALL", "HW WALL");
  int rank = 0;
  for (const auto& r : a.rows) {
    const std::optional<double> cost = p.training ? r.run_usd : r.usd_per_million_tokens;
    fmt::print("{:<5} {:<24} {:<8} {:>10} {:>7} {:>7} {:<10} {:<17} {}\n", ++rank, r.accelerator->id,
               r.domestic ? "yes" : "no",
               !r.feasible ? "-" : cost ? (p.training ? fmt::format("{:.0f}", *cost) : fmt::format("{:.3f}", *cost)) : "unknown",
               r.feasible ? std::to_string(r.devices) : "-", r.ecosystem ? fmt::format("{:.1f}", *r.ecosystem) : "unknown",
               score::to_string(r.porting), plan::to_string(r.wall), plan::to_string(r.hardware_wall));
  }
  fmt::print("\nWhat decides each row:\n");
  for (const auto& r : a.rows) fmt::print("  {}\n    wall: {}\n", r.accelerator->id, r.basis);
  return 0;
}

int run_compare(CompareOptions o, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  const cost::PriceBook prices = cost::PriceBook::with_user_files(g.catalog_files);
  const score::EcosystemBook ecosystem = score::EcosystemBook::with_user_files(g.catalog_files);
  if (!o.workload.empty() && o.workload != "chat") throw InputError::unknown_name("--workload", o.workload, {"chat"});
  o.query.gpus = split_list(o.gpus);
  o.query.vendors = split_list(o.vendors);
  if (!o.scenario.empty()) {
    plan::scenario_preset(o.scenario);  // a bad name exits 2 naming the allowed ones
    if (!o.fixed_option.empty())
      throw InputError(o.fixed_option, o.fixed_value,
                       "nothing with --scenario (the preset fixes the model, load, lengths and SLA; "
                       "docs/compare.md \"Scenarios\")");
    return run_scenario(o, catalog, prices, ecosystem, g);
  }
  const plan::CompareAnswer a = plan::answer_compare(*catalog, prices, ecosystem, o.query);
  if (g.json) {
    std::cout << plan::to_json(a).dump(2) << "\n";
    return 0;
  }
  const plan::Comparison& c = a.comparison;
  const plan::InferenceWorkload& w = a.workload;
  const ModelSpec& model = a.model;
  fmt::print("memwall compare: {} for {}, SLA TTFT p99 <= {:g} s, TPOT <= {:g} ms\n", model.id,
             w.load.concurrency ? fmt::format("{:g} concurrent users", *w.load.concurrency)
                                : fmt::format("{:g} requests/s", *w.load.rate_per_s),
             w.sla.ttft_p99.value(), w.sla.tpot_p99.value() * 1e3);
  fmt::print(
      "Needs (bf16 weights and KV): {:.1f} GB of memory, {:.2f} TB/s of bandwidth.\n"
      "Scores 0-10: memory = capacity + bandwidth sufficiency of one device; interconnect = "
      "5 x all-reduce efficiency at 8 devices + 5 x at 64 (LINK 8/64: 1 GiB all-reduce bus "
      "bandwidth there over the best inside one node, on the chip's largest node and ib-ndr; "
      "docs/compare.md); ecosystem = sourced software facts; energy and cost relative to the "
      "best row.\n"
      "ECOSYS = coverage (4) + operators (3) + toolchain with the CUDA porting path (3); PARTS "
      "shows the three, PORTING what CUDA kernels need (as_is, recompile, translate, rewrite; "
      "docs/compare.md \"Porting effort\").\n",
      c.requirements.capacity.value() / 1e9, c.requirements.bandwidth.value() / 1e12);
  fmt::print(
      "Precision: every row at weights {} / KV {} (a chip without bf16 runs the same 16-bit "
      "tensors as fp16; --precision, --kv-precision).\n",
      to_string(a.weights), to_string(a.kv));
  fmt::print("Quality: {} for every row; QUALITY = published recovery of the best plan's formats vs bf16 "
             "(docs/plan.md \"Model quality\").\n",
             a.quality.describe());
  for (const auto& why : a.removed_by_quality) fmt::print("  not searched: {}\n", why);
  fmt::print("\n{:<24} {:>6} {:>6} {:>9} {:>6} {:>11} {:>9} {:>6} {:>6}  {:<26}  {}\n", "ACCELERATOR",
             "MEMORY", "INTERC", "LINK 8/64", "ECOSYS", "PARTS", "PORTING", "ENERGY", "COST", "QUALITY",
             "BEST PLAN / FLAGS");
  for (size_t i : a.order) {
    const auto& r = c.rows[i];
    const auto& e = r.evidence;
    const std::string links = e.link_efficiency_8 && e.link_efficiency_64
                                  ? fmt::format("{:.0f}/{:.0f} %", 100 * *e.link_efficiency_8,
                                                100 * *e.link_efficiency_64)
                                  : "unknown";
    fmt::print("{:<24} {:>6} {:>6} {:>9} {:>6} {:>11} {:>9} {:>6} {:>6}  {:<26}  {}\n", r.accelerator->id,
               score_cell(r.memory), score_cell(r.interconnect), links, score_cell(r.ecosystem),
               parts_cell(r.ecosystem_facts), score::to_string(r.ecosystem_facts.porting.effort),
               score_cell(r.energy), score_cell(r.cost),
               a.row_quality[i] ? a.row_quality[i]->cell() : "-",
               r.evidence.feasible ? r.evidence.plan_summary
                                   : fmt::format("{}", fmt::join(r.flags, "; ")));
  }
  fmt::print("\nThe numbers behind each score:\n");
  for (size_t i : a.order) {
    const auto& r = c.rows[i];
    fmt::print("  {}\n    memory: {}\n    interconnect: {}\n    ecosystem: {}\n", r.accelerator->id,
               r.memory.basis, r.interconnect.basis, r.ecosystem.basis);
    print_ecosystem_parts(r.ecosystem_facts);
    fmt::print("    energy: {}\n    cost: {}\n", r.energy.basis, r.cost.basis);
    if (!r.flags.empty()) fmt::print("    flags: {}\n", fmt::join(r.flags, "; "));
  }
  if (o.explain) print_ecosystem_explain(a);
  return 0;
}

}  // namespace

void register_compare(CLI::App& app, GlobalOptions& g, Runner& run) {
  static CompareOptions o;
  auto* sub = app.add_subcommand(
      "compare", "Four-dimension scorecard (memory, interconnect, ecosystem, energy) plus cost for a workload");
  add_global_options(*sub, g);
  sub->add_option("--model", o.query.model, "Built-in model id or a Hugging Face config.json")->capture_default_str();
  sub->add_option("--workload", o.workload, "Preset: chat (sharegpt lengths, 300 users, TTFT 1 s, TPOT 50 ms)");
  sub->add_option("--rate", o.query.rate, "Requests per second");
  sub->add_option("--concurrency", o.query.concurrency, "Concurrent users (default 300)");
  sub->add_option("--input", o.query.input, "Prompt lengths (as plan infer)")->capture_default_str();
  sub->add_option("--output", o.query.output, "Output lengths (as plan infer)")->capture_default_str();
  sub->add_option("--sla", o.query.sla, "ttft_p99=S,tpot_p99=S[,e2e_p99=S]")->capture_default_str();
  sub->add_option("--calibration", o.query.calibration,
                  "Calibration profile every chip's plans are timed with (memwall calibrate --out)")
      ->check(CLI::ExistingFile);
  sub->add_option("--gpus", o.gpus, "Only these accelerators (comma list)")
      ->check(non_empty_list("accelerator ids or aliases"));
  sub->add_option("--vendors", o.vendors, "Only these vendors (comma list)")
      ->check(non_empty_list("vendor names"));
  sub->add_flag("--domestic-only", o.query.domestic_only, "Only Chinese domestic accelerators (" + plan::domestic_vendor_names() + ")");
  sub->add_option("--max-gpus", o.query.max_gpus, "At most this many devices per plan");
  sub->add_option("--pricing", o.query.pricing, "owned or cloud, one basis for every row")->capture_default_str();
  sub->add_option("--price-per-gpu-hour", o.query.price_per_gpu_hour, "Cloud $ per device-hour (all; with --pricing cloud)");
  sub->add_option("--electricity", o.query.electricity, "$ per kWh");
  sub->add_option("--pue", o.query.pue, "Power usage effectiveness");
  sub->add_option("--life-years", o.query.life_years, "Amortisation life, years");
  sub->add_option("--precision", o.query.precision,
                  "Weight precision of every row (bf16, fp16, fp8, int8, int4, fp4); a chip that "
                  "cannot run it "
                  "is shown infeasible with the reason")
      ->capture_default_str();
  sub->add_option("--kv-precision", o.query.kv_precision,
                  "KV-cache precision of every row (bf16, fp16, fp8)")
      ->capture_default_str();
  add_quality_options(sub, o.query.quality, o.query.min_recovery);
  sub->add_flag("--explain", o.explain,
                "Also list each stack's ecosystem parts item by item: coverage (framework, serving, "
                "vendor engine, kernel compiler), operators (attention, MoE grouped GEMM, FP8 GEMM), "
                "toolchain (profiler, debugger, CUDA porting path) and the porting verdict");
  sub->add_option("--scenario", o.scenario,
                  "Rank the accelerators for a workload preset with the wall that decides each: chat, "
                  "long-context, batch or training (docs/compare.md \"Scenarios\"); the preset fixes the "
                  "model, load, lengths and SLA (or tokens and deadline)");
  sub->callback([&run, &g, sub] {
    for (const char* fixed : {"--model", "--workload", "--rate", "--concurrency", "--input", "--output", "--sla"})
      if (o.fixed_option.empty() && sub->get_option(fixed)->count() > 0) {
        o.fixed_option = fixed;
        o.fixed_value = sub->get_option(fixed)->as<std::string>();
      }
    run = [&g] { return run_compare(o, g); };
  });
}

}  // namespace memwall::cli
