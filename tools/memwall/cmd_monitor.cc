// memwall monitor: live GPU efficiency counters (NVML, GPM on Hopper+), a terminal view, JSON-lines
// recording and replay, a Prometheus /metrics endpoint and the advisor (src/memwall/monitor).
// Parses, calls, prints.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/core/precision.h"
#include "memwall/i18n/messages.h"
#include "memwall/measure/import.h"
#include "memwall/measure/predict.h"
#include "memwall/monitor/advisor.h"
#include "memwall/monitor/engine_metrics.h"
#include "memwall/monitor/engine_records.h"
#include "memwall/monitor/fleet.h"
#include "memwall/monitor/label_deployment.h"
#include "memwall/monitor/local_source.h"
#include "memwall/monitor/nvml_source.h"
#include "memwall/monitor/recording.h"
#include "memwall/monitor/rules.h"
#include "memwall/monitor/server.h"
#include "memwall/monitor/session.h"
#include "memwall/monitor/summary.h"
#include "memwall/monitor/view.h"
#include "memwall/perf/efficiency.h"

namespace memwall::cli {
namespace {

struct MonitorOptions {
  bool once = false;
  double interval_ms = 1000;
  double duration_s = 0;
  std::string record, replay, serve, nvml_library = monitor::kNvmlLibrary;
  std::string source = "nvml", library;
  std::string prometheus, window = "15m", job, emit_rules;
  double timeout_s = 10;
  bool advise = false;
  infer::DeploymentOptions d;
  int64_t batch = 1, input = 0, output = 0;
  std::string weight_precision, kv_precision, node;
};

constexpr const char* kDefinitions =
    "Readings (per GPU, interval averages): SM activity = fraction of cycles an SM had a warp\n"
    "resident, averaged over SMs; SM occupancy = resident warps / maximum warps per SM; tensor\n"
    "activity = tensor-pipe cycles / peak sustained rate; DRAM bandwidth utilisation = bandwidth\n"
    "used / theoretical maximum (these four from NVML GPM, Hopper and newer); GPU util = share of\n"
    "time any kernel ran (coarse: one busy SM reads 100 %). Unknown readings print \"unknown\".\n"
    "Advisor: means over busy samples; memory-bandwidth-bound when DRAM utilisation >= 50 %,\n"
    "compute-bound when tensor activity >= 40 %, starved when SM activity < 50 % with neither,\n"
    "clocks when power/thermal clock-event reasons hold in >= 25 % of samples. Measured bandwidth\n"
    "= DRAM utilisation x datasheet bandwidth; expected = memwall infer's request-average MBU (MBU "
    "=\n"
    "bytes moved per second / memory bandwidth); implied tokens/s = estimated tokens/s x measured\n"
    "/ expected bandwidth. Exit 3 when no NVML driver library is found.\n"
    "--source amd|ascend|gaudi reads amd-smi, DCMI or hlml instead of NVML (docs/monitor.md):\n"
    "AMD GFX activity -> GPU util, UMC activity -> memory-controller busy (not DRAM\n"
    "bandwidth); Ascend AI Core -> SM activity, AI Cube -> tensor, HBM bandwidth -> DRAM\n"
    "bandwidth, NPU -> util; Gaudi AIP utilisation -> util. What a vendor does not report is\n"
    "unknown.\n"
    "--prometheus maps dcgm-exporter, AMD device-metrics-exporter, Ascend npu-exporter and\n"
    "memwall names (data/monitor/exporters.json); counters a source does not expose are unknown.\n"
    "It also reads vLLM's vllm:* and SGLang's sglang:* series and reports per job the operating\n"
    "point achieved over --window: mean running/waiting requests and KV-cache usage, prompt and\n"
    "generation tokens/s, and TTFT, TPOT (inter-token) and e2e mean, p50 and p99 from the\n"
    "histogram buckets' increases (interpolated inside a bucket as histogram_quantile does).\n"
    "With --gpu (and --model where the series carry no model_name), or where the engine's\n"
    "series carry the memwall_io_* pod labels below (a flag wins over a label), memwall's\n"
    "estimate for that point stands beside it; --input/--output replace the length histograms'\n"
    "means.\n"
    "--emit-rules writes Prometheus recording rules (memwall:<reading>:ratio, the links'\n"
    "memwall:pcie_rx:bytes_per_second ...) and alerting rules for the walls; with --gpu also\n"
    "PCIe and NVLink saturation alerts: a direction whose 10-minute mean holds >= 80 % (the\n"
    "offload model's achievable link fraction) of the catalog's per-direction bandwidth. A link\n"
    "the catalog gives no bandwidth for gets no alert, said in the file and on stderr.\n"
    "--prometheus --advise without --model/--gpu compares each job with the deployment its\n"
    "pod's series name: the memwall.io/* pod labels of plan --emit k8s as Prometheus's pod\n"
    "relabelling writes them (memwall_io_model, _accelerator, _tp, _pp, _weight_precision,\n"
    "_kv_precision) and the engine's model_name; the workload is --batch/--input/--output, else\n"
    "the engine's mean running requests and length-histogram means. It says which labels it\n"
    "used and names each label it cannot map.";

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) {
  g_stop = true;
}

std::optional<monitor::Expected> expectation(MonitorOptions& o, const GlobalOptions& g) {
  if (o.d.model.empty() && o.d.gpu.empty()) return std::nullopt;
  if (o.d.model.empty() || o.d.gpu.empty() || o.input < 1 || o.output < 1)
    throw InputError("--advise", o.d.model.empty() ? "--gpu without --model" : o.d.model,
                     "--model, --gpu, --input and --output together (or none of them, for the "
                     "diagnosis alone)");
  if (!o.weight_precision.empty())
    o.d.weight_precision = parse_precision_or_throw(o.weight_precision, "--weight-precision");
  if (!o.kv_precision.empty())
    o.d.kv_precision = parse_precision_or_throw(o.kv_precision, "--kv-precision");
  if (!o.node.empty()) o.d.node = o.node;
  return monitor::expect(Catalog::with_user_files(g.catalog_files), o.d,
                         {o.batch, o.input, o.output});
}

// The closing report of a replay or a finished live session.
// `with_readings`: the JSON also lists every sample (live sessions; a replay has them in its file).
int report(const std::string& source, const std::vector<monitor::GpuSample>& samples,
           const std::optional<monitor::Advice>& advice, bool json, bool with_readings) {
  const auto summary = monitor::summarise(samples);
  if (json) {
    Json out = {{"source", source}, {"samples", samples.size()}};
    out["summary"] = Json::array();
    for (const auto& s : summary) out["summary"].push_back(monitor::to_json(s));
    if (with_readings) {
      out["readings"] = Json::array();
      for (const auto& s : samples) out["readings"].push_back(monitor::to_json(s));
    }
    if (advice) out["advice"] = monitor::to_json(*advice);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::vector<monitor::GpuSample> means;
  for (const auto& s : summary) means.push_back(s.mean);
  const std::string span = summary.empty()
                               ? "no samples"
                               : fmt::format("{} samples, {} to {}", samples.size(),
                                             monitor::format_utc(summary.front().first_time_s),
                                             monitor::format_utc(summary.front().last_time_s));
  std::cout << monitor::format_table(source + ": means per GPU over " + span, means);
  if (advice) std::cout << "\n" << monitor::format_advice(*advice);
  return 0;
}

int run_replay(MonitorOptions& o, const GlobalOptions& g, const CLI::App& sub) {
  for (const char* live_only : {"--once", "--interval-ms", "--duration", "--record", "--serve",
                                "--source", "--library", "--nvml-library"})
    if (sub.count(live_only) > 0)
      throw InputError(live_only, "with --replay", "live sampling only (not with --replay)");
  const auto expected = o.advise ? expectation(o, g) : std::nullopt;
  const auto samples = monitor::read_jsonl_file(o.replay);
  std::optional<monitor::Advice> advice;
  if (o.advise) advice = monitor::advise(samples, expected);
  return report("replay of " + o.replay, samples, advice, g.json, false);
}

// The deployment the engines' series ran on, as the flags give it (the series say the engine, the
// model where they carry model_name, and the lengths where they hold the length histograms).
measure::ImportOptions deployment_of(const MonitorOptions& o, const CLI::App& sub) {
  measure::ImportOptions d;
  if (!o.d.model.empty()) d.model = o.d.model;
  if (!o.d.gpu.empty()) d.accelerator = o.d.gpu;
  // Unset where not given, so that the engine series' memwall_io_tp / _pp labels can fill them.
  if (sub.count("--tp") > 0) d.tp = o.d.tp;
  if (sub.count("--pp") > 0) d.pp = o.d.pp;
  if (sub.count("--dp") > 0) d.dp = o.d.dp;
  if (!o.node.empty()) d.node = o.node;
  if (sub.count("--engine") > 0) d.engine = o.d.engine;
  d.engine_version = o.d.engine_version;
  if (!o.weight_precision.empty()) d.weight_precision = o.weight_precision;
  if (!o.kv_precision.empty()) d.kv_precision = o.kv_precision;
  if (o.input > 0) d.input = std::to_string(o.input);
  if (o.output > 0) d.output = std::to_string(o.output);
  return d;
}

// The fleet through a Prometheus server: one query, the exporters' names mapped, the advisor per
// job and per GPU (src/memwall/monitor/fleet.h).
int run_prometheus(MonitorOptions& o, const GlobalOptions& g, const CLI::App& sub) {
  for (const char* local_only : {"--once", "--interval-ms", "--duration", "--record", "--serve",
                                 "--replay", "--nvml-library", "--source", "--library"})
    if (sub.count(local_only) > 0)
      throw InputError(local_only, "with --prometheus",
                       "the local driver or a recording only (not with --prometheus)");
  monitor::FleetOptions f;
  f.url = o.prometheus;
  f.window = monitor::parse_window(o.window, "--window");
  f.job_selector = o.job;
  f.client.timeout = Seconds(o.timeout_s);
  f.require_gpus = false;
  const auto expected = o.advise ? expectation(o, g) : std::nullopt;
  const auto fleet = monitor::fetch_fleet(f);
  const auto engines = monitor::fetch_engines(f);
  if (fleet.gpus.empty() && engines.points.empty())
    throw InfeasibleError(monitor::no_series_message(
        f, "the mapped exporter or engine names (" +
               fmt::format("{}", fmt::join(monitor::exporter_table().sets, ", ")) + ", " +
               fmt::format("{}", fmt::join(monitor::engine_table().sets, ", ")) + ")"));
  const auto catalog = Catalog::with_user_files(g.catalog_files);
  std::optional<monitor::FleetAdvice> advice;
  if (o.advise) {
    // Without --model/--gpu, each job's deployment as its series' labels name it.
    std::map<std::string, monitor::JobDeployment> from_labels;
    if (!expected) {
      infer::DeploymentOptions base = o.d;
      if (!o.node.empty()) base.node = o.node;
      if (!o.weight_precision.empty())
        base.weight_precision = parse_precision_or_throw(o.weight_precision, "--weight-precision");
      if (!o.kv_precision.empty())
        base.kv_precision = parse_precision_or_throw(o.kv_precision, "--kv-precision");
      monitor::FlagWorkload w;
      if (sub.count("--batch") > 0) w.batch = o.batch;
      w.input = o.input;
      w.output = o.output;
      from_labels = monitor::job_deployments(fleet, engines.points, base, w, catalog);
    }
    advice = monitor::advise_fleet(fleet, expected, from_labels);
  }
  // memwall's estimate beside each engine's operating point, on the deployment the flags give,
  // completed by the memwall_io_* labels of the engine's own series.
  measure::PredictOptions po;
  if (o.d.calibration_file)
    po.efficiency =
        std::make_shared<const perf::Efficiency>(perf::load_calibration(*o.d.calibration_file));
  const measure::ImportOptions flags = deployment_of(o, sub);
  std::vector<std::optional<monitor::OperatingPointEstimate>> estimates;
  for (const auto& p : engines.points)
    estimates.push_back(
        monitor::estimate_engine_point(p, flags, "prometheus " + p.job, catalog, po));
  if (g.json) {
    Json out = monitor::to_json(fleet, advice ? &*advice : nullptr);
    out["engine_query"] = engines.query;
    out["engines"] = Json::array();
    for (size_t i = 0; i < engines.points.size(); ++i) {
      Json j = monitor::to_json(engines.points[i]);
      if (estimates[i]) j["estimate"] = monitor::to_json(*estimates[i]);
      out["engines"].push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (!fleet.gpus.empty()) std::cout << monitor::format_fleet(fleet, advice ? &*advice : nullptr);
  if (engines.points.empty()) return 0;
  std::cout << fmt::format("{}engines (vllm:*, sglang:* series over the window):\n",
                           fleet.gpus.empty() ? "" : "\n");
  for (size_t i = 0; i < engines.points.size(); ++i) {
    std::cout << monitor::format_operating_point(engines.points[i]);
    if (estimates[i]) std::cout << monitor::format_estimate(*estimates[i]);
  }
  return 0;
}

// The Prometheus rules file of the advisor's walls, to FILE or "-" (stdout); with --gpu, the
// saturation alerts of that accelerator's PCIe and NVLink links. What the link alerts leave out
// is said on stderr as well as in the file.
int emit_rules(const MonitorOptions& o, const GlobalOptions& g) {
  const Catalog catalog = Catalog::with_user_files(g.catalog_files);
  const Accelerator* gpu = o.d.gpu.empty() ? nullptr : &catalog.accelerator(o.d.gpu);
  const std::string text = monitor::prometheus_rules(monitor::exporter_table(), gpu);
  for (const auto& note : monitor::link_alert_notes(gpu))
    std::cerr << "memwall monitor --emit-rules: " << note << "\n";
  if (o.emit_rules == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream out(o.emit_rules, std::ios::out | std::ios::trunc);
  out << text;
  out.flush();
  if (!out)
    throw InputError("--emit-rules", o.emit_rules, "a writable file path (or - for stdout)");
  return 0;
}

// The local driver library --source names (NVML by default), at --library PATH or, for NVML, the
// older --nvml-library PATH.
std::unique_ptr<monitor::Source> open_local_source(const MonitorOptions& o, const CLI::App& sub) {
  const monitor::SourceKind kind = monitor::parse_source_kind(o.source, "--source");
  if (sub.count("--nvml-library") > 0) {
    if (kind != monitor::SourceKind::nvml || sub.count("--library") > 0)
      throw InputError("--nvml-library", o.nvml_library,
                       "with --source nvml only, and not with --library (--library names the "
                       "library of any source)");
    return monitor::open_source(kind, o.nvml_library);
  }
  return monitor::open_source(kind, o.library);
}

int run_live(MonitorOptions& o, const GlobalOptions& g, const CLI::App& sub) {
  monitor::SessionOptions session;
  session.interval = Seconds(o.interval_ms / 1e3);
  if (sub.count("--duration") > 0) session.duration = Seconds(o.duration_s);
  if (o.once) session.passes = 1;
  monitor::check(session);
  if (g.json && !o.once && !session.duration)
    throw InputError("--json", "live without an end",
                     "--once or --duration S with --json (one JSON object at the end)");
  const auto expected = o.advise ? expectation(o, g) : std::nullopt;
  std::optional<monitor::ListenAddress> address;
  if (sub.count("--serve") > 0) address = monitor::parse_listen_address(o.serve);
  std::ofstream record;
  if (!o.record.empty()) {
    record.open(o.record, std::ios::out | std::ios::trunc);
    if (!record) throw InputError("--record", o.record, "a writable file path");
  }

  auto source = open_local_source(o, sub);
  for (const auto& note : source->notes()) std::cerr << "memwall monitor: " << note << "\n";

  std::unique_ptr<monitor::MetricsServer> server;
  if (address) {
    server = std::make_unique<monitor::MetricsServer>(*address);
    std::cerr << "memwall monitor: serving http://" << address->host << ":" << server->port()
              << "/metrics\n";
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const bool keep = g.json || o.advise;
  const bool refresh = !g.json && !o.once && isatty(STDOUT_FILENO);
  std::vector<monitor::GpuSample> samples;
  monitor::run_session(
      [&] { return source->sample(); }, session, g_stop,
      [&](const auto& pass) {
        if (record.is_open()) {
          monitor::write_jsonl(record, pass);  // flushes, so a full disk shows at once
          if (!record)
            throw InputError("--record", o.record,
                             fmt::format("a writable file path ({})", std::strerror(errno)));
        }
        if (server) server->publish(pass);
        if (keep && samples.size() + pass.size() <= monitor::kMaxRecordingSamples)
          samples.insert(samples.end(), pass.begin(), pass.end());
        if (!g.json) {
          if (refresh) std::cout << "\x1b[H\x1b[2J";  // home, clear screen
          std::cout << monitor::format_table(
              "memwall monitor  " + monitor::format_utc(pass.empty() ? 0 : pass.front().time_s),
              pass);
          std::cout.flush();
        }
      });
  if (!keep) return 0;
  std::optional<monitor::Advice> advice;
  if (o.advise) advice = monitor::advise(samples, expected);
  if (!g.json) {
    // The live view is printed as it samples, so only the closing advice is localised here
    // (a replay's whole report goes through main.cc's localised report).
    if (advice)
      std::cout << "\n" << i18n::localize_lines(monitor::format_advice(*advice), g.output_lang);
    return 0;
  }
  return report(o.source, samples, advice, true, true);
}

}  // namespace

void register_monitor(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto o = std::make_shared<MonitorOptions>();
  auto* sub = app.add_subcommand(
      "monitor",
      "Live GPU SM activity, DRAM bandwidth and tensor utilisation (NVML GPM), recording/replay, "
      "a Prometheus endpoint, and an advisor that names the wall against memwall's estimate.");
  sub->footer(kDefinitions);
  add_global_options(*sub, g);
  sub->add_flag("--once", o->once, "Print one sampling pass (after one interval) and exit");
  sub->add_option("--interval-ms", o->interval_ms, "Sampling interval in ms (>= 100)")
      ->capture_default_str();
  sub->add_option("--duration", o->duration_s, "Stop after this many seconds (default: Ctrl-C)");
  sub->add_option("--record", o->record,
                  "Write every pass to FILE as JSON lines (FILE is replaced)");
  sub->add_option("--replay", o->replay, "Read a JSON-lines recording instead of the driver");
  sub->add_option("--serve", o->serve,
                  "Serve Prometheus text at http://[HOST]:PORT/metrics, e.g. :9400");
  sub->add_option("--source", o->source,
                  "Local driver library to read: nvml (NVIDIA), amd (amd-smi), ascend (DCMI),\n"
                  "gaudi (hlml)")
      ->capture_default_str();
  sub->add_option("--library", o->library,
                  "Path or soname of the --source library (default: libnvidia-ml.so.1,\n"
                  "libamd_smi.so, libdcmi.so, libhlml.so, then their usual install paths)");
  sub->add_option("--nvml-library", o->nvml_library,
                  "Path or soname of the NVML library (--source nvml; as --library)")
      ->capture_default_str();
  sub->add_option("--prometheus", o->prometheus,
                  "Read the fleet from a Prometheus server (http[s]://HOST[:PORT][/PATH]) instead "
                  "of the driver: dcgm-exporter, AMD, Ascend and memwall exporter names");
  sub->add_option("--window", o->window,
                  "With --prometheus: range of the query back from now (90s, 15m, 1h; 0: the "
                  "latest values)")
      ->capture_default_str();
  sub->add_option("--job", o->job,
                  "With --prometheus: label matchers that select the job, e.g. "
                  "namespace=\"llm\",pod=~\"vllm-.*\"");
  sub->add_option("--timeout", o->timeout_s,
                  "With --prometheus: connection and read timeout in seconds")
      ->capture_default_str();
  sub->add_option("--emit-rules", o->emit_rules,
                  "Write Prometheus recording and alerting rules for the advisor's walls to FILE\n"
                  "(- for stdout) and exit; with --gpu also PCIe/NVLink saturation alerts at the\n"
                  "catalog's per-direction link bandwidths");
  sub->add_flag("--advise", o->advise,
                "Name the wall; with --model/--gpu/--input/--output compare with the estimate\n"
                "(--prometheus without --model/--gpu: with the deployment the series' labels\n"
                "name)");
  sub->add_option("--model", o->d.model,
                  "Built-in model id or Hugging Face config.json (advisor; engines: default\n"
                  "the series' model_name label)");
  sub->add_option("--gpu", o->d.gpu,
                  "Accelerator id or alias of the monitored GPUs (advisor; engines: gives\n"
                  "memwall's estimate beside each operating point; --emit-rules: its link\n"
                  "bandwidths for the saturation alerts)");
  sub->add_option("--tp", o->d.tp, "Tensor-parallel size (advisor)")->capture_default_str();
  sub->add_option("--pp", o->d.pp, "Pipeline-parallel size (advisor)")->capture_default_str();
  sub->add_option("--dp", o->d.dp, "Data-parallel replicas (advisor)")->capture_default_str();
  sub->add_option("--node", o->node, "Node id (advisor; default: the catalog node of --gpu)");
  sub->add_option("--batch", o->batch, "Sequences per replica (advisor)")->capture_default_str();
  sub->add_option("--input", o->input,
                  "Input tokens per sequence (advisor; engines: replaces the prompt-length\n"
                  "histogram's mean)");
  sub->add_option("--output", o->output,
                  "Output tokens per sequence (advisor; engines: replaces the\n"
                  "generation-length histogram's mean)");
  sub->add_option("--weight-precision", o->weight_precision, "Weight precision (advisor)");
  sub->add_option("--kv-precision", o->kv_precision, "KV-cache precision (advisor)");
  sub->add_option("--engine", o->d.engine,
                  "Engine overhead profile (advisor; engines: the series' own)")
      ->capture_default_str();
  sub->add_option("--engine-version", o->d.engine_version, "Engine version of the profile (advisor)");
  sub->add_option("--calibration", o->d.calibration_file,
                  "Calibration profile the estimate is timed with (advisor; memwall calibrate\n"
                  "--out, memwall probe --out; docs/calibrate.md)")
      ->check(CLI::ExistingFile);
  sub->callback([&run, &g, o, sub] {
    run = [&g, o, sub] {
      if (sub->count("--emit-rules") > 0) return emit_rules(*o, g);
      if (sub->count("--prometheus") > 0) return run_prometheus(*o, g, *sub);
      for (const char* fleet_only : {"--window", "--job", "--timeout"})
        if (sub->count(fleet_only) > 0)
          throw InputError(fleet_only, "without --prometheus", "with --prometheus only");
      return o->replay.empty() ? run_live(*o, g, *sub) : run_replay(*o, g, *sub);
    };
  });
}

}  // namespace memwall::cli
