// memwall plan: from the workload backwards to hardware. `plan infer` derives the capacity and
// bandwidth the load needs, then searches accelerator x node x parallelism x precision x batch x
// replicas for the plans that meet the SLA, ranked by the objective; `plan train` does the same
// for a training run. `memwall plan` alone runs the default scenario (README): Qwen2.5-72B for
// 300 concurrent chat users at TTFT p99 <= 1 s and TPOT <= 50 ms, ranked by $ per million tokens.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/cost/prices.h"
#include "memwall/deploy/emit.h"
#include "memwall/offload/placement.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/fleet.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/intervals.h"
#include "memwall/plan/plan_json.h"
#include "memwall/plan/quality_filter.h"
#include "memwall/plan/query.h"
#include "memwall/plan/rejections.h"
#include "memwall/plan/train_offload_plans.h"
#include "memwall/plan/train_search.h"
#include "memwall/plan/verify.h"
#include "memwall/train/config.h"

namespace memwall::cli {
namespace {

struct PlanInferOptions {
  std::string model = "qwen2.5-72b";
  std::string calibration;  // a calibration profile (memwall calibrate / probe); "": built-in
  std::optional<double> rate;
  std::optional<double> concurrency;
  std::string input = "sharegpt", output = "sharegpt";
  std::string sla = "ttft_p99=1,tpot_p99=0.05";
  std::optional<double> budget, power_cap_kw;
  std::string vendors;
  bool domestic_only = false;
  std::optional<int> max_gpus;
  std::string objective = "cost";
  int top = 10;
  std::string gpus;                       // restrict to these accelerators (comma list)
  std::string weight_precisions = "bf16,fp8,int4";
  std::string kv_precisions = "bf16,fp8";
  std::string fabric = "ib-ndr";
  std::string serving = "both";  // aggregated, disaggregated, both
  std::string pricing = "owned";
  std::optional<double> price_per_gpu_hour, capex, electricity, pue, life_years, hosting,
      idle_power_fraction;
  double tco_years = 3;
  std::optional<double> min_ecosystem;
  bool risk_averse = false;
  std::string engine;
  int verify = 0;  // re-check this many top plans in the serving simulator
  double confidence = 0;  // 0: off
  int64_t verify_requests = 0;  // 0: 100 per closed-loop user (10,000 to 300,000), else 20,000
  std::string quality = "near-lossless";  // lossless | near-lossless | any (docs/plan.md "Model quality")
  std::optional<double> min_recovery;
  deploy::EmitRequest emit;  // --emit / --benchmark (docs/plan.md "From plan to deployment")
  std::string out_dir;       // --out: write the emitted files there instead of printing them
};



std::string money(std::optional<double> v, int digits = 2) {
  return v ? fmt::format("{:.{}f}", *v, digits) : "unknown";
}

template <class Q>
std::optional<double> value_of(const std::optional<Q>& q) {
  return q ? std::optional<double>(q->value()) : std::nullopt;
}

void add_cost_options(CLI::App* sub, PlanInferOptions& o) {
  sub->add_option("--pricing", o.pricing,
                  "owned (card + host + network + power x PUE + hosting) or cloud (rental); one "
                  "basis for every row, unknown where a row has no figure on it")
      ->capture_default_str();
  sub->add_option("--price-per-gpu-hour", o.price_per_gpu_hour, "Cloud $ per device-hour (all candidates; with --pricing cloud)");
  sub->add_option("--capex", o.capex, "Purchase $ per device (all candidates)");
  sub->add_option("--electricity", o.electricity, "$ per kWh (default: data/prices/facility.json)");
  sub->add_option("--pue", o.pue, "Power usage effectiveness (>= 1)");
  sub->add_option("--life-years", o.life_years, "Amortisation life of owned hardware, years");
  sub->add_option("--hosting-per-kw-month", o.hosting, "Colocation $ per provisioned kW per month");
  sub->add_option("--idle-power-fraction", o.idle_power_fraction, "Board power at zero activity / TDP");
  sub->add_option("--tco-years", o.tco_years, "Horizon of the reported total cost of ownership")
      ->capture_default_str();
}

cost::CostOverrides overrides_from(const PlanInferOptions& o) {
  cost::CostOverrides c;
  c.basis = cost::parse_pricing_basis(o.pricing);
  c.price_per_gpu_hour = o.price_per_gpu_hour;
  c.capex_usd = o.capex;
  c.electricity_usd_per_kwh = o.electricity;
  c.pue = o.pue;
  c.life_years = o.life_years;
  c.hosting_usd_per_kw_month = o.hosting;
  c.idle_power_fraction = o.idle_power_fraction;
  c.tco_years = o.tco_years;
  c.validate();
  return c;
}

void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t c = 0; c < r.size(); ++c) out += c + 1 == r.size() ? r[c] : fmt::format("{:<{}}  ", r[c], width[c]);
    fmt::print("{}\n", out);
  };
  line(header);
  for (const auto& r : rows) line(r);
}

// "-" for aggregated serving, else the prefill pool in a few words.
std::string prefill_cell(const plan::Plan& p) {
  if (!p.prefill) return "-";
  const auto& f = *p.prefill;
  return fmt::format("{} x [{}x {} TP{}]", f.replicas, f.shape.devices(), f.shape.accelerator->id, f.shape.tp);
}


// The catalog (built-in or with --catalog files) and the answer computed over it.
struct Prepared {
  std::unique_ptr<const CommandCatalog> catalog;
  std::unique_ptr<const plan::InferenceAnswer> answer;
};

plan::InferenceQuery query_from(const PlanInferOptions& o) {
  plan::InferenceQuery q;
  q.model = o.model;
  q.rate = o.rate;
  q.concurrency = o.concurrency;
  q.input = o.input;
  q.output = o.output;
  q.sla = o.sla;
  q.budget_usd = o.budget;
  q.power_cap_kw = o.power_cap_kw;
  q.max_gpus = o.max_gpus;
  q.vendors = split_list(o.vendors);
  q.gpus = split_list(o.gpus);
  q.domestic_only = o.domestic_only;
  q.weight_precisions = split_list(o.weight_precisions);
  q.kv_precisions = split_list(o.kv_precisions);
  q.fabric = o.fabric;
  q.serving = o.serving;
  q.objective = o.objective;
  q.cost = overrides_from(o);
  q.top = o.top;
  q.verify = o.verify;
  q.verify_requests = o.verify_requests;
  q.min_ecosystem = o.min_ecosystem;
  q.risk_averse = o.risk_averse;
  q.engine = o.engine;
  if (o.confidence > 0) q.confidence = o.confidence;
  q.quality = o.quality;
  q.min_recovery = o.min_recovery;
  if (!o.calibration.empty()) q.calibration = o.calibration;
  return q;
}

