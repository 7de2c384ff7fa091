// memwall: what hardware an LLM workload needs, how fast it runs, what it costs, and why a live
// cluster is slower than it should be. This file only dispatches; see commands.h.
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/core/error.h"
#include "memwall/core/version.h"
#include "memwall/i18n/messages.h"

namespace memwall::cli {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

void add_global_options(CLI::App& sub, GlobalOptions& g) {
  sub.add_flag("--json", g.json, "Print one JSON object on stdout and nothing else there");
  sub.add_option("--catalog", g.catalog_files,
                 "Extra catalog file (JSON or YAML: accelerators, nodes, fabrics, models, prices); "
                 "repeatable, later files override earlier entries with the same id")
      ->allow_extra_args(false)  // one file per --catalog, so positionals after it stay positionals
      ->check(CLI::ExistingFile);
  sub.add_option("--lang", g.lang, "Language of messages: en or zh (default: from LC_ALL, LC_MESSAGES or LANG)");
}

void add_quality_options(CLI::App* sub, std::string& level, std::optional<double>& min_recovery) {
  sub->add_option("--quality", level,
                  "Model quality to keep: lossless (bf16/fp16 or >= 99.9 % recovery), near-lossless (>= 99 % "
                  "on every published benchmark), any (unknown formats flagged); docs/plan.md \"Model quality\"")
      ->capture_default_str();
  sub->add_option("--min-recovery", min_recovery,
                  "Keep only formats whose published recovery (%) is at least this (replaces --quality's floor)");
}

}  // namespace memwall::cli

int main(int argc, char** argv) {
  using namespace memwall;
  CLI::App app{
      "memwall: the memory wall, interconnect and utilisation of LLM training and inference.\n"
      "Answers what hardware a workload needs, how fast it runs, what it costs, and why a running\n"
      "cluster is slower than it should be."};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("memwall {} (commit {})", version(), build_commit()));
  cli::GlobalOptions g;
  cli::Runner run;
  cli::register_plan(app, g, run);
  cli::register_infer(app, g, run);
  cli::register_train(app, g, run);
  cli::register_simulate(app, g, run);
  cli::register_net(app, g, run);
  cli::register_compare(app, g, run);
  cli::register_catalog(app, g, run);
  cli::register_validate(app, g, run);
  cli::register_calibrate(app, g, run);
  cli::register_probe(app, g, run);
  cli::register_monitor(app, g, run);
  cli::register_ui(app, g, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "memwall: " << e.what() << "\n";
    return kExitBadInput;
  }
  i18n::Lang lang = i18n::lang_from_environment();
  if (!g.lang.empty()) {
    const auto asked = i18n::parse_lang(g.lang);
    if (!asked) {
      std::cerr << "memwall: bad input: " << InputError("--lang", g.lang, "en, zh").what() << "\n";
      return kExitBadInput;
    }
    lang = *asked;
  }
  try {
    return run ? run() : kExitBadInput;
  } catch (const InputError& e) {
    std::cerr << "memwall: " << i18n::localize(std::string("bad input: ") + e.what(), lang) << "\n";
    return kExitBadInput;
  } catch (const InfeasibleError& e) {
    std::cerr << "memwall: " << i18n::localize(std::string("cannot run: ") + e.what(), lang) << "\n";
    return kExitInfeasible;
  } catch (const std::bad_alloc&) {
    std::cerr << "memwall: out of memory (input too large?)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "memwall: internal error: " << e.what() << "\n";
    return 1;
  }
}
