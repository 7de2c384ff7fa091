// memwall catalog: what memwall knows by name. `list` prints the accelerators, nodes, fabrics and
// models; `show ID` prints one entry with every spec and its sources; `import config.json` prints
// what was understood from a Hugging Face config. --json prints one JSON object.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/cost/prices.h"
#include "memwall/cost/tco.h"
#include "memwall/hw/host_io.h"
#include "memwall/hw/hw_io.h"
#include "memwall/model/counts.h"
#include "memwall/model/zoo.h"
#include "memwall/perf/efficiency.h"

namespace memwall::cli {
namespace {

struct CatalogOptions {
  std::string section = "all";
  std::string id;
  std::string config_path;
};

constexpr const char* kUnknown = "unknown";

// A plain text table: a header row, then rows, columns padded to the widest cell.
void print_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t c = 0; c < r.size(); ++c) {
      out += c + 1 == r.size() ? r[c] : fmt::format("{:<{}}  ", r[c], width[c]);
    }
    fmt::print("{}\n", out);
  };
  line(header);
  for (const auto& r : rows) line(r);
}

template <class Q>
std::string in_unit(const std::optional<Q>& q, double unit) {
  return q ? fmt::format("{:g}", q->value() / unit) : kUnknown;
}

// The datasheet's memory figure in the unit the vendor means ("80 GiB"), or "unknown".
std::string memory_cell(const Accelerator& a) {
  const auto figure = a.memory_datasheet_figure();
  return figure ? fmt::format("{:g} {}", *figure, a.memory_unit) : kUnknown;
}

std::string text_or_unknown(const std::string& s) {
  return s.empty() ? kUnknown : s;
}

// A dense-peak cell: the value, "n/s" when the hardware has no path for it, or "unknown".
std::string peak_cell(const Accelerator& a, const std::string& key) {
  if (std::find(a.unsupported_precisions.begin(), a.unsupported_precisions.end(), key) !=
      a.unsupported_precisions.end())
    return "n/s";
  auto it = a.dense_peak.find(key);
  if (it == a.dense_peak.end()) return kUnknown;
  return in_unit(it->second, kTera);
}

const char* topology_name(IntraNodeTopology t) {
  switch (t) {
    case IntraNodeTopology::nvswitch:
      return "nvswitch";
    case IntraNodeTopology::full_mesh:
      return "full-mesh";
    case IntraNodeTopology::pcie_switch_p2p:
      return "pcie-p2p";
    case IntraNodeTopology::pcie_via_cpu:
      return "pcie-via-cpu";
    case IntraNodeTopology::nvlink_bridge:
      return "nvlink-bridge";
  }
  return "?";
}

void list_accelerators(const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& a : c.accelerators()) {
    rows.push_back({a.id, fmt::format("{}", fmt::join(a.aliases, ",")), memory_cell(a),
                    in_unit(a.memory_bandwidth, kGiga), peak_cell(a, "bf16"), peak_cell(a, "fp8"),
                    in_unit(a.scaleup_bandwidth_per_direction, kGiga), in_unit(a.tdp, 1.0),
                    a.price ? fmt::format("{:g}", a.price->value()) : kUnknown,
                    text_or_unknown(a.confidence)});
  }
  fmt::print(
      "Accelerators ({}): dense peaks, decimal units except memory (GiB = 2^30 bytes, as the "
      "vendor means it); n/s = not supported\n",
      rows.size());
  print_table({"ID", "ALIASES", "MEMORY", "MEM GB/s", "BF16 TFLOP/s", "FP8 TFLOP/s",
               "SCALE-UP GB/s/dir", "TDP W", "PRICE $", "CONFIDENCE"},
              rows);
}

void list_nodes(const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : c.nodes()) {
    rows.push_back({n.id, n.accelerator, fmt::format("{}", n.devices), topology_name(n.topology),
                    fmt::format("{:g}", n.device_link_bandwidth_per_direction.value() / kGiga),
                    fmt::format("{} x {:g}", n.nics, n.nic_bandwidth_per_direction.value() / kGiga),
                    n.name});
  }
  fmt::print("Nodes ({})\n", rows.size());
  print_table(
      {"ID", "ACCELERATOR", "DEVICES", "TOPOLOGY", "LINK GB/s/dir", "NICS x GB/s/dir", "NAME"},
      rows);
}

