// Megatron-LM's (and NeMo's, whose Megatron-Core trainer prints the same line) training log, read
// to its upstream format: NVIDIA/Megatron-LM megatron/training/training.py at commit
// 86df799dc4c78e4bd7fbae972b3ee743e8b14f02, training_log(): every --log-interval iterations rank
// last prints one line
//   [DATE TIME] iteration N/ TRAIN_ITERS | consumed samples: S | [skipped samples: K |]
//   elapsed time per iteration (ms): T | [throughput per GPU (TFLOP/s/GPU): F |] learning rate:
//   L | [decoupled learning rate: D |] global batch size: B | <loss key>: V | ... | loss scale:
//   X | [grad norm: G |] [num zeros: Z |] [params norm: P |] number of skipped iterations: I |
//   number of nan iterations: J |
// T is the interval timer's time since the previous line over the iterations it covers (a mean
// step time), F is num_floating_point_operations(args, B) / (T x 1e12 x world size): model FLOPs
// (forward and backward GEMMs, the s x s attention, the logits, no recomputation: memwall's
// model_tflops convention, Narayanan et al. 2021 eq. 3) per GPU. The model, the GPUs, the
// parallel sizes, the micro-batch and the sequence length are not in the line: they come from
// flags, and a missing one is refused by name.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema =
    "megatron/training/training.py training_log() at Megatron-LM commit 86df799dc4c7";

// Fields of the line memwall does not import: the optimizer's state and the losses.
const std::set<std::string>& not_imported() {
  static const std::set<std::string> f = {"skipped samples",
                                          "learning rate",
                                          "decoupled learning rate",
                                          "loss scale",
                                          "grad norm",
                                          "num zeros",
                                          "params norm",
                                          "number of skipped iterations",
                                          "number of nan iterations"};
  return f;
}

struct Line {
  std::string where;  // FILE:LINE
  int64_t iteration = 0, train_iters = 0;
  double step_ms = 0;
  std::optional<double> tflops_per_gpu;
  std::optional<int64_t> global_batch;
};

// A number of the line's field `key` at `where`; InputError naming it otherwise.
double number_of(const std::string& text, const std::string& where, const std::string& key) {
  const std::string t = trimmed(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v < 0)
    throw InputError(where + ": " + key, t, "a finite number >= 0 (the value training_log prints)");
  return v;
}

// The iteration line at `pos` (just after the word "iteration"), or nullopt when the text there
// is not "N/ M |" (another line that mentions iterations).
std::optional<Line> parse_line(const std::string& text, size_t pos, const std::string& where,
                               std::set<std::string>& unknown) {
  const auto header = iteration_header(text, pos);
  if (!header) return std::nullopt;
  const size_t bar = header->bar;
  Line l;
  l.where = where;
  l.iteration = header->iteration;
  l.train_iters = header->of;
  bool elapsed = false;
  for (const auto& [key, value] : bar_fields(text.substr(bar + 1), where, true, kSchema)) {
    if (key == "elapsed time per iteration (ms)") {
      l.step_ms = number_of(value, where, key);
      if (!(l.step_ms > 0)) throw InputError(where + ": " + key, trimmed(value), "a time > 0");
      elapsed = true;
    } else if (key == "throughput per GPU (TFLOP/s/GPU)") {
      l.tflops_per_gpu = number_of(value, where, key);
    } else if (key == "global batch size") {
      l.global_batch = static_cast<int64_t>(number_of(value, where, key));
    } else if (key == "consumed samples") {
      (void)number_of(value, where, key);
    } else if (!not_imported().count(key)) {
      // The loss dictionary's keys are the model's own ("lm loss", "load_balancing_loss" ...).
      unknown.insert(key);
    }
  }
  if (!elapsed)
    throw InputError(where + ": elapsed time per iteration (ms)", "(missing)",
                     "the step time every training_log line carries");
  return l;
}

}  // namespace