void prepare(const PlanInferOptions& o, const GlobalOptions& g, Prepared& p) {
  p.catalog = std::make_unique<const CommandCatalog>(g);
  plan::InferenceQuery q = query_from(o);
  q.catalog_files = g.catalog_files;
  p.answer = plan::answer_inference(**p.catalog, cost::PriceBook::with_user_files(g.catalog_files), q);
}

void print_requirements(const plan::InferenceAnswer& p) {
  const auto& w = p.workload;
  fmt::print("memwall plan infer: {} for {}, prompts {} (mean {:.0f}, p99 {:.0f} tokens), outputs {} "
             "(mean {:.0f}, p99 {:.0f})\n",
             p.model.id,
             w.load.concurrency ? fmt::format("{:g} concurrent users", *w.load.concurrency)
                                : fmt::format("{:g} requests/s", *w.load.rate_per_s),
             w.input.description, w.input.mean, w.input.p99, w.output.description, w.output.mean,
             w.output.p99);
  fmt::print("SLA: TTFT p99 <= {:g} s, TPOT <= {:g} ms ({:.0f} tokens/s per user){}\n\n",
             w.sla.ttft_p99.value(), w.sla.tpot_p99.value() * 1e3, 1.0 / w.sla.tpot_p99.value(),
             w.sla.e2e_p99 ? fmt::format(", e2e p99 <= {:g} s", w.sla.e2e_p99->value()) : "");
  fmt::print("1. What the workload needs, before any hardware is named\n");
  std::vector<std::vector<std::string>> rows;
  for (Precision wp : p.space.weight_precisions) {
    const Precision kp = p.space.kv_precisions.front();
    const plan::Requirements r = plan::derive_requirements(p.model, w, wp, kp);
    rows.push_back({fmt::format("{} / {}", to_string(wp), to_string(kp)),
                    fmt::format("{:.1f}", r.weights.value() / 1e9), fmt::format("{:.1f}", r.kv_cache.value() / 1e9),
                    fmt::format("{:.1f}", r.capacity.value() / 1e9),
                    fmt::format("{:.2f}", r.bandwidth.value() / 1e12),
                    fmt::format("{:.0f}", r.decode_compute.value() / 1e12),
                    fmt::format("{:.0f}", r.ttft_compute.value() / 1e12)});
  }
  print_table({"WEIGHTS/KV", "WEIGHTS GB", "KV GB", "CAPACITY GB", "BANDWIDTH TB/s",
               "DECODE TFLOP/s", "TTFT TFLOP/s"}, rows);
  const plan::Requirements r = p.space.weight_precisions.empty()
                                   ? plan::Requirements{}
                                   : plan::derive_requirements(p.model, w, p.space.weight_precisions.front(), p.space.kv_precisions.front());
  fmt::print("  {:.1f} B parameters ({:.1f} B active); {:.0f} sequences in flight x {:.0f} tokens of "
             "mean context x {:.0f} KB of KV per token; {:.0f} generated tokens/s in total.\n",
             r.total_params / 1e9, r.active_params / 1e9, r.concurrency, r.mean_context_tokens,
             r.kv_bytes_per_token.value() / 1e3, r.generated_tokens_per_s);
  fmt::print("  Bandwidth = (weights + KV) read once per decode step within the TPOT target; "
             "TTFT compute = one p99 prompt within the TTFT target.\n\n");
}


// Exit 3 (nothing can run it) unless an all-GPU plan or an offload plan meets the SLA.
bool offload_meets_sla(const plan::InferenceAnswer& p) {
  return std::any_of(p.offload_plans.begin(), p.offload_plans.end(),
                     [](const plan::OffloadPlan& x) { return x.meets_sla; });
}

// One GPU with the model partly in host memory (docs/offload.md), beside the all-GPU plans.
void print_offload_plans(const plan::InferenceAnswer& p) {
  if (p.offload_plans.empty()) return;
  fmt::print("\nOffload plans: one GPU, the rest of the model in host memory, priced with the host "
             "(docs/cost.md \"Host prices\")\n");
  std::vector<std::vector<std::string>> rows;
  for (const auto& pl : p.offload_plans) {
    const auto& e = pl.estimate;
    rows.push_back({pl.gpu, std::string(to_string(pl.weight)), offload::to_string(e.placement.strategy),
                    fmt::format("{}x{} {:.0f} GiB", pl.host.host.sockets, pl.host.host.id,
                                pl.host.memory.value() / kGiB),
                    fmt::format("{}", pl.batch), fmt::format("{:.2f}", e.infer.ttft.value()),
                    fmt::format("{:.1f}", e.infer.tpot.value() * 1e3),
                    fmt::format("{:.1f}", pl.generated_tokens_per_s),
                    money(pl.total.usd_per_million_tokens, 3), money(value_of(pl.total.per_hour)),
                    money(pl.cost.usd_per_million_tokens, 3), money(value_of(pl.host_cost.hour.capex), 0),
                    std::string(pl.meets_sla ? "yes" : "no"), e.decode.bound});
  }
  print_table({"ACCELERATOR", "W", "OFFLOAD", "HOST", "BATCH", "TTFT s", "TPOT ms", "TOK/S", "$/M TOK",
               "$/HOUR", "$/M TOK (GPU)", "HOST $", "SLA", "BOUND"},
              rows);
  const auto& first = p.offload_plans.front();
  fmt::print("  $/M TOK and $/HOUR: the GPU and its host, both owned (capex over the life + energy +\n"
             "  hosting); $/M TOK (GPU): the GPU alone. HOST $ = the host's purchase price.\n");
  fmt::print("  The host price covers {}.\n  Not included: {}.\n", fmt::join(first.host_cost.covers, ", "),
             fmt::join(first.host_cost.excluded, "; "));
  for (const auto& pl : p.offload_plans)
    if (!pl.host_cost.priced())
      fmt::print("  {}: host price unknown ({}), so its total is unknown\n", pl.gpu,
                 fmt::join(pl.host_cost.hour.unknown, ", "));
  fmt::print("  {}\n", first.binding);
}

// The quality policy and what it took out of the search (docs/plan.md "Model quality").
void print_quality_policy(const quality::QualityPolicy& policy, const std::vector<std::string>& removed) {
  fmt::print("  Quality: {}; QUALITY = published recovery of the plan's formats vs bf16, worst benchmark "
             "recorded (data/quality; unknown! = no published evaluation for this model).\n",
             policy.describe());
  for (const auto& why : removed) fmt::print("    not searched: {}\n", why);
}