void list_fabrics(const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : c.fabrics()) {
    rows.push_back({f.id, f.technology,
                    fmt::format("{:g}", f.port_bandwidth_per_direction.value() / kGiga),
                    fmt::format("{}", f.tiers), fmt::format("{:g}:1", f.oversubscription),
                    f.rail_optimized ? "yes" : "no", f.name});
  }
  fmt::print("Fabrics ({})\n", rows.size());
  print_table({"ID", "TECHNOLOGY", "PORT GB/s/dir", "TIERS", "OVERSUB", "RAILS", "NAME"}, rows);
}

void list_hosts(const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : c.hosts()) {
    const auto bw = h.memory_bandwidth();
    const auto peak = h.peak(Precision::int8);
    rows.push_back({h.id, fmt::format("{}", fmt::join(h.aliases, ", ")), h.kind,
                    fmt::format("{}", h.cores()), h.memory_type,
                    bw ? fmt::format("{:.1f}", bw->value() / kGiga) : kUnknown,
                    peak ? fmt::format("{:.1f} ({})", peak->value() / kTera, h.peak_path(Precision::int8))
                         : kUnknown,
                    h.pcie_generation ? fmt::format("Gen{}", *h.pcie_generation) : kUnknown,
                    h.installed_memory() ? fmt::format("{:.0f}", h.installed_memory()->value() / kGiB)
                                         : kUnknown});
  }
  fmt::print("Hosts ({}): per socket; --cpu NxID for N sockets (docs/offload.md)\n", rows.size());
  print_table({"ID", "ALIASES", "KIND", "CORES", "DRAM", "DRAM GB/s", "GEMM TOPS (path)", "PCIE",
               "INSTALLED GiB"},
              rows);
}

void list_models(const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : c.models()) {
    rows.push_back({m.id, m.family, fmt::format("{}", m.layers), fmt::format("{}", m.hidden),
                    fmt::format("{}/{}", m.heads, m.kv_heads),
                    m.is_moe() ? fmt::format("{} top-{}", m.moe.experts, m.moe.top_k) : "dense",
                    m.published_total_params
                        ? fmt::format("{:.4g}", *m.published_total_params / 1e9)
                        : kUnknown,
                    m.name});
  }
  fmt::print("Models ({})\n", rows.size());
  print_table(
      {"ID", "FAMILY", "LAYERS", "HIDDEN", "HEADS/KV", "EXPERTS", "PARAMS B (published)", "NAME"},
      rows);
}

