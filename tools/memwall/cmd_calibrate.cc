// memwall calibrate: fits the engine parameters that the user's measurement records identify
// (docs/calibrate.md, src/memwall/measure/calibrate.h) and writes the calibration profile every
// face takes with --calibration.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "memwall/core/error.h"
#include "memwall/measure/calibrate.h"
#include "memwall/measure/record.h"
#include "memwall/perf/efficiency.h"

namespace memwall::cli {
namespace {

struct CalibrateCliOptions {
  std::vector<std::string> files;
  std::string out;
};

int run_calibrate(const CalibrateCliOptions& o, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  std::vector<measure::Record> records;
  for (const auto& f : o.files) {
    auto part = measure::parse_measurements(load_document(f), f, *catalog);
    records.insert(records.end(), part.begin(), part.end());
  }
  measure::CalibrateOptions co;
  co.files = o.files;
  const measure::CalibrationFit fit = measure::calibrate(records, *catalog, co);
  // The profile must be one --calibration accepts.
  (void)perf::apply_calibration(perf::default_efficiency(), fit.profile, "the fitted profile");
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    if (!f) throw InputError("--out", o.out, "a writable file path");
    f << fit.profile.dump(2) << "\n";
    f.flush();
    if (!f) throw InputError("--out", o.out, "a writable file path (write failed)");
  }
  if (g.json) {
    Json j = measure::to_json(fit);
    if (!o.out.empty()) j["profile_file"] = o.out;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << measure::to_text(fit);
    if (!o.out.empty())
      std::cout << "profile written to " << o.out << " (use it with --calibration " << o.out
                << ")\n";
  }
  return 0;
}

}  // namespace

void register_calibrate(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand(
      "calibrate",
      "Fit the engine parameters your measurements identify (the compute share its kernels reach,\n"
      "the share of bandwidth its decode streams at, host time per iteration and per running\n"
      "sequence, per-kernel overhead) by robust least squares on the log error of memwall's\n"
      "predictions, and print each parameter before -> after with its 80 % interval, the error of\n"
      "every record before and after, and what the records cannot identify with the run that\n"
      "would. FILE: measurement records (docs/measurements.md). --out writes the profile for\n"
      "--calibration; it records what it was fitted on.");
  add_global_options(*sub, g);
  auto o = std::make_shared<CalibrateCliOptions>();
  sub->add_option("files", o->files, "Measurement record files (memwall-measurements/1)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--out", o->out, "Write the calibration profile (JSON) to this file");
  sub->callback([&run, &g, o] { run = [&g, o] { return run_calibrate(*o, g); }; });
}

}  // namespace memwall::cli
