// memwall: what hardware an LLM workload needs, how fast it runs, what it costs, and why a live
// cluster is slower than it should be. This file only dispatches; see commands.h.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

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

void write_output_file(const std::string& option, const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size())).flush();
  if (!out)
    throw InputError(option, path, fmt::format("a writable file path ({})", std::strerror(errno)));
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

namespace {

// Exit status of a command whose output could not be written (stdout on a full disk).
constexpr int kExitOutputFailed = 1;

// Commands print to stdout through fmt::print and std::cout (synchronised with C stdio), so a full
// disk may show only in the final flush; the exit status is decided after it.
int with_output_flushed(int code) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return code;
  std::cerr << "memwall: cannot write the output to stdout: "
            << (error ? std::strerror(error) : "write error") << "\n";
  return kExitOutputFailed;
}

}  // namespace
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
    return cli::with_output_flushed(run ? run() : kExitBadInput);
  } catch (const InputError& e) {
    std::cerr << "memwall: " << i18n::localize(std::string("bad input: ") + e.what(), lang) << "\n";
    return kExitBadInput;
  } catch (const InfeasibleError& e) {
    std::cerr << "memwall: " << i18n::localize(std::string("cannot run: ") + e.what(), lang) << "\n";
    return kExitInfeasible;
  } catch (const std::system_error& e) {  // fmt::print's "cannot write to file: ..."
    std::cerr << "memwall: " << e.what() << "\n";
    return cli::kExitOutputFailed;
  } catch (const std::bad_alloc&) {
    std::cerr << "memwall: out of memory (input too large?)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "memwall: internal error: " << e.what() << "\n";
    return 1;
  }
}