int run_list(const Catalog& c, const CatalogOptions& o, bool json) {
  const bool all = o.section == "all";
  const bool gpus = all || o.section == "gpus" || o.section == "accelerators";
  if (json) {
    // The shape of a catalog file, so the output can be edited and fed back with --catalog.
    Json out = Json::object();
    if (gpus) {
      out["accelerators"] = Json::array();
      for (const auto& a : c.accelerators()) out["accelerators"].push_back(accelerator_to_json(a));
    }
    if (all || o.section == "nodes") {
      out["nodes"] = Json::array();
      for (const auto& n : c.nodes()) out["nodes"].push_back(node_to_json(n));
    }
    if (all || o.section == "fabrics") {
      out["fabrics"] = Json::array();
      for (const auto& f : c.fabrics()) out["fabrics"].push_back(fabric_to_json(f));
    }
    if (all || o.section == "hosts") {
      out["hosts"] = Json::array();
      for (const auto& h : c.hosts()) out["hosts"].push_back(host_to_json(h));
    }
    if (all || o.section == "models") {
      out["models"] = Json::array();
      for (const auto& m : c.models()) out["models"].push_back(model_to_json(m));
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  bool first = true;
  auto section = [&](bool on, void (*print)(const Catalog&)) {
    if (!on) return;
    if (!first) fmt::print("\n");
    first = false;
    print(c);
  };
  section(gpus, list_accelerators);
  section(all || o.section == "nodes", list_nodes);
  section(all || o.section == "fabrics", list_fabrics);
  section(all || o.section == "hosts", list_hosts);
  section(all || o.section == "models", list_models);
  return 0;
}

void show_accelerator(const Accelerator& a, const cost::PriceBook& book) {
  auto row = [](const char* label, const std::string& value) {
    fmt::print("  {:<22}{}\n", label, value);
  };
  fmt::print("{} ({}): accelerator\n", a.id, text_or_unknown(a.name));
  row("aliases", a.aliases.empty() ? "-" : fmt::format("{}", fmt::join(a.aliases, ", ")));
  row("vendor", text_or_unknown(a.vendor));
  row("architecture", text_or_unknown(a.arch));
  row("form factor", text_or_unknown(a.form_factor));
  row("memory", a.memory ? fmt::format("{} {} ({:.4g} GB)", memory_cell(a), a.memory_type,
                                        a.memory->value() / kGiga)
                         : kUnknown);
  if (!a.memory_unit_basis.empty()) row("memory unit", a.memory_unit_basis);
  if (a.memory_reported)
    row("driver reports", fmt::format("{:.0f} MiB = {:.2f} GiB (what engines size their KV cache "
                                      "against)",
                                      a.memory_reported->value() / kMiB,
                                      a.memory_reported->value() / kGiB));
  row("memory bandwidth", a.memory_bandwidth
                              ? fmt::format("{:g} GB/s", a.memory_bandwidth->value() / kGiga)
                              : kUnknown);
  if (a.memory_bandwidth) {
    // What infer, simulate and plan stream at before an engine's own kernel share (docs/infer.md
    // "memory_bandwidth_fraction"), with the table's or the vendor prior's evidence.
    const perf::EfficiencyPrior prior = perf::efficiency_for(perf::default_efficiency(), a, Precision::bf16);
    const double fraction = prior.memory_bandwidth_fraction;
    row("achievable bandwidth",
        fmt::format("{:.0f} GB/s ({:g} x {:g} GB/s; source: {})", fraction * a.memory_bandwidth->value() / kGiga,
                    fraction, a.memory_bandwidth->value() / kGiga,
                    prior.calibrated ? perf::default_efficiency().memory_bandwidth_fraction.evidence
                                     : prior.source));
  }
  fmt::print("  dense peak (no sparsity)\n");
  for (const char* key : {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"}) {
    const std::string unit = key[0] == 'i' ? "TOPS" : "TFLOP/s";
    std::string v = peak_cell(a, key);
    if (v == "n/s") {
      v = "not supported";
    } else if (v != kUnknown) {
      v += " " + unit;
      if (auto acc = a.peak_accumulate.find(key); acc != a.peak_accumulate.end())
        v += fmt::format(" ({} accumulate)", acc->second);
      if (auto f32 = a.fp32_accumulate_peak.find(key); f32 != a.fp32_accumulate_peak.end())
        v += fmt::format("; {:g} {} with fp32 accumulate, the rate GEMMs are timed at",
                         f32->second.value() / kTera, unit);
    }
    fmt::print("    {:<20}{}\n", key, v);
  }
  if (!a.dense_method.empty()) row("peak basis", a.dense_method);
  row("scale-up link", text_or_unknown(a.scaleup_interconnect));
  // A card without a scale-up link (PCIe-only) has no scale-up bandwidth rather than an unknown
  // one.
  const bool no_scaleup = a.scaleup_interconnect.rfind("none", 0) == 0;
  row("scale-up bandwidth", a.scaleup_bandwidth_per_direction
                                ? fmt::format("{:g} GB/s per direction",
                                              a.scaleup_bandwidth_per_direction->value() / kGiga)
                                : (no_scaleup ? "none (PCIe only)" : kUnknown));
  if (a.scaleup_bandwidth_published)
    row("  as published",
        fmt::format("{:g} GB/s {}", a.scaleup_bandwidth_published->value() / kGiga,
                    a.scaleup_bandwidth_direction));
  row("host link", text_or_unknown(a.host_link));
  row("host bandwidth",
      a.host_bandwidth_per_direction
          ? fmt::format("{:g} GB/s per direction", a.host_bandwidth_per_direction->value() / kGiga)
          : kUnknown);
  row("compute units", a.compute_units ? fmt::format("{}", *a.compute_units) : kUnknown);
  row("TDP", a.tdp ? fmt::format("{:g} W", a.tdp->value()) : kUnknown);
  row("year", a.year ? fmt::format("{}", *a.year) : kUnknown);
  // The price costs are computed with (cost::device_capex), so this face and plan/compare agree.
  std::string price = kUnknown;
  if (const cost::SourcedValue capex = cost::device_capex(a, book); capex.known()) {
    const bool own_row = a.price && a.price->value() == *capex.value;
    price = fmt::format("${:g}{}", *capex.value, own_row ? "" : " (price book)");
    if (own_row && a.price_low && a.price_high)
      price += fmt::format(" (range ${:g} to ${:g})", a.price_low->value(), a.price_high->value());
    if (!capex.source.empty()) price += "; source: " + capex.source;
    if (!capex.date.empty()) price += " (" + capex.date + ")";
  }
  row("price", price);
  row("confidence", text_or_unknown(a.confidence));
  if (!a.notes.empty()) row("notes", a.notes);
  if (!a.figure_sources.empty()) {
    fmt::print("  figure sources (per figure: confidence, published range, source)\n");
    for (const auto& [key, f] : a.figure_sources) {
      const std::string range =
          f.low && f.high ? fmt::format(", range {:g}-{:g}", *f.low, *f.high) : std::string();
      fmt::print("    {:<20}{}{}: {}\n", key, f.confidence.empty() ? "unrated" : f.confidence, range,
                 f.source);
    }
  }
  fmt::print("  sources\n");
  for (size_t i = 0; i < a.sources.size(); ++i) fmt::print("    [{}] {}\n", i + 1, a.sources[i]);
  if (a.sources.empty()) fmt::print("    none given\n");
}

// Any other entry: its catalog fields as "key  value" lines, the values in one column two spaces
// past the longest key; null printed as unknown.
void show_generic(const std::string& kind, const Json& entry) {
  fmt::print("{}: {}\n", entry.value("id", std::string("?")), kind);
  size_t width = 24;
  for (const auto& [key, value] : entry.items()) width = std::max(width, key.size() + 2);
  for (const auto& [key, value] : entry.items()) {
    if (key == "id") continue;
    std::string v;
    if (value.is_null()) {
      v = kUnknown;
    } else if (value.is_string()) {
      v = value.get<std::string>();
    } else {
      v = value.dump();
    }
    fmt::print("  {:<{}}{}\n", key, width, v);
  }
}

// Parameter counts computed from the shapes (model/counts.h), next to what the publisher states.
Json parameter_json(const ModelSpec& m) {
  const ParameterCounts p = count_parameters(m);
  Json j = {{"total", p.total},
            {"active_per_token", p.active},
            {"embedding", p.embedding},
            {"lm_head", p.lm_head},
            {"attention", p.attention},
            {"dense_mlp", p.dense_mlp},
            {"routed_experts", p.routed_experts},
            {"shared_experts", p.shared_experts},
            {"router", p.router},
            {"norms", p.norms}};
  j["published_total"] = m.published_total_params ? Json(*m.published_total_params) : Json(nullptr);
  j["published_active"] =
      m.published_active_params ? Json(*m.published_active_params) : Json(nullptr);
  return j;
}

void print_parameters(const ModelSpec& m) {
  const ParameterCounts p = count_parameters(m);
  auto vs = [](double computed, const std::optional<double>& published) {
    if (!published) return fmt::format("{:.4g} B (publisher: unknown)", computed / 1e9);
    return fmt::format("{:.4g} B (publisher: {:.4g} B, {:+.2f} %)", computed / 1e9,
                       *published / 1e9, (computed / *published - 1) * 100);
  };
  fmt::print("  parameters\n");
  fmt::print("    {:<24}{}\n", "total", vs(p.total, m.published_total_params));
  fmt::print("    {:<24}{}\n", "active per token",
             vs(p.active, m.is_moe() ? m.published_active_params : m.published_total_params));
}

int run_show(const Catalog& c, const cost::PriceBook& book, const CatalogOptions& o, bool json) {
  std::string kind;
  Json entry;
  Json price;  // the accelerator's purchase price as costs use it, when known
  if (const auto* a = c.find_accelerator(o.id)) {
    kind = "accelerator";
    entry = accelerator_to_json(*a);
    if (const cost::SourcedValue capex = cost::device_capex(*a, book); capex.known())
      price = {{"capex_usd", *capex.value}, {"source", capex.source}, {"date", capex.date}};
    if (!json) show_accelerator(*a, book);
  } else if (const auto* n = c.find_node(o.id)) {
    kind = "node";
    entry = node_to_json(*n);
  } else if (const auto* f = c.find_fabric(o.id)) {
    kind = "fabric";
    entry = fabric_to_json(*f);
  } else if (const auto* m = c.find_model(o.id)) {
    kind = "model";
    entry = model_to_json(*m);
  } else {
    std::vector<std::string> known = c.accelerator_names();
    for (const auto& names : {c.node_names(), c.fabric_names(), c.model_names()})
      known.insert(known.end(), names.begin(), names.end());
    throw InputError::unknown_name("catalog show ID", o.id, known);
  }
  if (json) {
    Json out = {{"kind", kind}, {"entry", entry}};
    if (kind == "model") out["parameters"] = parameter_json(*c.find_model(o.id));
    if (!price.is_null()) out["price"] = price;
    fmt::print("{}\n", out.dump(2));
  } else if (kind != "accelerator") {
    show_generic(kind, entry);
    if (kind == "model") print_parameters(*c.find_model(o.id));
  }
  return 0;
}

int run_import(const CatalogOptions& o, bool json) {
  const Json config = load_document(o.config_path);
  const ModelSpec m = import_hf_config(config, o.config_path);
  const Json model = model_to_json(m);
  if (json) {
    fmt::print(
        "{}\n",
        Json{{"model", model}, {"parameters", parameter_json(m)}, {"warnings", m.warnings}}.dump(
            2));
    return 0;
  }
  show_generic("model imported from " + o.config_path, model);
  print_parameters(m);
  if (m.warnings.empty()) {
    fmt::print("  no warnings: every field was understood\n");
  } else {
    fmt::print("  warnings ({})\n", m.warnings.size());
    for (const auto& w : m.warnings) fmt::print("    - {}\n", w);
  }
  return 0;
}

}  // namespace

void register_catalog(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand(
      "catalog",
      "What memwall knows by name: accelerators (GPUs/NPUs), nodes, fabrics and models.\n"
      "Values are datasheet figures with their sources; a value no source gives is printed as\n"
      "'unknown', never guessed. Dense peaks exclude structured sparsity; memory and bandwidth "
      "are\n"
      "decimal (1 GB = 1e9 bytes). Add or override entries with --catalog FILE (JSON or YAML).");
  add_global_options(*sub, g);
  sub->require_subcommand(1);
  auto opts = std::make_shared<CatalogOptions>();

  auto* list = sub->add_subcommand("list", "List catalog entries (default: all four sections)");
  list->fallthrough();
  list->add_option("section", opts->section, "gpus | nodes | fabrics | hosts | models | all")
      ->check(CLI::IsMember({"all", "gpus", "accelerators", "nodes", "fabrics", "hosts", "models"}));
  list->callback([&run, &g, opts] {
    run = [&g, opts] { return run_list(Catalog::with_user_files(g.catalog_files), *opts, g.json); };
  });

  auto* show = sub->add_subcommand(
      "show", "Every spec of one entry (accelerator, node, fabric or model) with its sources");
  show->fallthrough();
  show->add_option("id", opts->id, "An id or alias, e.g. h100, nvidia-h100-sxm, llama-3.1-8b")
      ->required();
  show->callback([&run, &g, opts] {
    run = [&g, opts] { return run_show(Catalog::with_user_files(g.catalog_files),
                    cost::PriceBook::with_user_files(g.catalog_files), *opts, g.json); };
  });

  auto* import = sub->add_subcommand(
      "import", "Read a Hugging Face config.json and print what was understood, with warnings");
  import->fallthrough();
  import->add_option("config", opts->config_path, "Path to a Hugging Face config.json")->required();
  import->callback([&run, &g, opts] { run = [&g, opts] { return run_import(*opts, g.json);
};
}  // namespace memwall::cli
);
}

}  // namespace memwall::cli
