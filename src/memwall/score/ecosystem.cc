#include "memwall/score/ecosystem.h"

#include <algorithm>
#include <iterator>
#include <cctype>
#include <map>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall::score {
namespace {

Support parse_support(const std::string& s, const std::string& where) {
  if (s == "native") return Support::native;
  if (s == "plugin") return Support::plugin;
  if (s == "none") return Support::none;
  throw InputError(where, s, "native, plugin, none");
}

constexpr double kPluginShare = 0.75;

constexpr const char* kKinds[] = {"framework", "serving",     "vendor_engine", "compiler",
                                  "kernels",   "moe_kernels", "fp8_kernels",   "profiler",
                                  "debugger",  "toolchain",   "porting"};

PortingPath parse_path(const std::string& s, const std::string& where) {
  if (s == "as_is") return PortingPath::as_is;
  if (s == "recompile") return PortingPath::recompile;
  if (s == "translate") return PortingPath::translate;
  if (s == "rewrite") return PortingPath::rewrite;
  throw InputError(where, s, "as_is, recompile, translate, rewrite");
}

double support_share(Support s) {
  return s == Support::native ? 1.0 : s == Support::plugin ? kPluginShare : 0.0;
}

// Share of CUDA kernel code that carries over (ecosystem.h): as is all of it; a rebuild with the
// vendor's CUDA-compatible compiler nearly all (fix-ups where an API is missing); a translation
// tool half (HIPIFY's own documentation says it cannot convert all code and manual work remains);
// a rewrite in another operator language none.
double path_share(PortingPath p) {
  switch (p) {
    case PortingPath::as_is: return 1.0;
    case PortingPath::recompile: return 0.75;
    case PortingPath::translate: return 0.5;
    case PortingPath::rewrite: return 0.0;
  }
  return 0.0;
}

std::string support_suffix(Support s) {
  return s == Support::plugin ? " (plugin)" : s == Support::none ? " (none, stated)" : "";
}

// Points of one item from the facts of its kinds: the best fact (framework, attention, ...) or the
// sum of named weights (serving: vLLM 1, SGLang 0.5), capped at the item's weight.
struct ItemRule {
  const char* id;
  const char* label;
  double weight;
  std::vector<std::string> kinds;  // fact kinds it reads
};

EcosystemItem score_item(const ItemRule& rule, const std::vector<SoftwareFact>& facts) {
  EcosystemItem item;
  item.id = rule.id;
  item.label = rule.label;
  item.weight = rule.weight;
  std::vector<const SoftwareFact*> mine;
  for (const auto& f : facts)
    if (std::find(rule.kinds.begin(), rule.kinds.end(), f.kind) != rule.kinds.end()) mine.push_back(&f);
  if (mine.empty()) {
    item.found = "unknown";
    return item;
  }
  double pts = 0;
  std::string found;
  if (item.id == "serving") {
    std::map<std::string, double> best;  // one vLLM counts once
    for (const auto* f : mine) {
      const double w = f->name == "vLLM" ? 1.0 : f->name == "SGLang" ? 0.5 : 0.0;
      best[f->name] = std::max(best[f->name], w * support_share(f->support));
    }
    for (const auto& [name, p] : best) pts += p;
  } else {
    for (const auto* f : mine) {
      double share = support_share(f->support);
      if (item.id == "framework" && f->name != "PyTorch" && f->name != "JAX") share = 0;
      if (item.id == "porting") share *= f->path ? path_share(*f->path) : 0.0;
      pts = std::max(pts, share * rule.weight);
    }
  }
  for (const auto* f : mine) {
    std::string name = f->name + support_suffix(f->support);
    if (f->path) name += " [" + std::string(to_string(*f->path)) + "]";
    found += (found.empty() ? "" : ", ") + name;
  }
  item.points = std::min(pts, rule.weight);
  item.found = found;
  return item;
}

EcosystemPart score_part(const char* id, const std::vector<ItemRule>& rules,
                         const std::vector<SoftwareFact>& facts) {
  EcosystemPart part;
  part.id = id;
  for (const auto& r : rules) {
    part.items.push_back(score_item(r, facts));
    part.weight += r.weight;
    if (part.items.back().points) {
      part.points += *part.items.back().points;
    } else {
      ++part.unknown;
    }
  }
  return part;
}

bool lacks(const Accelerator& a, const char* precision) {
  return std::find(a.unsupported_precisions.begin(), a.unsupported_precisions.end(), precision) !=
         a.unsupported_precisions.end();
}

const EcosystemItem* item_of(const EcosystemPart& part, const std::string& id) {
  for (const auto& i : part.items)
    if (i.id == id) return &i;
  return nullptr;
}

}  // namespace

