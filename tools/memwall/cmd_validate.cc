// memwall validate: runs published, measured cases and reports each prediction's error and the
// median / 90th-percentile absolute percentage error per kind (src/memwall/validate/runner.h).
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/core/version.h"
#include "memwall/validate/breakdown.h"
#include "memwall/validate/calibrate_on.h"
#include "memwall/validate/runner.h"

namespace memwall::cli {
namespace {

struct ValidateOptions {
  std::string file;
  std::string kind;
  bool markdown = false;
  bool fit_uncertainty = false;
  int calibrate_on = 0;  // 0: off
  bool in_sample = false;
  bool profile_drift = false;
};

int run_validate(const ValidateOptions& o, const GlobalOptions& g) {
  const Catalog catalog = Catalog::with_user_files(g.catalog_files);
  if (o.profile_drift) {
    if (o.calibrate_on > 0 || o.markdown || o.fit_uncertainty || (!o.kind.empty() && o.kind != "inference"))
      throw InputError("--profile-drift", "given",
                       "alone (inference cases; its report is text or --json)");
    const Json cases = o.file.empty() ? validate::builtin_cases("dev-cases.json") : load_document(o.file);
    const validate::ProfileDriftReport r = validate::profile_drift(cases, catalog);
    std::cout << (g.json ? validate::to_json(r).dump(2) + "\n" : validate::to_text(r));
    return 0;
  }
  if (o.in_sample && o.calibrate_on < 1)
    throw InputError("--in-sample", "given", "only with --calibrate-on K");
  if (o.calibrate_on > 0) {
    // Engine parameters for inference, framework parameters for training (docs/calibrate.md);
    // other kinds have no stack to calibrate.
    if (!o.kind.empty() && o.kind != "inference" && o.kind != "training")
      throw InputError("--kind", o.kind,
                       "inference (or no --kind) or training with --calibrate-on");
    if (o.fit_uncertainty)
      throw InputError("--fit-uncertainty", "given",
                       "not with --calibrate-on (its report is text, --markdown or --json)");
    const Json cases = o.file.empty() ? validate::builtin_cases("dev-cases.json") : load_document(o.file);
    const validate::CalibrateOnReport r = validate::calibrate_on(
        cases, catalog, o.calibrate_on, o.kind.empty() ? "inference" : o.kind, o.in_sample);
    std::cout << (g.json       ? validate::to_json(r).dump(2) + "\n"
                  : o.markdown ? validate::to_markdown(r)
                               : validate::to_text(r));
    return 0;
  }
  // No file: the repository's own published cases, compiled into the binary.
  const validate::Report r =
      o.file.empty() ? validate::run_cases(validate::builtin_cases("dev-cases.json"), catalog, o.kind)
                     : validate::run_file(o.file, catalog, o.kind);
  if (o.fit_uncertainty) {
    const Json provenance{
        {"command", "memwall validate" + (o.file.empty() ? std::string() : " " + o.file) +
                        " --fit-uncertainty > data/uncertainty.json"},
        {"cases", o.file.empty() ? "validation/dev-cases.json (built in)" : o.file},
        {"memwall", fmt::format("{} (commit {})", version(), build_commit())}};
    // The scatter of answers after a calibration on the first 2 cases of each group
    // (uncertainty::CalibratedScatter), for the intervals of calibrated stacks.
    std::map<std::string, uncertainty::CalibratedScatter> calibrated;
    const Json cases =
        o.file.empty() ? validate::builtin_cases("dev-cases.json") : load_document(o.file);
    if (cases.is_array())
      for (const char* kind : {"inference", "training"})
        if (o.kind.empty() || o.kind == kind)
          if (const auto s = validate::calibrate_on(cases, catalog, 2, kind).scatter; s.known())
            calibrated[kind] = s;
    std::cout << validate::fit_uncertainty(r, provenance, calibrated).dump(2) << "\n";
  } else if (g.json)
    std::cout << validate::to_json(r).dump(2) << "\n";
  else if (o.markdown)
    std::cout << validate::to_markdown(r);
  else
    std::cout << validate::to_text(r);
  return 0;
}

}  // namespace

void register_validate(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand(
      "validate",
      "Predict published, measured cases and report\n"
      "predicted vs measured, the absolute percentage error |p - m| / m per case, and the median\n"
      "and 90th percentile (nearest rank) per kind; cases that cannot be expressed are listed with\n"
      "the reason. With no file, the repository's own cases (validation/dev-cases.json, built\n"
      "into the binary); with FILE, any file of that format (e.g. validation/extra-cases.json).\n"
      "Then per kind, source and regime (bound, hardware, precision, engine, offload, scale,\n"
      "ceilings, datasheet): the median signed error (p - m) / m, the median and p90 |error|, and\n"
      "the coverage of the 80 % intervals fitted without the case's source (leave-one-source-out)\n"
      "with their median width. --fit-uncertainty prints the uncertainty model fitted on the\n"
      "cases (data/uncertainty.json; docs/validate.md says how to refit).");
  add_global_options(*sub, g);
  auto o = std::make_shared<ValidateOptions>();
  sub->add_option("file", o->file,
                  "Cases file (JSON array); default: the built-in validation/dev-cases.json")
      ->check(CLI::ExistingFile);
  sub->add_option("--kind", o->kind, "Only this kind: inference, training, microbench, memory")
      ->check(CLI::IsMember({"inference", "training", "microbench", "memory", "offload"}));
  sub->add_option(
      "--calibrate-on", o->calibrate_on,
      "Within each publication and (accelerator, engine, precision) group of the\n"
      "inference cases (--kind training: (accelerator, framework, precision) of the\n"
      "training cases), fit the engine's (framework's) parameters on the first K cases\n"
      "(memwall calibrate) and predict the rest; report both errors (docs/validate.md)");
  sub->add_flag("--in-sample", o->in_sample,
                "With --calibrate-on K: fit each group on all its cases, the predicted ones\n"
                "included, and report the same cases: the floor a fit of the stack parameters\n"
                "reaches on them (an oracle that sees the answers, not a forecast)");
  sub->add_flag("--profile-drift", o->profile_drift,
                "Fit every (engine profile, accelerator) group of the inference cases on all its\n"
                "cases and list each built-in parameter with its fitted value and 80 % interval:\n"
                "outside it, the built-in profile has drifted from its evidence (docs/validate.md)");
  sub->add_flag("--markdown", o->markdown, "Print the report as Markdown (validation/REPORT.md)");
  sub->add_flag("--fit-uncertainty", o->fit_uncertainty,
                "Fit the uncertainty model on these cases and print it (the content of\n"
                "data/uncertainty.json: rebuild afterwards to compile it in)");
  sub->callback([&run, &g, o] { run = [&g, o] { return run_validate(*o, g); }; });
}

}  // namespace memwall::cli
