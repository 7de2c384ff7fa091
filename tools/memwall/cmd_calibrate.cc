// memwall calibrate: fits the engine parameters that the user's measurement records identify
// (docs/calibrate.md, src/memwall/measure/calibrate.h) and writes the calibration profile every
// face takes with --calibration.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "memwall/core/error.h"
#include "memwall/measure/calibrate.h"
#include "memwall/measure/import.h"
#include "memwall/measure/record.h"
#include "memwall/monitor/engine_metrics.h"
#include "memwall/monitor/engine_records.h"
#include "memwall/monitor/fleet.h"
#include "memwall/monitor/view.h"
#include "memwall/perf/efficiency.h"

namespace memwall::cli {
namespace {

struct CalibrateCliOptions {
  std::vector<std::string> files;
  std::string out, records_out;
  // The engines' own series over Prometheus instead of files.
  std::string prometheus, job, window = "1h";
  double timeout_s = 10;
  measure::ImportOptions deployment;
};

// The flags that describe the deployment behind --prometheus (files carry their own).
constexpr const char* kDeploymentFlags[] = {"--model",
                                            "--gpu",
                                            "--gpus",
                                            "--tp",
                                            "--pp",
                                            "--ep",
                                            "--dp",
                                            "--node",
                                            "--engine",
                                            "--engine-version",
                                            "--weight-precision",
                                            "--kv-precision",
                                            "--max-num-seqs",
                                            "--input",
                                            "--output"};

// The records of one engine job's window: its operating point (src/memwall/monitor/
// engine_records.h), with notes on stderr. `co.files` records where they came from.
std::vector<measure::Record> prometheus_records(const CalibrateCliOptions& o,
                                                const Catalog& catalog,
                                                measure::CalibrateOptions& co) {
  if (o.job.find_first_not_of(" \t") == std::string::npos)
    throw InputError("--job", o.job.empty() ? "missing" : o.job,
                     "label matchers that select the one engine job to fit, e.g. "
                     "namespace=\"llm\",pod=\"vllm-0\"");
  monitor::FleetOptions f;
  f.url = o.prometheus;
  f.window = monitor::parse_window(o.window, "--window");
  if (f.window.value() == 0)
    throw InputError("--window", o.window,
                     "a range such as 1h: rates and latencies are increases over it");
  f.job_selector = o.job;
  f.client.timeout = Seconds(o.timeout_s);
  const monitor::EngineWindow w = monitor::fetch_engines(f);
  if (w.points.empty())
    throw InfeasibleError(monitor::no_series_message(
        f, fmt::format("the engine names ({})", fmt::join(monitor::engine_table().sets, ", "))));
  if (w.points.size() > 1) {
    std::vector<std::string> found;
    for (const auto& p : w.points)
      found.push_back(fmt::format("{} ({}{})", p.job.empty() ? "no job labels" : p.job, p.engine,
                                  p.model.empty() ? "" : ", " + p.model));
    throw InputError("--job", o.job,
                     fmt::format("a selector of one engine job; it selects {}: {}", found.size(),
                                 fmt::join(found, "; ")));
  }
  const std::string where = fmt::format("prometheus {} {{{}}} {:.0f} s to {}", o.prometheus, o.job,
                                        w.window_s, monitor::format_utc(w.end_s));
  const monitor::EngineRecords r =
      monitor::operating_point_records(w.points.front(), o.deployment, where, catalog);
  for (const auto& n : r.notes) std::cerr << "note: " << n << "\n";
  co.files = {where};
  return r.records;
}

// Writes `doc` to `path` (replaced); InputError naming `flag` when it cannot.
void write_json(const std::string& path, const char* flag, const Json& doc) {
  std::ofstream f(path);
  if (!f) throw InputError(flag, path, "a writable file path");
  f << doc.dump(2) << "\n";
  f.flush();
  if (!f) throw InputError(flag, path, "a writable file path (write failed)");
}

int run_calibrate(const CalibrateCliOptions& o, const GlobalOptions& g, const CLI::App& sub) {
  const CommandCatalog catalog(g);
  if (o.files.empty() == o.prometheus.empty())
    throw InputError("FILE", o.files.empty() ? "none" : "with --prometheus",
                     "measurement record files or --prometheus URL (one of the two)");
  for (const char* flag : {"--job", "--window", "--timeout", "--records-out"})
    if (o.prometheus.empty() && sub.count(flag) > 0)
      throw InputError(flag, "without --prometheus", "with --prometheus only");
  for (const char* flag : kDeploymentFlags)
    if (o.prometheus.empty() && sub.count(flag) > 0)
      throw InputError(flag, "with record files",
                       "with --prometheus only (a record file states its own deployment)");
  std::vector<measure::Record> records;
  measure::CalibrateOptions co;
  if (!o.prometheus.empty()) {
    records = prometheus_records(o, *catalog, co);
  } else {
    for (const auto& f : o.files) {
      auto part = measure::parse_measurements(load_document(f), f, *catalog);
      records.insert(records.end(), part.begin(), part.end());
    }
    co.files = o.files;
  }
  if (!o.records_out.empty()) write_json(o.records_out, "--records-out", measure::to_json(records));
  const measure::CalibrationFit fit = measure::calibrate(records, *catalog, co);
  // The profile must be one --calibration accepts.
  (void)perf::apply_calibration(perf::default_efficiency(), fit.profile, "the fitted profile");
  if (!o.out.empty()) write_json(o.out, "--out", fit.profile);
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
      "sequence, per-kernel overhead; for training records, the framework's compute share,\n"
      "overlap efficiency and host time per step) by robust least squares on the log error of\n"
      "memwall's predictions, and print each parameter before -> after with its 80 % interval, the "
      "error of\n"
      "every record before and after, and what the records cannot identify with the run that\n"
      "would. FILE: measurement records (docs/measurements.md). --out writes the profile for\n"
      "--calibration; it records what it was fitted on. --prometheus URL --job J --window 1h\n"
      "fits instead the operating point one vLLM or SGLang job achieved over the window, read\n"
      "from its own vllm:* / sglang:* series (docs/calibrate.md \"From a running engine\").");
  add_global_options(*sub, g);
  auto o = std::make_shared<CalibrateCliOptions>();
  sub->add_option("files", o->files, "Measurement record files (memwall-measurements/1)")
      ->check(CLI::ExistingFile);
  sub->add_option("--out", o->out, "Write the calibration profile (JSON) to this file");
  sub->add_option("--prometheus", o->prometheus,
                  "Fit from an engine's own series on this Prometheus server "
                  "(http[s]://HOST[:PORT][/PATH]) instead of files");
  sub->add_option("--job", o->job,
                  "With --prometheus: label matchers selecting one engine job, e.g. "
                  "namespace=\"llm\",pod=\"vllm-0\"");
  sub->add_option("--window", o->window,
                  "With --prometheus: the range back from now the rates and latencies are taken "
                  "over (90s, 15m, 1h)")
      ->capture_default_str();
  sub->add_option("--records-out", o->records_out,
                  "With --prometheus: also write the window's measurement records to this file "
                  "(windows at other loads are then fitted together as FILEs)");
  sub->add_option("--timeout", o->timeout_s, "With --prometheus: connection and read timeout (s)")
      ->capture_default_str();
  measure::ImportOptions& d = o->deployment;
  sub->add_option("--model", d.model,
                  "With --prometheus: the model (default: the series' model_name label)");
  sub->add_option("--gpu", d.accelerator, "With --prometheus: the accelerator the job runs on");
  sub->add_option("--gpus", d.devices,
                  "With --prometheus: devices of the job (default tp x pp x dp)");
  sub->add_option("--tp", d.tp, "With --prometheus: tensor-parallel size");
  sub->add_option("--pp", d.pp, "With --prometheus: pipeline-parallel size");
  sub->add_option("--ep", d.ep, "With --prometheus: expert-parallel size");
  sub->add_option("--dp", d.dp, "With --prometheus: data-parallel replicas");
  sub->add_option("--node", d.node, "With --prometheus: node id");
  sub->add_option(
      "--engine", d.engine,
      "With --prometheus: the engine (default and only: the one whose series they are)");
  sub->add_option("--engine-version", d.engine_version,
                  "With --prometheus: its version, e.g. 0.10.1 (the series do not say it)");
  sub->add_option("--weight-precision", d.weight_precision, "With --prometheus: weight precision");
  sub->add_option("--kv-precision", d.kv_precision, "With --prometheus: KV-cache precision");
  sub->add_option("--max-num-seqs", d.max_num_seqs,
                  "With --prometheus: the engine's max sequences");
  sub->add_option("--input", d.input,
                  "With --prometheus: prompt tokens per request (N, uniform:LO,HI, "
                  "lognormal:MEAN,CV); default: the prompt-length histogram's mean");
  sub->add_option("--output", d.output,
                  "With --prometheus: generation tokens per request; default: the "
                  "generation-length histogram's mean");
  sub->callback([&run, &g, o, sub] { run = [&g, o, sub] { return run_calibrate(*o, g, *sub); }; });
}

}  // namespace memwall::cli