void EcosystemBook::load(const Json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("ecosystem")) return;
  const Json& e = doc.at("ecosystem");
  const std::string where = origin + ": ecosystem";
  if (!e.is_object() || !e.contains("vendors") || !e.at("vendors").is_array()) {
    throw InputError(where + ".vendors", "missing", "an array of vendor entries");
  }
  static const std::vector<std::string> kinds(std::begin(kKinds), std::end(kKinds));
  const Json& list = e.at("vendors");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + ".vendors[" + std::to_string(i) + "]";
    VendorEcosystem v;
    v.vendor = require_string(list[i], "vendor", at);
    if (list[i].contains("stack")) v.stack = require_string(list[i], "stack", at);
    if (list[i].contains("accelerators")) {
      for (const auto& id : list[i].at("accelerators")) {
        if (!id.is_string()) throw InputError(at + ".accelerators", id.dump(), "catalog ids");
        v.accelerators.push_back(to_lower(id.get<std::string>()));
      }
    }
    if (list[i].contains("software")) {
      const Json& sw = list[i].at("software");
      for (size_t j = 0; j < sw.size(); ++j) {
        const std::string sat = at + ".software[" + std::to_string(j) + "]";
        SoftwareFact f;
        f.name = require_string(sw[j], "name", sat);
        f.kind = require_string(sw[j], "kind", sat);
        if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) {
          throw InputError::unknown_name(sat + ".kind", f.kind, kinds);
        }
        f.support = parse_support(require_string(sw[j], "support", sat), sat + ".support");
        f.source = require_string(sw[j], "source", sat);
        f.date = sw[j].contains("date") ? require_string(sw[j], "date", sat) : "";
        if (f.kind == "porting") {
          f.path = parse_path(require_string(sw[j], "path", sat), sat + ".path");
        } else if (sw[j].contains("path")) {
          throw InputError(sat + ".path", sw[j].at("path").dump(), "no path (only a \"porting\" fact has one)");
        }
        v.software.push_back(std::move(f));
      }
    }
    vendors_.push_back(std::move(v));
  }
}

EcosystemBook EcosystemBook::builtin() {
  static const EcosystemBook book = [] {
    EcosystemBook b;
    for (const auto& f : data::embedded_files()) {
      if (f.path.rfind("ecosystem/", 0) != 0) continue;
      b.load(parse_document(f.content, std::string(f.path)), "data/" + std::string(f.path));
    }
    return b;
  }();
  return book;
}

EcosystemBook EcosystemBook::with_user_files(const std::vector<std::string>& paths) {
  EcosystemBook b = builtin();
  for (const auto& p : paths) b.load(load_document(p), p);
  return b;
}

std::optional<VendorEcosystem> EcosystemBook::find(const Accelerator& a) const {
  const std::string vendor = to_lower(a.vendor);
  std::vector<std::string> names{to_lower(a.id)};
  for (const auto& alias : a.aliases) names.push_back(to_lower(alias));
  std::optional<VendorEcosystem> general, specific;
  for (const auto& v : vendors_) {  // later entries (user files) replace earlier ones
    if (vendor.rfind(to_lower(v.vendor), 0) != 0) continue;  // "Intel (Habana)" is Intel
    if (v.accelerators.empty()) {
      general = v;
    } else if (std::any_of(v.accelerators.begin(), v.accelerators.end(), [&](const std::string& id) {
                 return std::find(names.begin(), names.end(), id) != names.end();
               })) {
      specific = v;
    }
  }
  return specific ? specific : general;
}

std::string_view to_string(PortingPath p) {
  switch (p) {
    case PortingPath::as_is: return "as_is";
    case PortingPath::recompile: return "recompile";
    case PortingPath::translate: return "translate";
    case PortingPath::rewrite: return "rewrite";
  }
  return "rewrite";
}

std::string_view to_string(PortingEffort e) {
  switch (e) {
    case PortingEffort::as_is: return "as_is";
    case PortingEffort::recompile: return "recompile";
    case PortingEffort::translate: return "translate";
    case PortingEffort::rewrite: return "rewrite";
    case PortingEffort::unknown: return "unknown";
  }
  return "unknown";
}

