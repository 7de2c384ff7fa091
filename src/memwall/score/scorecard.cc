#include "memwall/score/scorecard.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace memwall::score {

std::vector<ScorecardRow> build_scorecard(const std::vector<Evidence>& evidence,
                                          const EcosystemBook& ecosystem) {
  std::vector<ScorecardRow> rows;
  double best_tpj = 0, best_cost = 0;
  for (const auto& e : evidence) {
    if (e.feasible && e.tokens_per_joule) best_tpj = std::max(best_tpj, *e.tokens_per_joule);
    if (e.feasible && e.usd_per_million_tokens && *e.usd_per_million_tokens > 0) {
      best_cost = best_cost == 0 ? *e.usd_per_million_tokens
                                 : std::min(best_cost, *e.usd_per_million_tokens);
    }
  }
  for (const auto& e : evidence) {
    ScorecardRow r;
    r.accelerator = e.accelerator;
    r.evidence = e;
    const Accelerator& a = *e.accelerator;

    // Memory: capacity and bandwidth sufficiency of one device against the workload.s need.
    if (a.memory && a.memory_bandwidth && e.required_capacity.value() > 0 &&
        e.required_bandwidth.value() > 0) {
      const double cap = *a.memory / e.required_capacity;
      const double bw = *a.memory_bandwidth / e.required_bandwidth;
      r.memory.score = 5.0 * std::min(1.0, cap) + 5.0 * std::min(1.0, bw);
      r.memory.basis = fmt::format(
          "{:.0f} GiB holds {:.0f}% of the {:.0f} GiB the workload needs; {:.2f} TB/s is {:.0f}% "
          "of the {:.2f} TB/s it needs",
          a.memory->value() / kGiB, 100 * cap, e.required_capacity.value() / kGiB,
          a.memory_bandwidth->value() / 1e12, 100 * bw,
          e.required_bandwidth.value() / 1e12);
    } else {
      r.memory.basis = "memory capacity or bandwidth unknown";
      // Flags are built from string_view: GCC 12 at -O3 reports a false -Warray-bounds on
      // push_back of a string literal here, which -Werror turns into a build failure.
      r.flags.emplace_back(std::string_view("memory spec unknown"));
    }

    if (e.link_efficiency_8 && e.link_efficiency_64) {
      r.interconnect.score = 5.0 * std::clamp(*e.link_efficiency_8, 0.0, 1.0) +
                             5.0 * std::clamp(*e.link_efficiency_64, 0.0, 1.0);
      r.interconnect.basis =
          fmt::format("all-reduce efficiency {:.0f}% at 8 devices, {:.0f}% at 64 ({})",
                      100 * *e.link_efficiency_8, 100 * *e.link_efficiency_64, e.link_basis);
    } else {
      r.interconnect.basis = e.link_basis.empty() ? "link scaling unknown" : e.link_basis;
      r.flags.emplace_back(std::string_view("interconnect unknown"));
    }

    r.ecosystem_facts = score_ecosystem(a, ecosystem);
    r.ecosystem.score = r.ecosystem_facts.score;
    std::string names;
    for (const auto& f : r.ecosystem_facts.facts) {
      if (f.support == Support::none) continue;
      names += (names.empty() ? "" : ", ") + f.name + (f.support == Support::plugin ? " (plugin)" : "");
    }
    if (r.ecosystem_facts.score) {
      r.ecosystem.basis = (r.ecosystem_facts.stack.empty() ? "" : r.ecosystem_facts.stack + ": ") + names;
    } else if (!r.ecosystem_facts.facts.empty()) {
      // Facts, but none on the framework: what exists cannot be weighed (ecosystem.h).
      r.ecosystem.basis = "no sourced fact on PyTorch or JAX for " + a.vendor + ", score unknown; known: " + names;
      r.flags.emplace_back(std::string_view("ecosystem unknown"));
    } else {
      r.ecosystem.basis = "no sourced software facts for vendor " + a.vendor;
      r.flags.emplace_back(std::string_view("ecosystem unknown"));
    }

    if (e.feasible && e.tokens_per_joule && best_tpj > 0) {
      r.energy.score = 10.0 * *e.tokens_per_joule / best_tpj;
      // The plan's power boundary (docs/cost.md "One boundary per ranking"): the wall power of
      // every device it buys, so a 1-GPU plan on a rack-scale node counts the whole rack.
      r.energy.basis = fmt::format("{:.2f} tokens/J (wall power of the {} device(s) bought in {}, "
                                   "before PUE)",
                                   *e.tokens_per_joule, e.billed_devices, e.node);
    } else {
      r.energy.basis = e.feasible ? "wall power unknown" : "no feasible plan";
      if (e.feasible) r.flags.emplace_back(std::string_view("power unknown"));
    }

    if (e.feasible && e.usd_per_million_tokens && best_cost > 0) {
      r.cost.score = 10.0 * best_cost / *e.usd_per_million_tokens;
      r.cost.basis = fmt::format("${:.3f} per million tokens", *e.usd_per_million_tokens);
    } else {
      r.cost.basis = e.feasible ? "price unknown" : "no feasible plan";
      if (e.feasible) r.flags.emplace_back(std::string_view("price unknown"));
    }
    if (!e.feasible) r.flags.push_back("infeasible: " + e.infeasible_reason);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace memwall::score
