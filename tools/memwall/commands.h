// The subcommands of the memwall CLI. Each file parses its options, calls the library and prints
// the answer; none computes anything of its own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "memwall/catalog/catalog.h"
#include "memwall/i18n/messages.h"

namespace memwall::cli {

// Options every subcommand shares.
struct GlobalOptions {
  std::vector<std::string> catalog_files;  // --catalog FILE (repeatable): user hardware/models/prices
  bool json = false;                       // --json: one JSON object on stdout, nothing else there
  std::string lang;                        // --lang en|zh (default: LC_ALL / LC_MESSAGES / LANG)
  i18n::Lang output_lang = i18n::Lang::en;  // that language, resolved before the command runs
};

// Each register_* adds one subcommand to `app`; its callback runs when the subcommand is chosen
// and returns the process exit status.
using Runner = std::function<int()>;
void register_catalog(CLI::App& app, GlobalOptions& g, Runner& run);
void register_infer(CLI::App& app, GlobalOptions& g, Runner& run);
void register_train(CLI::App& app, GlobalOptions& g, Runner& run);
void register_simulate(CLI::App& app, GlobalOptions& g, Runner& run);
void register_plan(CLI::App& app, GlobalOptions& g, Runner& run);
void register_net(CLI::App& app, GlobalOptions& g, Runner& run);
void register_compare(CLI::App& app, GlobalOptions& g, Runner& run);
void register_probe(CLI::App& app, GlobalOptions& g, Runner& run);
void register_monitor(CLI::App& app, GlobalOptions& g, Runner& run);
void register_ui(CLI::App& app, GlobalOptions& g, Runner& run);
void register_validate(CLI::App& app, GlobalOptions& g, Runner& run);
void register_calibrate(CLI::App& app, GlobalOptions& g, Runner& run);
void register_import(CLI::App& app, GlobalOptions& g, Runner& run);

// "a,b,,c" -> {a, b, c}: the comma-separated list options (--gpus, --vendors ...).
std::vector<std::string> split_list(const std::string& s);

// Refuses a list option given with no item (--gpus "" would otherwise mean "all"); `what` names
// the items, e.g. "accelerator ids or aliases".
CLI::Validator non_empty_list(const std::string& what);
// Writes `text` to the file `path` named by `option` (--out, --report, --timeseries): InputError
// naming the option when the file cannot be opened or the write or its flush fails (a full disk).
void write_output_file(const std::string& option, const std::string& path, std::string_view text);

// The catalog a command works on: the built-in one, or a copy extended by the --catalog files.
// Not copyable (it may point into itself).
class CommandCatalog {
 public:
  explicit CommandCatalog(const GlobalOptions& g)
      : owned_(g.catalog_files.empty() ? Catalog() : Catalog::with_user_files(g.catalog_files)),
        catalog_(g.catalog_files.empty() ? &Catalog::builtin() : &owned_) {}
  CommandCatalog(const CommandCatalog&) = delete;
  CommandCatalog& operator=(const CommandCatalog&) = delete;
  const Catalog& operator*() const { return *catalog_; }
  const Catalog* operator->() const { return catalog_; }

 private:
  Catalog owned_;
  const Catalog* catalog_;
};

// Adds --json and --catalog to a subcommand.
void add_global_options(CLI::App& sub, GlobalOptions& g);

// Adds --quality and --min-recovery (plan infer, plan train, compare; docs/plan.md "Model quality").
void add_quality_options(CLI::App* sub, std::string& level, std::optional<double>& min_recovery);

}  // namespace memwall::cli
