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

// Weight of one piece of software in the 10-point score (see ecosystem.h).
double weight(const SoftwareFact& f) {
  if (f.kind == "framework") return f.name == "PyTorch" || f.name == "JAX" ? 3.0 : 0.0;
  if (f.kind == "serving") return f.name == "vLLM" ? 2.0 : f.name == "SGLang" ? 1.0 : 0.0;
  if (f.kind == "vendor_engine") return 1.0;
  if (f.kind == "kernels") return 2.0;
  if (f.kind == "compiler") return 0.5;
  if (f.kind == "toolchain") return 0.5;
  return 0.0;
}

constexpr const char* kKinds[] = {"framework", "serving", "vendor_engine", "kernels", "compiler", "toolchain"};

double cap(const std::string& kind) {
  return kind == "framework" || kind == "serving" ? 3.0 : kind == "kernels" ? 2.0
         : kind == "vendor_engine"                 ? 1.0
                                                   : 0.5;
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

EcosystemScore score_ecosystem(const Accelerator& a, const EcosystemBook& book) {
  EcosystemScore out;
  const auto v = book.find(a);
  if (!v || v->software.empty()) {
    out.missing.assign(std::begin(kKinds), std::end(kKinds));
    return out;
  }
  out.stack = v->stack;
  out.facts = v->software;
  // Per kind, the points are capped at the kind's weight (one vLLM counts once; PyTorch and JAX
  // both count toward the framework's 3).
  std::map<std::string, std::map<std::string, double>> best;  // kind -> name -> points
  for (const auto& f : v->software) {
    const double share = f.support == Support::native ? 1.0
                         : f.support == Support::plugin ? kPluginShare
                                                        : 0.0;
    double& b = best[f.kind][f.name];
    b = std::max(b, share * weight(f));
  }
  double total = 0;
  for (const std::string kind : kKinds) {
    double p = 0;
    for (const auto& [name, pts] : best[kind]) p = kind == "framework" ? std::max(p, pts) : p + pts;
    p = std::min(p, cap(kind));
    if (p == 0) out.missing.push_back(kind);
    total += p;
  }
  // A generation without bf16 matmuls (Volta and older) cannot run today's bf16 checkpoints and
  // recipes as published: one point off, stated.
  if (std::find(a.unsupported_precisions.begin(), a.unsupported_precisions.end(), "bf16") !=
      a.unsupported_precisions.end()) {
    total = std::max(0.0, total - 1.0);
    out.missing.push_back("bf16 (hardware)");
  }
  out.score = total;
  return out;
}

}  // namespace memwall::score