// --emit / --benchmark: the chosen plan's files, printed or written under --out.
int print_emitted(const plan::InferenceAnswer& p, const PlanInferOptions& o) {
  for (const auto& f : deploy::emit_plan(p, o.emit)) {
    if (o.out_dir.empty()) {
      fmt::print("==> {} <==\n{}\n", f.name, f.text);
      continue;
    }
    std::filesystem::create_directories(o.out_dir);
    const std::string path = (std::filesystem::path(o.out_dir) / f.name).string();
    std::ofstream file(path);
    file << f.text;
    if (!file) throw InputError("--out", o.out_dir, "a folder memwall can write");
    fmt::print("{}\n", path);
  }
  return 0;
}

int run_plan_infer(const PlanInferOptions& o, const GlobalOptions& g) {
  o.emit.validate();
  if (!o.out_dir.empty() && !o.emit.emit && !o.emit.benchmark)
    throw InputError("--out", o.out_dir, "only with --emit or --benchmark");
  Prepared prepared;
  prepare(o, g, prepared);
  const plan::InferenceAnswer& p = *prepared.answer;
  if (o.emit.emit || o.emit.benchmark) return print_emitted(p, o);
  const plan::InferenceSearchResult& r = p.result;
  const int top = p.top;
  const std::vector<plan::Verification>& checks = p.checks;
  const int64_t requests = p.verify_requests;
  const double seconds = p.search_seconds;
  if (g.json) {
    std::cout << plan::to_json(p).dump(2) << "\n";
    return r.plans.empty() && !offload_meets_sla(p) ? kExitInfeasible : 0;
  }

  print_requirements(p);
  const auto disaggregated = std::count_if(r.plans.begin(), r.plans.end(),
                                           [](const plan::Plan& x) { return x.disaggregated(); });
  fmt::print("2. Plans that meet the SLA, ranked by {} ({} feasible: {} aggregated, {} disaggregated, "
             "from {} replica shapes; {} operating points and {} prefill/decode pool pairs evaluated in "
             "{:.2f} s)\n",
             p.options.objective == plan::Objective::cost ? "$ per million generated tokens"
                                                          : plan::to_string(p.options.objective),
             r.plans.size(), static_cast<long>(r.plans.size()) - disaggregated, disaggregated, r.shapes,
             r.configurations, r.pool_pairs, seconds);
  fmt::print("  {}\n", cost::boundary_text(p.options.cost.basis));
  if (p.confidence)
    fmt::print("  --confidence {:g}: {} plan(s) removed whose SLA fails at the pessimistic end of their "
               "{:g} % interval\n",
               *p.confidence, p.removed_by_confidence, *p.confidence * 100);
  print_quality_policy(p.quality, p.removed_by_quality);
  if (r.plans.empty()) {
    fmt::print("  none. Why each accelerator fails (the reason of its closest candidate):\n");
    for (const auto& [id, why] : plan::binding_rejections(r.rejected))
      fmt::print("  {}: {}\n", id, i18n::localize(why, g.output_lang));
    print_offload_plans(p);
    return offload_meets_sla(p) ? 0 : kExitInfeasible;
  }
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < top; ++i) {
    const auto& pl = r.plans[i];
    const auto& c = pl.cost;
    const Json iv = plan::intervals_json(pl, p.efficiency.get());
    rows.push_back({fmt::format("{}{}", i + 1, pl.near_tie ? "~" : ""), pl.shape.accelerator->id,
                    !pl.shape.node               ? std::string("-")
                    : pl.shape.node->unit == "rack" ? pl.shape.node->id + " [rack]"
                                                    : pl.shape.node->id,
                    fmt::format("{}x{}{}", pl.shape.tp, pl.shape.pp, pl.shape.ep > 1 ? fmt::format(" EP{}", pl.shape.ep) : ""),
                    fmt::format("{}/{}", to_string(pl.shape.weights), to_string(pl.shape.kv)),
                    p.plan_quality[static_cast<size_t>(i)].cell(), fmt::format("{}", pl.point.batch), fmt::format("{}", pl.replicas), fmt::format("{}", pl.devices),
                    fmt::format("{:.2f} {}", pl.point.ttft_p99.value(), uncertainty::range_text(iv["ttft_p99_s"], 1, 2)),
                    fmt::format("{:.1f} {}", pl.point.tpot.value() * 1e3, uncertainty::range_text(iv["tpot_s"], 1e3, 1)),
                    fmt::format("{:.0f}", pl.generated_tokens_per_s), money(c.usd_per_million_tokens, 3),
                    money(value_of(c.per_hour)), money(value_of(c.tco), 0),
                    c.facility_power ? fmt::format("{:.1f}", c.facility_power->value() / 1e3) : "unknown",
                    c.tokens_per_joule ? fmt::format("{:.2f}", *c.tokens_per_joule) : "unknown",
                    cost::to_string(c.device.basis),
                    pl.software.engine.empty() ? "?" : pl.software.engine,
                    pl.software.ecosystem ? fmt::format("{:.1f}", *pl.software.ecosystem) : "?",
                    pl.software.risks.empty() ? (pl.software.efficiency_calibrated ? "-" : "uncal")
                                              : fmt::format("FLAG{}", pl.software.efficiency_calibrated ? "" : "+uncal"),
                    prefill_cell(pl)});
  }
  print_table({"#", "ACCELERATOR", "NODE", "TPxPP", "W/KV", "QUALITY", "BATCH", "REPL", "DEVICES", "TTFT99 s",
               "TPOT ms", "TOK/S", "$/M TOK", "$/HOUR", fmt::format("TCO {:g}y $", o.tco_years), "kW", "TOK/J",
               "PRICING", "ENGINE", "ECO", "RISK", "PREFILL POOL"},
              rows);
  fmt::print("  ECO = ecosystem score 0-10 (docs/compare.md); RISK: FLAG = immature stack or unknown support\n"
             "  (listed below; --risk-averse drops them), uncal = efficiencies from the vendor's conservative\n"
             "  prior, not measured on this family. DEVICES counts devices in use; owned plans buy "
             "whole servers,\n"
             "  and a [rack] NODE (a rack-scale system sold as one) whole racks: its $ and kW are the "
             "rack's.\n");
  fmt::print("  (low-high) = 80 % interval of the estimate (memwall validate's errors; docs/validate.md).\n");
  // A calibration's stacks: their rows carry the calibrated interval (plan/intervals.h).
  if (p.efficiency)
    for (const auto& e : p.efficiency->engines)
      if (e.calibrated_spread)
        fmt::print("  Rows on {} on {} carry the interval of your calibration records instead (docs/calibrate.md \"Intervals\").\n",
                   e.key(), fmt::join(e.calibrated_spread->accelerators, ", "));
  fmt::print("  ~ = within 2% of the plan above (a near-tie). BATCH = sequences in flight per replica.\n"
             "  PREFILL POOL: '-' = aggregated (prompts and decodes share each replica); otherwise the\n"
             "  separate prefill replicas of a disaggregated plan (ACCELERATOR ... REPL are then its decode\n"
             "  pool; DEVICES and costs count both pools).\n\n");
  fmt::print("3. The wall each plan stands against, and its software risk\n");
  for (int i = 0; i < top; ++i) {
    const auto& pl = r.plans[i];
    fmt::print("  {}. {}: {}\n", i + 1, i18n::localize(pl.describe(), g.output_lang),
               i18n::localize(pl.binding, g.output_lang));
    for (const auto& risk : pl.software.risks) fmt::print("     risk: {}\n", risk);
    if (!pl.software.efficiency_calibrated)
      fmt::print("     uncalibrated: {}\n", pl.software.efficiency_source);
  }
  fmt::print("\n   Why plan 1:\n");
  for (const auto& line : plan::explain_first(r)) fmt::print("   {}\n", line);
  if (!checks.empty()) {
    fmt::print("\n   Re-checked in the serving simulator ({} requests each, same step times):\n", requests);
    for (size_t i = 0; i < checks.size(); ++i) {
      const auto& s = checks[i].simulated;
      fmt::print("  {}. {}: simulated TTFT p99 {:.2f} s (analytic {:.2f}), TPOT p99 {:.1f} ms (analytic {:.1f}), "
                 "{:.0f} tok/s, SLA attainment {:.0f}%{}\n",
                 i + 1, checks[i].meets_sla ? "meets the SLA" : "MISSES the SLA", s.ttft.p99,
                 r.plans[i].point.ttft_p99.value(), s.tpot.p99 * 1e3, r.plans[i].point.tpot.value() * 1e3,
                 s.throughput_tokens_per_s, 100 * s.sla_attainment,
                 s.preemptions_recompute + s.preemptions_swap > 0
                     ? fmt::format(", {} preemptions", s.preemptions_recompute + s.preemptions_swap)
                     : "");
    }
  }
  print_offload_plans(p);
  fmt::print("\n4. Pareto frontiers\n  tokens/s per device vs tokens/s per user ({} of {} points):\n",
             r.throughput_front.size(), r.throughput_points.size());
  const size_t shown = std::min<size_t>(r.throughput_front.size(), 12);
  for (size_t k = 0; k < shown; ++k) {
    const size_t i = r.throughput_front[r.throughput_front.size() * k / shown];
    fmt::print("    {:8.1f} tok/s/device  {:6.1f} tok/s/user  {}\n", r.throughput_points[i].x,
               r.throughput_points[i].y, r.throughput_labels[i]);
  }
  fmt::print("  $ per million tokens vs mean end-to-end latency ({} plans):\n", r.cost_latency_front.size());
  for (size_t k = 0; k < std::min<size_t>(r.cost_latency_front.size(), 12); ++k) {
    const auto& pl = r.plans[r.cost_latency_front[k]];
    fmt::print("    ${:8.3f}/M  e2e {:6.2f} s  {}\n", *pl.cost.usd_per_million_tokens, pl.point.e2e_mean.value(),
               pl.prefill ? pl.describe() : fmt::format("{} x {} replicas", pl.shape.describe(), pl.replicas));
  }
  fmt::print("\n5. Accelerators with no feasible plan (the reason of the candidate that came closest)\n");
  std::map<std::string, bool> feasible;
  for (const auto& pl : r.plans) feasible[pl.shape.accelerator->id] = true;
  for (const auto& [id, why] : plan::binding_rejections(r.rejected)) {
    if (!feasible.count(id)) fmt::print("  {}: {}\n", id, i18n::localize(why, g.output_lang));
  }
  const auto& best = r.plans.front();
  if (!best.cost.device.unknown.empty() || !best.cost.device.sources.empty()) {
    fmt::print("\nPrices used for plan 1: {}\n", fmt::join(best.cost.device.sources, "; "));
  }
  fmt::print("\nAssumptions: steady-state analytic model (aggregated: continuous batching, prefill "
             "time-shared with decode, M/M/1 prefill queue; disaggregated: one prompt at a time per "
             "prefill replica in an M/M/1 queue, KV moved over --fabric, decode-only replicas); power = GPU board power at the modelled activity x PUE "
             "(with the host's share when the node is known: node wall power, or TDP + host power; sources per "
             "plan); owned = whole servers bought (devices + host platform + one switch port and optics per NIC, "
             "or the server's own price) / life + energy + colocation per provisioned kW.\n{}\n",
             plan::kPlanDefinitions);
  return 0;
}

