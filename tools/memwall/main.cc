// memwall: what hardware an LLM workload needs, how fast it runs, what it costs, and why a live
// cluster is slower than it should be. This file only dispatches; see commands.h.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <system_error>

#include <unistd.h>

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

CLI::Validator non_empty_list(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) {
        return split_list(text).empty()
                   ? fmt::format("value '{}' is not allowed; allowed: a comma list of {}", text,
                                 what)
                   : std::string();
      },
      "");
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

void add_quality_options(CLI::App* sub, std::string& level, std::optional<double>& min_recovery) {
  sub->add_option("--quality", level,
                  "Model quality to keep: lossless (bf16/fp16 or >= 99.9 % recovery), near-lossless (>= 99 % "
                  "on every published benchmark), any (unknown formats flagged); docs/plan.md \"Model quality\"")
      ->capture_default_str();
  sub->add_option("--min-recovery", min_recovery,
                  "Keep only formats whose published recovery (%) is at least this (replaces --quality's floor)");
}

namespace {

// CLI11's own checks let "nan" through a Range, read "-1" into an unsigned as 2^64 - 1 and
// report an overflow as "Could not convert" with no range; these replace them for every
// numeric option. The option's own range is checked by the library (InputError names it).
std::string check_number(const std::string& type, const std::string& text) {
  const auto refuse = [&](const std::string& allowed) {
    return fmt::format("value '{}' is not allowed; allowed: {}", text, allowed);
  };
  if (type == "FLOAT") {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return refuse("a number");
    if (!std::isfinite(v)) return refuse("a finite number");
    return {};
  }
  const bool is_unsigned = type == "UINT";
  const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  std::from_chars_result r{};
  if (is_unsigned) {
    uint64_t v = 0;
    r = std::from_chars(first, last, v);
  } else {
    int64_t v = 0;
    r = std::from_chars(first, last, v);
  }
  const std::string range =
      is_unsigned ? fmt::format("a whole number from 0 to {}", std::numeric_limits<uint64_t>::max())
                  : fmt::format("a whole number from {} to {}", std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max());
  if (first == last || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range) ||
      (r.ec == std::errc() && r.ptr != last))
    return refuse(range);
  if (r.ec == std::errc::result_out_of_range) return refuse(range);
  return {};
}

}  // namespace

void check_numeric_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const std::string full = opt->get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    opt->check(CLI::Validator([type](std::string& text) { return check_number(type, text); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_numeric_options(*sub);
}

// "Could not convert: --tp = 2147483648" after check_number passed it: a whole number that fits
// 64 bits but not the option's 32-bit integer.
std::string conversion_message(const std::string& what) {
  const std::string prefix = "Could not convert: ";
  const size_t eq = what.find(" = ");
  if (what.rfind(prefix, 0) != 0 || eq == std::string::npos) return what;
  return InputError(what.substr(prefix.size(), eq - prefix.size()), what.substr(eq + 3),
                    fmt::format("a whole number from {} to {}", std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max()))
      .what();
}

namespace {

// Exit status of a command whose output could not be written (stdout on a full disk).
constexpr int kExitOutputFailed = 1;

// Commands print to stdout through fmt::print and std::cout (synchronised with C stdio), so a full
// disk may show only in the final flush; the exit status is decided after it.
int with_output_flushed(int code) {
  // errno is cleared before the first flush: with std::cout synchronised with stdio, that flush
  // is the write that fails, and its errno is the reason.
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  int error = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return code;
  if (error == 0) {
    // The write that failed came earlier (output larger than the buffer) and its errno is gone:
    // one more byte to the failed stream asks the system again for the reason.
    std::clearerr(stdout);
    std::fputc('\n', stdout);
    errno = 0;
    std::fflush(stdout);
    error = errno;
  }
  std::cerr << "memwall: cannot write the output to stdout: "
            << (error ? std::strerror(error) : "write error") << "\n";
  return kExitOutputFailed;
}

// The reports that read as text (not the servers, the live monitor or the file emitters' output):
// under --lang zh their lines go through the message catalog.
// Files a command writes to stdout (`plan infer --emit/--benchmark`: shell scripts, Kubernetes
// YAML; `net --csv` rows; `monitor --emit-rules`: Prometheus rules) are not reports: their lines
// stay as written.
bool emits_files(const CLI::App& app) {
  for (const char* flag : {"--emit", "--benchmark", "--csv", "--emit-rules"}) {
    const CLI::Option* o = app.get_option_no_throw(flag);
    if (o && o->count() > 0) return true;
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (emits_files(*sub)) return true;
  return false;
}

bool localized_report(const CLI::App& app, const GlobalOptions& g, i18n::Lang lang) {
  if (lang == i18n::Lang::en || g.json || emits_files(app)) return false;
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const char* name : {"plan", "infer", "train", "simulate", "net", "compare"})
      if (sub->get_name() == name) return true;
    // `monitor --replay` and `--prometheus`: one closing report (means, the advisor, the
    // engines' operating points). A live session prints as it samples; it localises its closing
    // advice itself (cmd_monitor.cc).
    if (sub->get_name() == "monitor" &&
        (sub->count("--replay") > 0 || sub->count("--prometheus") > 0))
      return true;
  }
  return false;
}

// Runs `run` with stdout sent to a temporary file, then writes that text to stdout localised
// line by line (i18n::localize_lines); on an exception the captured text is written too, then
// the exception goes on.
int run_localized(const Runner& run, i18n::Lang lang) {
  std::cout.flush();
  std::fflush(stdout);
  std::FILE* captured = std::tmpfile();
  const int saved = captured ? ::dup(STDOUT_FILENO) : -1;
  if (saved < 0 || ::dup2(::fileno(captured), STDOUT_FILENO) < 0) {
    if (captured) std::fclose(captured);
    if (saved >= 0) ::close(saved);
    return run ? run() : kExitBadInput;  // no temporary file: the report stays English
  }
  auto restore = [&] {
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
    std::string text;
    std::rewind(captured);
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, captured)) > 0;) text.append(buf, n);
    std::fclose(captured);
    const std::string out = i18n::localize_lines(text, lang);
    std::fwrite(out.data(), 1, out.size(), stdout);
  };
  int code = 0;
  try {
    code = run ? run() : kExitBadInput;
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return code;
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
  cli::register_calibrate(app, g, run);
  cli::register_import(app, g, run);
  cli::register_probe(app, g, run);
  cli::register_monitor(app, g, run);
  cli::register_ui(app, g, run);
  cli::check_numeric_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ConversionError& e) {
    std::cerr << "memwall: bad input: " << cli::conversion_message(e.what()) << "\n";
    return kExitBadInput;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "memwall: bad input: " << e.what() << "\n";
    return kExitBadInput;
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
  g.output_lang = lang;
  try {
    if (cli::localized_report(app, g, lang))
      return cli::with_output_flushed(cli::run_localized(run, lang));
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
