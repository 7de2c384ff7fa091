// memwall ui: serves the single-page web app and its JSON API on a local port, or writes a static
// HTML report with the default answers preloaded. Parses options and calls memwall::ui.
#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"
#include "memwall/ui/api.h"
#include "memwall/ui/server.h"

namespace memwall::cli {
namespace {

struct UiOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string report;  // write a static HTML report here instead of serving
  std::string calibration;  // a calibration profile every answer applies; "": built-in
};

int run_ui(const UiOptions& o, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  ui::ApiOptions api;
  if (!o.calibration.empty()) {
    // Read once here, so a malformed profile exits 2 before the server listens.
    perf::load_calibration(o.calibration);
    api.calibration = o.calibration;
  }
  if (!o.report.empty()) {
    write_output_file("--report", o.report, ui::static_report(ui::default_answers(*catalog, api)));
    std::cerr << "memwall ui: wrote " << o.report << "\n";
    return 0;
  }
  if (o.port < 0 || o.port > 65535) throw InputError("--port", std::to_string(o.port), "0 to 65535 (0: any free port)");
  ui::Server server(*catalog, {}, api);
  server.run(o.host, o.port, [&o](int port) {
    std::cerr << fmt::format("memwall ui: serving http://{}:{}/ (POST /api/{}); Ctrl-C stops\n", o.host, port,
                             fmt::join(ui::endpoints(), "|"));
  });
  return 0;
}

}  // namespace

void register_ui(CLI::App& app, GlobalOptions& g, Runner& run) {
  static UiOptions o;
  auto* sub = app.add_subcommand(
      "ui", "Local web app, live as inputs change: inference (roofline with the operator table, memory, "
            "batch sweep), training, planner (plans with their binding wall, Pareto), serving (percentiles, KV "
            "over time), network (topology, bus bandwidth, bottleneck), compare (scorecard); English and "
            "Simplified Chinese. Loopback only by default; a port in use is refused (exit 2)");
  add_global_options(*sub, g);
  sub->add_option("--host", o.host, "Address to listen on")->capture_default_str();
  sub->add_option("--port", o.port, "TCP port (0: any free port)")->capture_default_str();
  sub->add_option("--calibration", o.calibration,
                  "A calibration profile (memwall calibrate, memwall probe) that every answer of the page "
                  "and the HTTP API is timed with (infer, train, plan, fleet, compare, simulate), as the "
                  "CLI's --calibration; the page says which profile is applied (docs/ui.md)")
      ->check(CLI::ExistingFile);
  sub->add_option("--report", o.report,
                  "Write a static HTML report (every view's default answers in both languages, charts inline; "
                  "opens offline) and exit");
  sub->callback([&run, &g] { run = [&g] { return run_ui(o, g); }; });
}

}  // namespace memwall::cli