struct PlanTrainOptions {
  std::string model = "llama-3.1-70b";
  std::string tokens = "2T";
  double days = 30;
  std::optional<double> budget;
  int64_t seq = 4096;
  std::optional<double> batch_tokens;  // not given: plan::TrainGoal's default, stated
  int max_gpus = 4096;
  std::string gpus, vendors;
  bool domestic_only = false;
  std::string fabric = "ib-ndr", cheaper_fabric = "roce-200";
  int top = 10;
  std::optional<double> min_ecosystem;
  bool risk_averse = false;
  std::string precision = "bf16,fp8";  // matmul precisions searched
  std::string quality = "near-lossless";
  std::optional<double> min_recovery;
  PlanInferOptions cost;  // only the cost fields are used
};

// --precision of plan train: bf16, fp16, fp8 (the training estimator's precisions).
std::vector<Precision> training_precisions(const std::string& list) {
  std::vector<Precision> out;
  for (const auto& name : split_list(list)) {
    if (name != "bf16" && name != "fp16" && name != "fp8")
      throw InputError("--precision", name, "bf16, fp16, fp8 (a comma list)");
    out.push_back(parse_precision_or_throw(name, "--precision"));
  }
  if (out.empty()) throw InputError("--precision", "(empty)", "bf16, fp16, fp8 (a comma list)");
  return out;
}

