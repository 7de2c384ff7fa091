// nanotron's training log, read to its upstream format: huggingface/nanotron at commit
// 2411b022a75fb7f7561a1bb4166706da5e1b76de, src/nanotron/trainer.py DistributedTrainer.train()
// and train_step_logs(), src/nanotron/logging/base.py LoggerWriter.add_scalars_from_list() and
// human_format():
//   - at the start, "mbs: M | grad_accum: A | cp: C | sequence_length: S | global_batch_size: G |
//     train_steps: ... | start_iteration_step: ... | consumed_tokens_total: ..." (G in sequences;
//     before commit 2b141c2f there is no cp field and the last is consumed_train_samples);
//   - on each iteration with (iteration - 1) % logging.iteration_step_info_interval == 0, after a
//     prefix "DATE [INFO|DP=0|...]: ", one line "iteration: N / M | consumed_tokens: ... |
//     time_per_iteration_ms: T | tokens_per_sec: ... | tokens_per_sec_per_gpu: R |
//     global_batch_size: B | [grad_norm: ... |] lm_loss: ... | lr: ... | model_tflops_per_gpu: F
//     | eta: H:MM:SS", each value through human_format: three significant digits with a suffix K,
//     M, B, T, P, E for 1e3 ... 1e18 (B is 1e9).
//   T is this one iteration's time (the CUDA-event iteration timer restarts every iteration), in
//   ms; R = G x S / T / world size, tokens/s per GPU; F the model's FLOPs of a step (models/
//   llama.py get_flops: model_flops, forward and backward, the s x s attention and the logits,
//   no recomputation: the model_tflops convention) over T, per GPU; B = G x S tokens
//   (config.global_batch_size_in_tokens).
//   Before commit 2b141c2f (its parent 18805f193ce8a651b4eb9c7f1c4dcdb9781144ca), T was printed as
//   elapsed_time_per_iteration_ms, B was G in sequences, and hardware_tflops_per_gpu followed.
// The model, the GPUs and the parallel sizes are in the run's YAML config, not the log: they come
// from flags, and a missing one is refused by name.
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
    "src/nanotron/trainer.py train_step_logs() at nanotron commit 2411b022a75f";

// A value human_format wrote: a number and an optional K, M, B, T, P or E (powers of 1000).
double human_number(const std::string& text, const std::string& where, const std::string& key) {
  const std::string t = trimmed(text);
  std::string digits = t;
  double scale = 1;
  if (!t.empty()) {
    const std::string suffixes = "KMBTPE";
    if (const size_t s = suffixes.find(t.back()); s != std::string::npos) {
      scale = std::pow(1000.0, double(s + 1));
      digits.pop_back();
    }
  }
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v) || v < 0 ||
      digits.find_first_of("xXnNiI") != std::string::npos)
    throw InputError(where + ": " + key, t,
                     "a number >= 0 as human_format writes it (three significant digits, "
                     "optional K, M, B, T, P or E)");
  return v * scale;
}

// A whole number of the start line's field.
int64_t whole_of(const std::string& text, const std::string& where, const std::string& key) {
  const std::string t = trimmed(text);
  if (t.empty() || t.size() > 15 || t.find_first_not_of("0123456789") != std::string::npos ||
      std::stoll(t) < 1)
    throw InputError(where + ": " + key, t, "a whole number from 1");
  return std::stoll(t);
}

struct Line {
  std::string where;
  int64_t iteration = 0;
  double step_ms = 0, tokens_per_gpu = 0;
  std::optional<double> tflops, batch;  // batch: global_batch_size as printed
  bool old_names = false;               // elapsed_time_per_iteration_ms (before 2b141c2f)
};

// Fields of the iteration line memwall does not import.
bool not_imported(const std::string& key) {
  static const std::set<std::string> f = {
      "consumed_tokens",        "tokens_per_sec", "lm_loss", "z_loss", "lr", "grad_norm", "eta",
      "hardware_tflops_per_gpu"};
  for (const char* prefix :
       {"tbi_logs/", "cpu_memory/", "swap_memory/", "process_memory/", "timers/"})
    if (key.rfind(prefix, 0) == 0) return true;
  return f.count(key) > 0;
}

