// Everything memwall knows by name: accelerators, nodes, fabrics and models. Built from the data
// files embedded at build time (data/), then extended or overridden by user files (--catalog FILE).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/host.h"
#include "memwall/hw/node.h"
#include "memwall/model/transformer.h"

namespace memwall {

class Catalog {
 public:
  // The built-in catalog from the embedded data files, parsed once on first use and kept for the
  // life of the program, so references into it never dangle. Copy it to extend it.
  static const Catalog& builtin();
  // Built-in plus each user file in order; later entries replace earlier ones with the same id.
  static Catalog with_user_files(const std::vector<std::string>& paths);

  // Adds the entries of one JSON/YAML document (keys: accelerators, nodes, fabrics, models, hosts; also
  // accepted and ignored here: description, prices). An entry replaces the one with the same id; a
  // replacement without "aliases" keeps the old aliases. An accelerator entry with
  // "extends": "<id or alias>" starts from that entry and overrides only the fields it gives.
  // Errors (InputError) name `origin`, the entry and the field.
  void load(const Json& doc, const std::string& origin);
  void load_file(const std::string& path);

  // Lookup by id or alias, case-insensitive; InputError with the nearest names otherwise.
  const Accelerator& accelerator(std::string_view name) const;
  const Node& node(std::string_view name) const;
  const Fabric& fabric(std::string_view name) const;
  // A host (CPU, DRAM, PCIe, NVMe) by id or alias.
  const Host& host(std::string_view name) const;
  // A built-in model id, or a path to a Hugging Face config.json (imported on the fly).
  ModelSpec model(std::string_view name_or_path) const;

  // As above, but nullptr for an unknown name.
  const Accelerator* find_accelerator(std::string_view name) const;
  const Node* find_node(std::string_view name) const;
  const Fabric* find_fabric(std::string_view name) const;
  const ModelSpec* find_model(std::string_view name) const;
  // The zoo model whose hf_repos lists `repo` ("meta-llama/Llama-3.1-8B-Instruct", or the name
  // part alone when one model's repositories have it), case-insensitive; nullptr when none.
  const ModelSpec* find_model_by_hf_repo(std::string_view repo) const;
  const Host* find_host(std::string_view name) const;

  // Every id and alias of one kind, in catalog order (for messages and listings).
  std::vector<std::string> accelerator_names() const;
  std::vector<std::string> node_names() const;
  std::vector<std::string> fabric_names() const;
  std::vector<std::string> model_names() const;
  std::vector<std::string> host_names() const;

  const std::vector<Accelerator>& accelerators() const { return accelerators_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Fabric>& fabrics() const { return fabrics_; }
  const std::vector<ModelSpec>& models() const { return models_; }
  const std::vector<Host>& hosts() const { return hosts_; }

  void add(Accelerator a);
  void add(Node n);
  void add(Fabric f);
  void add(ModelSpec m);
  void add(Host h);

 private:
  void add_accelerator_entry(const Json& entry, const std::string& where);

  std::vector<Accelerator> accelerators_;
  std::vector<Node> nodes_;
  std::vector<Fabric> fabrics_;
  std::vector<ModelSpec> models_;
  std::vector<Host> hosts_;
  // Lower-cased id (for accelerators and hosts also each alias) -> position in its list, so a
  // lookup and add()'s name-clash check cost O(1): with linear scans a 20,000-entry file took
  // 14.7 s to merge (bench/RESULTS.md).
  using NameIndex = std::unordered_map<std::string, size_t>;
  NameIndex accelerator_index_;
  NameIndex node_index_;
  NameIndex fabric_index_;
  NameIndex model_index_;
  NameIndex host_index_;
};

}  // namespace memwall