int run_plan_train(const PlanTrainOptions& o, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  const cost::PriceBook prices = cost::PriceBook::with_user_files(g.catalog_files);
  const ModelSpec model = catalog->model(o.model);
  plan::TrainGoal goal;
  goal.tokens = plan::parse_token_count(o.tokens);
  goal.days = o.days;
  goal.budget_usd = o.budget;
  goal.seq = o.seq;
  const bool batch_given = o.batch_tokens.has_value();
  if (o.batch_tokens) goal.batch_tokens = *o.batch_tokens;
  goal.max_gpus = o.max_gpus;
  goal.validate();
  if (o.top < 1 || o.top > 10000) throw InputError("--top", std::to_string(o.top), "1 to 10000");
  plan::TrainSpace space;
  if (o.gpus.empty()) {
    for (const auto& a : catalog->accelerators()) space.accelerators.push_back(&a);
  } else {
    for (const auto& name : split_list(o.gpus)) space.accelerators.push_back(&catalog->accelerator(name));
  }
  for (const auto& n : catalog->nodes()) space.nodes.push_back(&n);
  const Fabric& fabric = catalog->fabric(o.fabric);
  space.fabric = &fabric;
  const Fabric* cheaper = o.cheaper_fabric.empty() ? nullptr : &catalog->fabric(o.cheaper_fabric);
  space.cheaper_fabric = cheaper;
  space.vendors = split_list(o.vendors);
  space.domestic_only = o.domestic_only;
  if (o.min_ecosystem && !(*o.min_ecosystem >= 0 && *o.min_ecosystem <= 10))
    throw InputError("--min-ecosystem", std::to_string(*o.min_ecosystem), "a score from 0 to 10");
  space.min_ecosystem = o.min_ecosystem;
  space.risk_averse = o.risk_averse;
  const score::EcosystemBook ecosystem = score::EcosystemBook::with_user_files(g.catalog_files);
  space.ecosystem = &ecosystem;
  space.precisions = training_precisions(o.precision);
  const quality::QualityPolicy quality_policy = quality::parse_quality_policy(o.quality, o.min_recovery);
  const quality::QualityTable& quality_table = quality::QualityTable::builtin();
  const std::vector<std::string> removed_by_quality =
      plan::apply_training_quality(model, quality_policy, quality_table, space.precisions, space.fp8_recipes);
  const cost::CostOverrides overrides = overrides_from(o.cost);

  const auto start = std::chrono::steady_clock::now();
  const plan::TrainSearchResult r = plan::search_training(model, goal, space, overrides, prices);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // No all-GPU run meets the goal: the offload configurations (ZeRO-Offload / ZeRO-Infinity).
  const std::vector<plan::TrainOffloadPlan> offload_plans =
      r.plans.empty() ? plan::search_training_offload(*catalog, model, goal, space, overrides, prices, o.top)
                      : std::vector<plan::TrainOffloadPlan>{};
  const bool offload_meets = std::any_of(offload_plans.begin(), offload_plans.end(),
                                         [](const plan::TrainOffloadPlan& p) { return p.meets_deadline; });
  const int top = std::min<int>(o.top, static_cast<int>(r.plans.size()));
  auto quality_of = [&](const plan::TrainPlan& p) {
    return quality::training_quality(quality_table, model.id, p.config.precision, p.config.fp8_recipe);
  };
  auto cfg = [](const train::TrainConfig& c) {
    const bool fp8 = c.precision != Precision::bf16 && c.precision != Precision::fp16;
    return fmt::format("TP{} PP{}{} CP{} DP{}{} mb{} gb{} {}{} recompute={} ZeRO-{} schedule={}", c.tp,
                       c.pp, c.vpp > 1 ? fmt::format(" vpp{}", c.vpp) : "", c.cp, c.data_parallel(),
                       c.ep > 1 ? fmt::format(" EP{}", c.ep) : "", c.micro_batch, c.global_batch,
                       to_string(c.precision),
                       fp8 ? fmt::format(" ({})", to_string(c.fp8_recipe)) : std::string(),
                       train::to_string(c.recompute), c.zero, train::to_string(c.schedule));
  };
  if (g.json) {
    Json plans = Json::array();
    for (int i = 0; i < top; ++i) {
      const auto& p = r.plans[i];
      const auto& c = p.config;
      plans.push_back({{"accelerator", p.accelerator->id}, {"node", p.node->id}, {"gpus", c.gpus},
                       {"tp", c.tp}, {"pp", c.pp}, {"vpp", c.vpp}, {"cp", c.cp}, {"dp", c.data_parallel()},
                       {"ep", c.ep}, {"micro_batch", c.micro_batch}, {"global_batch", c.global_batch},
                       {"seq", c.seq}, {"precision", std::string(to_string(c.precision))},
                       {"recompute", std::string(train::to_string(c.recompute))}, {"zero", c.zero},
                       {"sequence_parallel", c.sequence_parallel},
                       {"schedule", std::string(train::to_string(c.schedule))},
                       {"fp8_recipe", std::string(to_string(c.fp8_recipe))}, {"mfu", p.mfu},
                       {"tokens_per_s", p.tokens_per_s}, {"days", p.days}, {"gpu_hours", p.gpu_hours},
                       {"energy_kwh", p.energy_kwh ? Json(*p.energy_kwh) : Json(nullptr)},
                       {"cost_usd", p.cost_usd ? Json(*p.cost_usd) : Json(nullptr)},
                       {"pricing_basis", cost::to_string(p.device.basis)},
                       {"memory_per_gpu_bytes", p.memory_per_gpu.value()}, {"network", p.network},
                       {"cheaper_network", cheaper ? Json(cheaper->id) : Json(nullptr)},
                       {"cheaper_network_days", p.cheaper_network_days ? Json(*p.cheaper_network_days) : Json(nullptr)},
                       {"near_tie", p.near_tie}, {"unknown", p.device.unknown},
                       {"servers", p.servers}, {"energy_usd", p.energy_usd ? Json(*p.energy_usd) : Json(nullptr)},
                       {"tokens_per_joule", p.tokens_per_joule ? Json(*p.tokens_per_joule) : Json(nullptr)},
                       {"power_source", p.device.power_source.empty() ? Json(nullptr) : Json(p.device.power_source)},
                       {"ecosystem_score", p.ecosystem ? Json(*p.ecosystem) : Json(nullptr)},
                       {"risks", p.risks},
                       {"efficiency", p.efficiency_calibrated ? "calibrated" : "uncalibrated"},
                       {"efficiency_source", p.efficiency_source},
                       {"sources", p.device.sources},
                       {"intervals", plan::intervals_json(p)},
                       {"quality", quality::to_json(quality_of(p))}});
    }
    Json quality_json = quality::to_json(quality_policy);
    quality_json["removed"] = removed_by_quality;
    std::cout << Json{{"model", model.id}, {"tokens", goal.tokens}, {"days", goal.days},
                      {"plans", plans}, {"not_feasible", r.rejected},
                      {"batch_tokens_target", goal.batch_tokens},
                      {"batch_tokens_given", batch_given},
                      {"needs_larger_batch", r.larger_batch},
                      {"configurations_evaluated", r.configurations}, {"search_seconds", seconds},
                      {"offload_plans", plan::train_offload_plans_json(offload_plans)},
                      {"quality", quality_json}}
                     .dump(2)
              << "\n";
    return r.plans.empty() && !offload_meets ? kExitInfeasible : 0;
  }
  fmt::print("memwall plan train: {} on {:.3g} tokens within {:g} days{} (sequences of {} tokens, "
             "at most {:.1f}M tokens per step{})\n",
             model.id, goal.tokens, goal.days, goal.budget_usd ? fmt::format(", budget ${:.0f}", *goal.budget_usd) : "",
             goal.seq, goal.batch_tokens / 1e6,
             batch_given ? "" : ": chosen, none was given (--batch-tokens)");
  fmt::print("{} configurations timed in {:.2f} s; the cheapest run per accelerator that meets the deadline:\n",
             r.configurations, seconds);
  print_quality_policy(quality_policy, removed_by_quality);
  fmt::print("\n");
  if (r.plans.empty()) {
    fmt::print("No run meets the goal:\n");
    for (const auto& why : r.rejected) fmt::print("  {}\n", why);
    if (!offload_plans.empty()) {
      fmt::print("\nOffload plans (DeepSpeed ZeRO-Offload / ZeRO-Infinity, docs/offload.md; COST includes the hosts):\n");
      std::vector<std::vector<std::string>> rows;
      for (const auto& p : offload_plans)
        rows.push_back({p.accelerator->id, p.node->id, fmt::format("{}", p.config.gpus), train::to_string(p.spec),
                        fmt::format("ZeRO-{} mb{} gb{}", p.config.zero, p.config.micro_batch, p.config.global_batch),
                        fmt::format("{:.1f}", 100 * p.mfu), fmt::format("{:.1f}", p.days),
                        p.meets_deadline ? "yes" : "no", fmt::format("{:.0f}", p.gpu_hours), money(p.total_cost_usd, 0),
                        p.host_in_gpu_price ? "in node price" : money(value_of(p.host_cost.hour.capex), 0),
                        fmt::format("{:.1f}", p.memory_per_gpu.value() / kGiB),
                        fmt::format("{:.0f}", p.host_per_node.value() / kGiB),
                        fmt::format("{:.0f}", p.nvme_per_node.value() / kGiB), p.host, p.bound});
      print_table({"ACCELERATOR", "NODE", "GPUS", "OFFLOAD", "CONFIG", "MFU %", "DAYS", "DEADLINE", "GPU-HOURS",
                   "COST $", "HOST $/NODE", "GiB/GPU", "HOST GiB/NODE", "NVMe GiB/NODE", "HOST", "OFFLOAD WAITS ON"},
                  rows);
      fmt::print("  COST = GPU-hours x $/GPU-hour, whose node price already carries a host (the platform share of an\n"
                 "  owned server, or the rented instance); with --capex (the device alone) the offload host's CPUs,\n"
                 "  DRAM and NVMe (HOST $/NODE) are added per node (docs/cost.md \"Host prices\").\n");
    }
    return offload_meets ? 0 : kExitInfeasible;
  }
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < top; ++i) {
    const auto& p = r.plans[i];
    const Json iv = plan::intervals_json(p);
    rows.push_back({fmt::format("{}{}", i + 1, p.near_tie ? "~" : ""), p.accelerator->id,
                    fmt::format("{}", p.config.gpus), std::string(to_string(p.config.precision)),
                    quality_of(p).cell(), fmt::format("{:.1f}", 100 * p.mfu),
                    fmt::format("{:.1f} {}", p.days, uncertainty::range_text(iv["days"], 1, 1)),
                    fmt::format("{:.0f}", p.gpu_hours),
                    p.energy_kwh ? fmt::format("{:.0f}", *p.energy_kwh / 1e3) : "unknown",
                    money(p.cost_usd, 0), cost::to_string(p.device.basis),
                    p.tokens_per_joule ? fmt::format("{:.2f}", *p.tokens_per_joule) : "unknown",
                    p.ecosystem ? fmt::format("{:.1f}", *p.ecosystem) : "?",
                    p.risks.empty() ? (p.efficiency_calibrated ? "-" : "uncal")
                                    : fmt::format("FLAG{}", p.efficiency_calibrated ? "" : "+uncal"),
                    p.cheaper_network_days ? fmt::format("{:+.1f}", *p.cheaper_network_days - p.days) : "-"});
  }
  print_table({"#", "ACCELERATOR", "GPUS", "PRECISION", "QUALITY", "MFU %", "DAYS", "GPU-HOURS", "MWh", "COST $", "PRICING", "TOK/J",
               "ECO", "RISK", fmt::format("DAYS ON {}", cheaper ? cheaper->id : "-")},
              rows);
  fmt::print("\nConfigurations and networks:\n");
  for (int i = 0; i < top; ++i) {
    const auto& p = r.plans[i];
    fmt::print("  {}. {} x {}: {}; {:.1f} GB per GPU\n     network: {}\n", i + 1, p.config.gpus,
               p.accelerator->id, cfg(p.config), p.memory_per_gpu.value() / 1e9, p.network);
    fmt::print("     {} servers of {}; ecosystem {}\n", p.servers, p.node->id,
               p.ecosystem_summary.empty() ? "unknown" : p.ecosystem_summary);
    for (const auto& risk : p.risks) fmt::print("     risk: {}\n", risk);
    if (!p.efficiency_calibrated) fmt::print("     uncalibrated: {}\n", p.efficiency_source);
    if (!p.device.sources.empty()) fmt::print("     prices: {}\n", fmt::join(p.device.sources, "; "));
  }
  if (!r.rejected.empty()) {
    fmt::print("\nNo feasible run:\n");
    for (const auto& why : r.rejected) fmt::print("  {}\n", why);
  }
  if (!r.larger_batch.empty()) {
    fmt::print("\nFaster with a larger batch than the target (not planned; --batch-tokens to allow):\n");
    for (const auto& why : r.larger_batch) fmt::print("  {}\n", why);
  }
  fmt::print("\n(low-high) = 80 % interval of the estimate (memwall validate's errors; docs/validate.md).\n");
  fmt::print("\nMFU = model FLOP/s per GPU / dense peak of the matmul precision (model FLOPs = 6 x active "
             "parameters per token + attention, Narayanan et al. 2021 eq. 3, no recomputation). Energy = "
             "device power (node wall power / devices, or TDP + host share) at the modelled activity x PUE; cost = "
             "GPU-hours x $/GPU-hour, owned = whole servers amortised (docs/cost.md).\n");
  return 0;
}

}  // namespace