// The iteration line after "iteration: " at `pos`, or nullopt when the text there is not "N / M |".
std::optional<Line> parse_line(const std::string& text, size_t pos, const std::string& where,
                               std::set<std::string>& unknown) {
  const auto header = iteration_header(text, pos);
  if (!header) return std::nullopt;
  const size_t bar = header->bar;
  Line l;
  l.where = where;
  l.iteration = header->iteration;
  bool time = false, rate = false;
  for (const auto& [key, value] : bar_fields(text.substr(bar + 1), where, false, kSchema)) {
    if (key == "time_per_iteration_ms" || key == "elapsed_time_per_iteration_ms") {
      if (time)
        throw InputError(where + ": " + key, trimmed(value),
                         "one iteration time per line (time_per_iteration_ms, or "
                         "elapsed_time_per_iteration_ms before nanotron 2b141c2f)");
      l.step_ms = human_number(value, where, key);
      if (!(l.step_ms > 0)) throw InputError(where + ": " + key, trimmed(value), "a time above 0");
      l.old_names = key == "elapsed_time_per_iteration_ms";
      time = true;
    } else if (key == "tokens_per_sec_per_gpu") {
      l.tokens_per_gpu = human_number(value, where, key);
      if (!(l.tokens_per_gpu > 0))
        throw InputError(where + ": " + key, trimmed(value), "a throughput above 0");
      rate = true;
    } else if (key == "model_tflops_per_gpu") {
      l.tflops = human_number(value, where, key);
    } else if (key == "global_batch_size") {
      l.batch = human_number(value, where, key);
    } else if (!not_imported(key)) {
      unknown.insert(key);
    }
  }
  if (!time)
    throw InputError(where + ": time_per_iteration_ms", "(missing)",
                     fmt::format("the iteration time every line of {} carries", kSchema));
  if (!rate)
    throw InputError(where + ": tokens_per_sec_per_gpu", "(missing)",
                     fmt::format("the throughput every line of {} carries", kSchema));
  return l;
}

// What the start line "mbs: M | grad_accum: A | [cp: C |] sequence_length: S |
// global_batch_size: G | ..." printed.
struct Start {
  std::string where;
  std::optional<int64_t> micro, cp, seq, global;
};

std::optional<Start> parse_start(const std::string& row, const std::string& where) {
  const size_t at = row.find("mbs: ");
  if (at == std::string::npos || row.find("sequence_length:", at) == std::string::npos)
    return std::nullopt;
  Start s;
  s.where = where;
  std::stringstream fields(row.substr(at));
  std::string field;
  while (std::getline(fields, field, '|')) {
    const size_t colon = field.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trimmed(field.substr(0, colon));
    const std::string value = field.substr(colon + 1);
    if (key == "mbs") s.micro = whole_of(value, where, key);
    if (key == "cp") s.cp = whole_of(value, where, key);
    if (key == "sequence_length") s.seq = whole_of(value, where, key);
    if (key == "global_batch_size") s.global = whole_of(value, where, key);
  }
  return s;
}

}  // namespace