// The porting-effort verdict (docs/compare.md "Porting effort") from the three parts.
PortingVerdict porting_verdict(const EcosystemPart& coverage, const EcosystemPart& operators,
                               const std::vector<SoftwareFact>& facts) {
  PortingVerdict v;
  const SoftwareFact* path = nullptr;  // the porting fact with the cheapest path
  for (const auto& f : facts)
    if (f.kind == "porting" && f.path && f.support != Support::none &&
        (!path || static_cast<int>(*f.path) < static_cast<int>(*path->path)))
      path = &f;
  std::vector<std::string> clauses;
  if (path) {
    v.tool = path->name;
    v.effort = static_cast<PortingEffort>(static_cast<int>(*path->path));
    switch (*path->path) {
      case PortingPath::as_is: clauses.push_back("CUDA source runs as is (" + v.tool + ")"); break;
      case PortingPath::recompile:
        clauses.push_back("CUDA source recompiles with the vendor's CUDA-compatible toolchain (" + v.tool + ")");
        break;
      case PortingPath::translate:
        clauses.push_back("CUDA source is translated with a tool, then recompiled (" + v.tool + ")");
        break;
      case PortingPath::rewrite:
        clauses.push_back("custom kernels are rewritten in the vendor's operator language (" + v.tool + ")");
        break;
    }
  } else {
    clauses.push_back("CUDA porting path unknown (no sourced fact)");
  }
  const EcosystemItem* framework = item_of(coverage, "framework");
  if (framework && !framework->points) {
    v.unknown.push_back("framework");
  } else if (framework && *framework->points == 0) {
    // Neither PyTorch nor JAX: the model code itself is rewritten for the vendor's framework.
    v.effort = PortingEffort::rewrite;
    clauses.push_back("no PyTorch or JAX: the model code is rewritten for the vendor's framework");
  }
  for (const auto& item : operators.items) {
    if (item.found == "no fp8 hardware") {
      v.no_hardware.push_back("fp8");
    } else if (!item.points) {
      v.unknown.push_back(item.label);
    } else if (*item.points == 0) {
      v.kernels_to_write.push_back(item.label);
    }
  }
  const auto list = [](const std::vector<std::string>& xs) {
    std::string out;
    for (const auto& x : xs) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (!v.kernels_to_write.empty()) clauses.push_back("kernels to write: " + list(v.kernels_to_write));
  if (!v.no_hardware.empty()) clauses.push_back("FP8 checkpoints run dequantised: no fp8 hardware");
  if (!v.unknown.empty()) clauses.push_back("unknown: " + list(v.unknown));
  for (const auto& c : clauses) v.sentence += (v.sentence.empty() ? "" : "; ") + c;
  return v;
}

EcosystemScore score_ecosystem(const Accelerator& a, const EcosystemBook& book) {
  EcosystemScore out;
  const auto v = book.find(a);
  const std::vector<SoftwareFact> none;
  const std::vector<SoftwareFact>& facts = v ? v->software : none;
  if (v) {
    out.stack = v->stack;
    out.facts = v->software;
  }
  // The weights of ecosystem.h.
  out.coverage = score_part("coverage",
                            {{"framework", "framework", 1.5, {"framework"}},
                             {"serving", "serving", 1.5, {"serving"}},
                             {"vendor_engine", "vendor engine", 0.5, {"vendor_engine"}},
                             {"compiler", "kernel compiler", 0.5, {"compiler"}}},
                            facts);
  out.operators = score_part("operators",
                             {{"kernels", "attention", 1.0, {"kernels"}},
                              {"moe_kernels", "MoE grouped GEMM", 1.0, {"moe_kernels"}},
                              {"fp8_kernels", "FP8 GEMM", 1.0, {"fp8_kernels"}}},
                             facts);
  // FP8 needs the hardware first: without an fp8 path no kernel can supply it (known, 0 points).
  if (lacks(a, "fp8"))
    for (auto& item : out.operators.items)
      if (item.id == "fp8_kernels") {
        if (!item.points) --out.operators.unknown;
        out.operators.points -= item.points.value_or(0.0);
        item.points = 0.0;
        item.found = "no fp8 hardware";
      }
  out.toolchain = score_part("toolchain",
                             {{"profiler", "profiler", 0.5, {"profiler", "toolchain"}},
                              {"debugger", "debugger", 0.5, {"debugger", "toolchain"}},
                              {"porting", "CUDA porting path", 2.0, {"porting"}}},
                             facts);
  out.porting = porting_verdict(out.coverage, out.operators, facts);
  for (const EcosystemPart* part : {&out.coverage, &out.operators, &out.toolchain})
    for (const auto& item : part->items)
      if (item.found == "no fp8 hardware") {
        out.missing.push_back("fp8 (hardware)");
      } else if (!item.points || *item.points == 0) {
        out.missing.push_back(item.id);
      }
  const EcosystemItem* framework = item_of(out.coverage, "framework");
  if (facts.empty() || !framework || !framework->points) return out;  // unknown: flagged
  double total = out.coverage.points + out.operators.points + out.toolchain.points;
  // A generation without bf16 matmuls (Volta and older) cannot run today's bf16 checkpoints and
  // recipes as published: one point off, stated.
  if (lacks(a, "bf16")) {
    total = std::max(0.0, total - 1.0);
    out.missing.push_back("bf16 (hardware)");
  }
  out.score = total;
  return out;
}

}  // namespace memwall::score