// `plan fleet`: the demand curve through plan::plan_fleet (docs/plan.md "Fleet").
struct PlanFleetOptions {
  PlanInferOptions search;
  std::string demand, rates;
  double growth_percent = 0;
  int months = 1;
  double availability = 0.999;
  std::optional<double> failures_per_device_year, repair_hours, startup_s, rent_per_gpu_hour;
  int min_replicas = 1;
  int64_t check_requests = 1000;
};

int run_plan_fleet(const PlanFleetOptions& o, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  plan::FleetQuery q;
  q.base = query_from(o.search);
  q.base.catalog_files = g.catalog_files;
  if (o.demand.empty() == o.rates.empty())
    throw InputError("--demand / --rates", o.demand.empty() ? "neither given" : "both given",
                     "exactly one: --demand FILE (a CSV) or --rates R0,R1,... (requests/s per hour)");
  q.demand = o.rates.empty() ? plan::parse_demand_csv(
                                   read_input_file(o.demand, "--demand", kMaxDocumentBytes), o.demand)
                             : plan::demand_from_rates(o.rates, "--rates");
  q.growth_per_month = o.growth_percent / 100.0;
  q.months = o.months;
  q.availability = o.availability;
  if (o.failures_per_device_year) q.failures_per_device_year = *o.failures_per_device_year;
  q.repair_hours = o.repair_hours;
  q.startup_s = o.startup_s;
  q.rent_per_gpu_hour = o.rent_per_gpu_hour;
  q.min_replicas = o.min_replicas;
  q.check_requests = o.check_requests;
  const plan::FleetAnswer a =
      plan::plan_fleet(*catalog, cost::PriceBook::with_user_files(g.catalog_files), q);
  std::cout << (g.json ? plan::to_json(a).dump(2) + "\n" : plan::to_text(a));
  return 0;
}