std::vector<Json> import_megatron_log(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes) {
  (void)catalog;  // names are resolved by `checked`, like every importer's
  std::vector<Line> lines;
  std::set<std::string> unknown;
  std::istringstream in(text);
  std::string row;
  for (int n = 1; std::getline(in, row); ++n) {
    // Other output (timers, memory reports, warnings) is interleaved with the iteration lines.
    for (size_t at = row.find("iteration"); at != std::string::npos;
         at = row.find("iteration", at + 1)) {
      if (auto l = parse_line(row, at + 9, fmt::format("{}:{}", where, n), unknown)) {
        lines.push_back(*l);
        break;
      }
    }
  }
  if (lines.empty())
    throw InputError(
        where, "(no iteration line)",
        fmt::format("a log with training_log lines 'iteration N/ M | ...' ({})", kSchema));
  for (size_t i = 1; i < lines.size(); ++i)
    if (lines[i].iteration <= lines[i - 1].iteration)
      throw InputError(lines[i].where + ": iteration", std::to_string(lines[i].iteration),
                       fmt::format("above the previous line's {} (a log of one run: this one "
                                   "restarts or repeats, import each run's log apart)",
                                   lines[i - 1].iteration));
  // Warm-up: the first line's interval timer was started before the first train_step (train():
  // timers('interval-time').start() ahead of the loop), so it holds the one-off work of the first
  // steps (allocator growth, NCCL communicator set-up, cuDNN and GEMM autotuning); it is left out.
  const Line warm = lines.front();
  lines.erase(lines.begin());
  if (lines.empty())
    throw InputError(warm.where, "(one iteration line)",
                     "at least two iteration lines: the first interval holds the warm-up and is "
                     "not a step time");
  notes.push_back(fmt::format(
      "{}: warm-up skipped: the first logged interval (iterations up to {}), whose timer started "
      "before the first step; {} line(s) kept, iterations {} to {}",
      warm.where, warm.iteration, lines.size(), warm.iteration + 1, lines.back().iteration));
  if (!unknown.empty())
    notes.push_back(
        fmt::format("{}: not imported: {} (losses), learning rate, loss scale, "
                    "norms, skipped and nan counts",
                    where, fmt::join(unknown, ", ")));

  // One global batch for the kept lines (a --rampup-batch-size log changes it).
  std::optional<int64_t> batch = o.global_batch;
  for (const Line& l : lines) {
    if (!l.global_batch) continue;
    if (batch && *batch != *l.global_batch)
      throw InputError(
          l.where + ": global batch size", std::to_string(*l.global_batch),
          fmt::format("{} as {} (a batch-size ramp-up, or --global-batch that "
                      "disagrees with the log: import the lines after the ramp-up)",
                      *batch, o.global_batch ? "--global-batch says" : "the lines before"));
    batch = l.global_batch;
  }
  const std::string framework = o.framework.value_or("megatron");
  if (framework != "megatron" && framework != "nemo")
    throw InputError("--framework", framework,
                     "megatron or nemo (the frameworks that print this line)");
  if (!o.framework)
    notes.push_back(where + ": no --framework: megatron (give nemo for a NeMo run)");
  TrainingJob job;
  job.log = "a Megatron log";
  job.framework = framework;
  job.source = fmt::format("Megatron-LM log {}, iterations {} to {} ({})", where,
                           warm.iteration + 1, lines.back().iteration, kSchema);
  job.global_batch = batch;  // the lines' (or --global-batch, which they agree with)
  job.tp_name = "--tensor-model-parallel-size";
  job.pp_name = "--pipeline-model-parallel-size";
  job.micro_name = "--micro-batch-size";
  job.global_name = "'global batch size' on its lines";
  job.seq_name = "--seq-length";
  const Json base = training_base(o, job, notes);

  // Each line is the mean over the iterations since the previous line: the kept lines' step time
  // is their iteration-weighted mean, and (the FLOPs of a step being fixed at one global batch)
  // their TFLOP/s the same FLOPs over that mean time: the weighted harmonic mean.
  double iterations = 0, ms = 0, inverse_tflops = 0;
  bool every_tflops = true;
  int64_t previous = warm.iteration;
  for (const Line& l : lines) {
    const double w = double(l.iteration - previous);
    previous = l.iteration;
    iterations += w;
    ms += w * l.step_ms;
    if (l.tflops_per_gpu && *l.tflops_per_gpu > 0)
      inverse_tflops += w / *l.tflops_per_gpu;
    else
      every_tflops = false;
  }
  std::vector<Json> out;
  const std::string id = fmt::format("megatron@{}", where);
  add_metric_record(base, id + "/step_time", where, "elapsed time per iteration (ms)",
                    ms / iterations, "step_time", "value", "ms", ZeroValue::refused, out, notes);
  if (every_tflops)
    add_metric_record(base, id + "/tflops_per_gpu", where, "throughput per GPU (TFLOP/s/GPU)",
                      iterations / inverse_tflops, "model_tflops", "value", "TFLOP/s/GPU",
                      ZeroValue::refused, out, notes);
  else
    notes.push_back(where +
                    ": no 'throughput per GPU' on every kept line (--log-throughput "
                    "off): the step time only");
  return out;
}

}  // namespace memwall::measure::detail
