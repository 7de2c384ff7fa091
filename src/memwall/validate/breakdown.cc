#include "memwall/validate/breakdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace memwall::validate {

std::vector<uncertainty::Residual> residuals(const Report& r) {
  std::vector<uncertainty::Residual> out;
  for (const auto& c : r.cases)
    if (c.predicted && *c.predicted > 0 && c.measured > 0)
      out.push_back({c.id, c.source, c.regime, std::log(*c.predicted / c.measured)});
  return out;
}

std::string pct_or_dash(const std::optional<double>& v, double scale, const char* sep) {
  return v ? fmt::format("{:.0f}{}%", *v * scale, sep) : "-";
}

double width_pct(const uncertainty::Interval& i) {
  return (std::exp(i.half_width) - std::exp(-i.half_width)) * 100;
}

void add_breakdown(Report& r, const uncertainty::Widening& widening) {
  const auto held = uncertainty::leave_one_source_out(residuals(r), {}, widening);
  std::map<std::string, const uncertainty::Held*> by_id;
  for (const auto& h : held) by_id[h.residual.id] = &h;
  // (kind, dimension, value) -> cases, in the order first seen.
  std::vector<std::pair<std::array<std::string, 3>, std::vector<const CaseResult*>>> groups;
  auto add = [&](const std::string& kind, const std::string& dim, const std::string& value,
                 const CaseResult* c) {
    const std::array<std::string, 3> key{kind, dim, value};
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({key, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(c);
  };
  for (auto& c : r.cases) {
    auto h = by_id.find(c.id);
    if (h == by_id.end()) continue;
    c.held_out = h->second->interval;
  }
  std::set<std::string> grouped;  // kinds with cases in a group
  for (const auto& c : r.cases)
    if (!c.group.empty()) grouped.insert(c.kind);
  for (const auto& c : r.cases) {
    if (!c.held_out) continue;
    // Grouped cases are reported apart, like the summary ("kind/group"); all are fitted together.
    const std::string kind = c.group.empty() ? c.kind : c.kind + "/" + c.group;
    // A grouped kind's regimes are also pooled over the original set and every group ("kind
    // (all)", as in the summary), so a regime's one-sided error shows across sets too.
    const std::string pooled = grouped.count(c.kind) ? c.kind + " (all)" : std::string();
    auto add_both = [&](const std::string& dim, const std::string& value) {
      add(kind, dim, value, &c);
      if (!pooled.empty() && dim != "source") add(pooled, dim, value, &c);
    };
    add_both("all", "all");
    add_both("source", c.source);
    for (const auto& dim : uncertainty::dimension_names()) {
      const std::string v = c.regime.value(dim);
      if (!v.empty()) add_both(dim, v);
    }
    for (const auto& w : c.workload) add_both("workload", w);
  }
  // By kind, then "all", "source" and the regime dimensions in dimension_names() order; values in
  // the order first seen.
  auto rank = [](const std::string& dim) {
    if (dim == "all") return 0;
    if (dim == "source") return 1;
    const auto& names = uncertainty::dimension_names();
    return 2 + static_cast<int>(std::find(names.begin(), names.end(), dim) - names.begin());
  };
  std::stable_sort(groups.begin(), groups.end(), [&rank](const auto& a, const auto& b) {
    if (a.first[0] != b.first[0]) return a.first[0] < b.first[0];
    return rank(a.first[1]) < rank(b.first[1]);
  });
  r.groups.clear();
  for (const auto& [key, cs] : groups) {
    std::vector<double> signed_err, abs_err, widths;
    int inside = 0;
    for (const auto* c : cs) {
      signed_err.push_back(c->signed_pct_error());
      abs_err.push_back(c->abs_pct_error());
      if (!c->held_out->known) continue;  // a source alone in its kind: nothing to fit on
      widths.push_back(width_pct(*c->held_out));
      if (std::fabs(std::log(*c->predicted / c->measured)) <= c->held_out->half_width) ++inside;
    }
    GroupSummary g{key[0],
                   key[1],
                   key[2],
                   static_cast<int>(cs.size()),
                   median(signed_err),
                   median(abs_err),
                   percentile90(abs_err),
                   std::nullopt,
                   std::nullopt};
    if (!widths.empty()) {
      g.coverage = double(inside) / double(widths.size());
      g.median_width_pct = median(widths);
    }
    r.groups.push_back(g);
  }
}

Json fit_uncertainty(const Report& r, Json provenance,
                     const std::map<std::string, uncertainty::CalibratedScatter>& calibrated) {
  const auto res = residuals(r);
  const uncertainty::Widening w;  // stated assumptions (model.h): no case measures them
  uncertainty::Model m = uncertainty::fit(res, {}, w);
  m.calibrated = calibrated;
  Json coverage = Json::object();
  std::map<std::string, std::pair<int, int>> inside;  // kind -> (inside, cases with an interval)
  for (const auto& h : uncertainty::leave_one_source_out(res, {}, w)) {
    if (!h.interval.known) continue;
    auto& [in, n] = inside[h.residual.regime.kind];
    in += h.inside ? 1 : 0;
    ++n;
  }
  for (const auto& [kind, c] : inside)
    coverage[kind] = Json{{"cases", c.second}, {"coverage", double(c.first) / c.second}};
  provenance["leave_one_source_out_coverage"] = coverage;
  provenance["assumed_not_fitted"] = {"widening.unseen_value", "widening.beyond_scale",
                                      "widening.outside_parameters", "widening.probe_calibrated"};
  m.provenance = provenance;
  return to_json(m);
}

Json groups_json(const Report& r) {
  Json out = Json::array();
  for (const auto& g : r.groups)
    out.push_back({{"kind", g.kind},
                   {"dimension", g.dimension},
                   {"value", g.value},
                   {"predicted", g.predicted},
                   {"median_signed_pct_error", g.median_signed_pct_error},
                   {"median_abs_pct_error", g.median_abs_pct_error},
                   {"p90_abs_pct_error", g.p90_abs_pct_error},
                   {"coverage_80", g.coverage ? Json(*g.coverage) : Json(nullptr)},
                   {"median_interval_width_pct",
                    g.median_width_pct ? Json(*g.median_width_pct) : Json(nullptr)}});
  return out;
}

std::string groups_text(const Report& r) {
  size_t w = 11;  // the kind column fits the longest "kind/group" or "kind (all)"
  for (const auto& g : r.groups) w = std::max(w, g.kind.size());
  std::string out =
      fmt::format("\n{:<{}} {:<10} {:<44} {:>5} {:>9} {:>8} {:>8} {:>9} {:>8}\n", "kind", w,
                  "dimension", "value", "cases", "median", "median", "p90", "coverage", "median");
  out += fmt::format("{:<{}} {:<10} {:<44} {:>5} {:>9} {:>8} {:>8} {:>9} {:>8}\n", "", w, "", "",
                     "", "signed", "|error|", "|error|", "80 % int", "width");
  for (const auto& g : r.groups)
    out += fmt::format("{:<{}} {:<10} {:<44} {:>5} {:>+8.1f}% {:>7.1f}% {:>7.1f}% {:>9} {:>8}\n",
                       g.kind, w, g.dimension, g.value.substr(0, 44), g.predicted,
                       g.median_signed_pct_error, g.median_abs_pct_error, g.p90_abs_pct_error,
                       pct_or_dash(g.coverage, 100), pct_or_dash(g.median_width_pct, 1));
  return out;
}

std::string coverage_by_kind(const Report& r) {
  std::map<std::string, std::pair<int, int>> in_n;  // plain kind -> (inside, with an interval)
  for (const auto& c : r.cases) {
    if (!c.held_out || !c.held_out->known) continue;
    auto& [in, n] = in_n[c.kind];
    in += std::fabs(std::log(*c.predicted / c.measured)) <= c.held_out->half_width ? 1 : 0;
    ++n;
  }
  std::string out;
  for (const auto& [kind, c] : in_n)
    out += fmt::format("{}{} {:.0f} % ({} of {})", out.empty() ? "" : ", ", kind,
                       100.0 * c.first / c.second, c.first, c.second);
  return out;
}

std::string groups_markdown(const Report& r) {
  std::string out =
      "\n## By source and regime\n\n"
      "Signed error = (predicted - measured) / measured, negated for times (+: memwall is "
      "optimistic: more throughput or less time than measured). "
      "Coverage = share of cases whose measured value lies inside the 80 % interval fitted "
      "without the case's source (leave-one-source-out); width = (high - low) / predicted.\n\n"
      "| kind | dimension | value | cases | median signed error | median abs. error | p90 abs. "
      "error | 80 % coverage | median width |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  out = "\nLeave-one-source-out coverage of the 80 % intervals over each kind, its groups included: " +
        coverage_by_kind(r) + ".\n" + out;
  for (const auto& g : r.groups)
    out += fmt::format("| {} | {} | {} | {} | {:+.1f} % | {:.1f} % | {:.1f} % | {} | {} |\n",
                       g.kind, g.dimension, g.value, g.predicted, g.median_signed_pct_error,
                       g.median_abs_pct_error, g.p90_abs_pct_error,
                       pct_or_dash(g.coverage, 100, " "), pct_or_dash(g.median_width_pct, 1, " "));
  return out;
}

}  // namespace memwall::validate