// The options `plan infer` and `plan fleet` share: the model and its lengths, the SLA, the
// accelerators, precisions and network searched, prices, stack and quality filters.
void add_search_options(CLI::App* cmd, PlanInferOptions& o) {
  cmd->add_option("--model", o.model, "Built-in model id or a Hugging Face config.json")->capture_default_str();
  cmd->add_option("--input", o.input, "Prompt lengths: sharegpt, alpaca, N, fixed:N, uniform:LO,HI, lognormal:MEAN,CV")
      ->capture_default_str();
  cmd->add_option("--output", o.output, "Output lengths (same forms as --input)")->capture_default_str();
  cmd->add_option("--sla", o.sla, "ttft_p99=S,tpot_p99=S[,e2e_p99=S] (seconds; ms suffix allowed)")->capture_default_str();
  cmd
      ->add_option("--vendors", o.vendors,
                   "Allowed vendors, comma list (nvidia,amd,huawei,intel,...)")
      ->check(non_empty_list("vendor names"));
  cmd->add_flag("--domestic-only", o.domestic_only, "Only Chinese domestic accelerators (" + plan::domestic_vendor_names() + ")");
  cmd->add_option("--gpus", o.gpus, "Only these accelerators (comma list of ids or aliases)")
      ->check(non_empty_list("accelerator ids or aliases"));
  cmd->add_option("--weight-precisions", o.weight_precisions, "Weight precisions searched")->capture_default_str();
  cmd->add_option("--kv-precisions", o.kv_precisions, "KV-cache precisions searched")->capture_default_str();
  cmd->add_option("--fabric", o.fabric,
                    "Cluster network: between the nodes of a replica that spans several, and for the KV "
                    "move between disaggregated pools")
      ->capture_default_str();
  add_cost_options(cmd, o);
  cmd->add_option("--min-ecosystem", o.min_ecosystem,
                    "Drop plans whose software-ecosystem score (0-10, docs/compare.md) is below this or unknown");
  cmd->add_option("--engine", o.engine,
                    "Only plans this engine supports (vllm, sglang, trtllm, mindie, vllm-ascend, lmdeploy, "
                    "llama.cpp, tgi); default: any engine in the support matrix");
  cmd->add_flag("--risk-averse", o.risk_averse,
                  "Drop plans flagged as risky (immature stack: ecosystem < 6/10 or unknown; a precision or "
                  "engine whose support is unknown; a card or node whose catalog entry names a risk, e.g. GeForce's driver "
                  "licence). Default: rank by cost and flag them");
  add_quality_options(cmd, o.quality, o.min_recovery);
  cmd->add_option("--calibration", o.calibration,
                    "Calibration profile every candidate is timed with (memwall calibrate --out,\n"
                    "memwall probe --out; docs/calibrate.md)")
      ->check(CLI::ExistingFile);
}