std::vector<Json> import_nanotron_log(const std::string& text, const std::string& where,
                                      const ImportOptions& o, const Catalog& catalog,
                                      std::vector<std::string>& notes) {
  (void)catalog;  // names are resolved by `checked`, like every importer's
  std::vector<Line> lines;
  std::optional<Start> start;
  std::set<std::string> unknown;
  std::istringstream in(text);
  std::string raw;
  for (int n = 1; std::getline(in, raw); ++n) {
    const std::string row = without_ansi(raw);
    const std::string w = fmt::format("{}:{}", where, n);
    if (auto s = parse_start(row, w)) {
      if (start || !lines.empty())
        throw InputError(w, "(a second start line)",
                         "one run per log (this one restarts: import each run's log apart)");
      start = s;
      continue;
    }
    for (size_t at = row.find("iteration: "); at != std::string::npos;
         at = row.find("iteration: ", at + 1))
      if (auto l = parse_line(row, at + 11, w, unknown)) {
        lines.push_back(*l);
        break;
      }
  }
  if (lines.empty())
    throw InputError(where, "(no iteration line)",
                     fmt::format("a log with the lines 'iteration: N / M | ... | "
                                 "time_per_iteration_ms: ...' ({})",
                                 kSchema));
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].iteration <= lines[i - 1].iteration)
      throw InputError(lines[i].where + ": iteration", std::to_string(lines[i].iteration),
                       fmt::format("above the previous line's {} (a log of one run: this one "
                                   "restarts or repeats, import each run's log apart)",
                                   lines[i - 1].iteration));
    if (lines[i].old_names != lines[0].old_names)
      throw InputError(
          lines[i].where,
          lines[i].old_names ? "elapsed_time_per_iteration_ms" : "time_per_iteration_ms",
          "the field names of one nanotron version in every line");
  }
  // Warm-up: the first logged iteration is the process's first step (initial_iter_step), whose
  // time holds the one-off work of CUDA and NCCL set-up, allocator growth and kernel selection;
  // it is left out.
  const Line warm = lines.front();
  lines.erase(lines.begin());
  if (lines.empty())
    throw InputError(warm.where, "(one iteration line)",
                     "at least two iteration lines: the first is the process's first step, "
                     "which holds the warm-up");
  notes.push_back(fmt::format(
      "{}: warm-up skipped: the first logged iteration ({}), the process's first step; {} "
      "line(s) kept, iterations {} to {}, each one iteration's time (the iterations between "
      "logged lines are not in the log)",
      warm.where, warm.iteration, lines.size(), lines.front().iteration, lines.back().iteration));
  if (!unknown.empty())
    notes.push_back(fmt::format("{}: not imported: {}", where, fmt::join(unknown, ", ")));

  TrainingJob job;
  job.log = "a nanotron log";
  job.framework = o.framework.value_or("nanotron");
  if (job.framework != "nanotron")
    throw InputError("--framework", job.framework, "nanotron (the framework that prints this log)");
  job.source = fmt::format("nanotron log {}, iterations {} to {} ({})", where,
                           lines.front().iteration, lines.back().iteration, kSchema);
  if (start) {
    job.micro_batch = start->micro;
    job.seq_len = start->seq;
    job.global_batch = start->global;
    job.cp = start->cp;
  } else {
    notes.push_back(where +
                    ": no start line 'mbs: ... | sequence_length: ...': the batch and "
                    "sequence length from the flags");
  }
  job.tp_name = "parallelism.tp";
  job.pp_name = "parallelism.pp";
  job.micro_name = "tokens.micro_batch_size (its start line 'mbs: ...' is not in the log)";
  job.global_name = "the global batch exactly (its start line is not in the log)";
  job.seq_name = "tokens.sequence_length (its start line is not in the log)";
  Json base = training_base(o, job, notes);
  const int64_t global = base["stack"]["global_batch"].get<int64_t>();
  const int64_t seq = base["workload"]["seq_len"].get<int64_t>();

  // Each line's global_batch_size, three significant digits: tokens (G x S), or sequences G
  // before 2b141c2f.
  const double expected = warm.old_names ? double(global) : double(global) * double(seq);
  for (const Line& l : lines)
    if (l.batch && std::abs(*l.batch - expected) > 0.005 * expected)
      throw InputError(l.where + ": global_batch_size", fmt::format("{:g}", *l.batch),
                       fmt::format("{:g} ({}) to three significant digits", expected,
                                   warm.old_names ? "the global batch in sequences"
                                                  : "the global batch x sequence length in "
                                                    "tokens"));

  // Each kept line is one iteration at a fixed batch: the step time is their mean, the rates
  // the same tokens (FLOPs) over that mean time, their harmonic mean.
  double ms = 0, inverse_rate = 0, inverse_tflops = 0;
  bool every_tflops = true;
  for (const Line& l : lines) {
    ms += l.step_ms;
    inverse_rate += 1 / l.tokens_per_gpu;
    if (l.tflops && *l.tflops > 0)
      inverse_tflops += 1 / *l.tflops;
    else
      every_tflops = false;
  }
  const double k = double(lines.size());
  std::vector<Json> out;
  const std::string id = fmt::format("nanotron@{}", where);
  const char* time_key = warm.old_names ? "elapsed_time_per_iteration_ms" : "time_per_iteration_ms";
  add_metric_record(base, id + "/step_time", where, time_key, ms / k, "step_time", "value", "ms",
                    ZeroValue::refused, out, notes);
  add_metric_record(base, id + "/tokens_per_sec_per_gpu", where, "tokens_per_sec_per_gpu",
                    k / inverse_rate, "training_throughput", "value", "tokens/s/gpu",
                    ZeroValue::refused, out, notes);
  if (every_tflops)
    add_metric_record(base, id + "/model_tflops_per_gpu", where, "model_tflops_per_gpu",
                      k / inverse_tflops, "model_tflops", "value", "TFLOP/s/GPU",
                      ZeroValue::refused, out, notes);
  else
    notes.push_back(where + ": no model_tflops_per_gpu above 0 on every kept line: not imported");
  notes.push_back(where +
                  ": values are human_format's three significant digits (up to 0.5 % off); "
                  "not imported: consumed_tokens, tokens_per_sec (tokens_per_sec_per_gpu x the "
                  "world size), lm_loss, lr, grad_norm, eta");
  return out;
}

}  // namespace memwall::measure::detail