void register_plan(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand(
      "plan", "From the workload backwards to hardware. Without a sub-subcommand: the README "
              "scenario (qwen2.5-72b, 300 concurrent chat users, TTFT p99 <= 1 s, TPOT <= 50 ms)");
  add_global_options(*sub, g);
  static PlanInferOptions defaults;
  static PlanInferOptions o;
  auto* infer = sub->add_subcommand("infer", "Plan inference serving: required capacity and bandwidth, "
                                              "then ranked feasible deployments");
  add_global_options(*infer, g);
  add_search_options(infer, o);
  infer->add_option("--rate", o.rate, "Requests per second (open loop)");
  infer->add_option("--concurrency", o.concurrency, "Concurrent users (closed loop)");
  infer->add_option("--budget", o.budget, "Total cost over the TCO horizon, $");
  infer->add_option("--power-cap", o.power_cap_kw, "Facility power cap for the deployment, kW");
  infer->add_option("--max-gpus", o.max_gpus, "At most this many devices in total");
  infer->add_option("--objective", o.objective, "cost ($/M tokens), capex, power, gpus")->capture_default_str();
  infer->add_option("--top", o.top, "Plans to print")->capture_default_str();
  infer->add_option("--serving", o.serving,
                    "aggregated (prefill and decode share replicas), disaggregated (separate prefill and "
                    "decode pools, hardware may differ) or both")
      ->capture_default_str();
  infer->add_option("--confidence", o.confidence,
                    "Keep only plans whose SLA holds at the pessimistic end of this interval of\n"
                    "their TTFT/TPOT/e2e (e.g. 0.8: the high end of the 80 % interval fitted on the\n"
                    "validation errors, docs/validate.md); prints how many plans it removes")
      ->check(CLI::Range(0.01, 0.99));
  infer->add_option("--verify", o.verify, "Re-check the top N plans in the serving simulator (0: off)")
      ->capture_default_str();
  infer->add_option("--verify-requests", o.verify_requests,
                    "Requests per simulated check (default: 100 per user, 10,000-300,000; 20,000 for --rate)");
  infer->add_option("--emit", o.emit.emit,
                    "Print the chosen plan's launch files: vllm, sglang or trtllm (the engine command), k8s "
                    "(a Deployment, or a LeaderWorkerSet for multi-node replicas), llm-d (Helm values of "
                    "llm-d-modelservice), mindie (MindIE Service config.json, Ascend plans)");
  infer->add_option("--pick", o.emit.pick, "The plan --emit / --benchmark use (1 = the first)")->capture_default_str();
  infer->add_flag("--benchmark", o.emit.benchmark,
                  "Print the `vllm bench serve` command that measures the chosen plan at its workload");
  infer->add_flag("--explain", o.emit.explain, "With --emit: the plan field behind every emitted flag");
  infer->add_option("--engine-version", o.emit.engine_version,
                    "Engine version of the emitted flags (default: the version the plan was estimated "
                    "with; data/deploy holds the tables)");
  infer->add_option("--out", o.out_dir, "Write the --emit/--benchmark files into this folder");
  infer->footer(plan::kPlanDefinitions);
  infer->callback([&run, &g] { run = [&g] { return run_plan_infer(o, g); }; });

  static PlanTrainOptions t;
  auto* train_cmd = sub->add_subcommand("train", "Plan a training run: cheapest GPU type and count, "
                                                  "parallelism, recomputation, ZeRO, network, MFU, energy, cost");
  add_global_options(*train_cmd, g);
  train_cmd->add_option("--model", t.model, "Built-in model id or a Hugging Face config.json")->capture_default_str();
  train_cmd->add_option("--tokens", t.tokens, "Tokens to train on (2T, 300B, 1.5e12)")->capture_default_str();
  train_cmd->add_option("--days", t.days, "Deadline in days")->capture_default_str();
  train_cmd->add_option("--budget", t.budget, "At most this many $ for the run");
  train_cmd->add_option("--seq", t.seq, "Tokens per sequence")->capture_default_str();
  train_cmd->add_option("--batch-tokens", t.batch_tokens, "Most tokens per optimizer step; the planner never exceeds it (default 4M = 2^22, "
                        "the order of GPT-3 175B's 3.2M, Brown et al. 2020 Table 2.1)");
  train_cmd->add_option("--max-gpus", t.max_gpus, "Largest cluster considered")->capture_default_str();
  train_cmd->add_option("--gpus", t.gpus, "Only these accelerators (comma list)")
      ->check(non_empty_list("accelerator ids or aliases"));
  train_cmd->add_option("--vendors", t.vendors, "Only these vendors (comma list)")
      ->check(non_empty_list("vendor names"));
  train_cmd->add_flag("--domestic-only", t.domestic_only, "Only Chinese domestic accelerators (" + plan::domestic_vendor_names() + ")");
  train_cmd->add_option("--fabric", t.fabric, "Cluster network assumed")->capture_default_str();
  train_cmd->add_option("--cheaper-fabric", t.cheaper_fabric, "Re-time the chosen runs on this network (empty: off)")
      ->capture_default_str();
  train_cmd->add_option("--top", t.top, "Runs to print")->capture_default_str();
  train_cmd->add_option("--min-ecosystem", t.min_ecosystem,
                        "Drop accelerators whose software-ecosystem score (0-10) is below this or unknown");
  train_cmd->add_flag("--risk-averse", t.risk_averse,
                      "Drop accelerators on immature stacks (ecosystem < 6/10 or unknown)");
  train_cmd->add_option("--precision", t.precision,
                        "Matmul precisions searched (comma list of bf16, fp16, fp8; fp8 only where the device has it)")
      ->capture_default_str();
  add_quality_options(train_cmd, t.quality, t.min_recovery);
  add_cost_options(train_cmd, t.cost);
  train_cmd->callback([&run, &g] { run = [&g] { return run_plan_train(t, g); }; });

  static PlanFleetOptions f;
  auto* fleet = sub->add_subcommand(
      "fleet", "Plan a fleet for a demand curve: replicas per hour at the SLA, N+k headroom, the\n"
               "scale-up lag, the owned base and rented peaks against sizing for the peak around\n"
               "the clock, every hour re-checked in the serving simulator (docs/plan.md \"Fleet\")");
  add_global_options(*fleet, g);
  fleet->add_option("--demand", f.demand,
                    "CSV: hour,rate_per_s[,input_tokens,output_tokens], hours 0, 1, 2 ... (a day or\n"
                    "a week; it repeats over the horizon)");
  fleet->add_option("--rates", f.rates,
                    "The same curve inline: requests/s of hour 0, 1, 2 ... as a comma list");
  add_search_options(fleet, f.search);
  fleet->add_option("--growth", f.growth_percent, "Demand growth per month, % (the whole curve)")
      ->capture_default_str();
  fleet->add_option("--months", f.months, "Horizon in months (month m runs the curve x (1 + growth)^m)")
      ->capture_default_str();
  fleet->add_option("--availability", f.availability,
                    "Target probability that every replica an hour needs is up (N+k headroom)")
      ->capture_default_str();
  fleet->add_option("--failures-per-device-year", f.failures_per_device_year,
                    "Interruptions per device-year (default 0.173: the Llama 3 paper's 419 in 54 days\n"
                    "on 16,384 H100s)");
  fleet->add_option("--repair-hours", f.repair_hours,
                    "Hours a failed replica stays out (default 24, an assumption shown as such)");
  fleet->add_option("--startup-s", f.startup_s,
                    "Seconds from asking for a replica to it serving (default 600, an assumption\n"
                    "shown as such); replicas start this long before the hour that needs them");
  fleet->add_option("--rent-per-gpu-hour", f.rent_per_gpu_hour,
                    "Rental $ per device-hour of the peaks (default: the price book's cloud price)");
  fleet->add_option("--min-replicas", f.min_replicas, "Replicas kept however quiet the hour")
      ->capture_default_str();
  fleet->add_option("--check-requests", f.check_requests,
                    "Requests simulated per hour to check its SLA (0: no check)")
      ->capture_default_str();
  fleet->callback([&run, &g] { run = [&g] { return run_plan_fleet(f, g); }; });

  // The README scenario takes the quality policy too (--quality any: every precision, as before
  // the quality floor).
  add_quality_options(sub, defaults.quality, defaults.min_recovery);
  sub->footer(plan::kPlanDefinitions);
  sub->callback([sub, &run, &g] {
    if (!sub->get_subcommands().empty()) return;
    run = [&g] {
      PlanInferOptions d = defaults;
      d.concurrency = 300;
      return run_plan_infer(d, g);
    };
  });
}

}  // namespace memwall::cli
