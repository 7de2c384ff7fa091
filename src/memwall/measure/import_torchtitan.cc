// torchtitan's training log, read to its upstream format: pytorch/torchtitan at commit
// b5bcd76c66d0acb1a08b176d9639425bc55e0b2a, torchtitan/components/metrics.py
// MetricsProcessor.log(): at step 1 and every metrics.log_freq steps (should_log) the logger
// ("[titan] DATE - root - INFO
// - ", torchtitan/tools/logging.py; torchrun may prefix "[rank0]:") prints one line, coloured
// with ANSI sequences unless metrics.disable_color_printing:
//   step: N  loss: L  grad_norm: G  memory: M.MMGiB(P.PP%)  tps: T  tflops: F  mfu: U%
// over the time since the previous line (time_last_log):
//   tps = tokens the rank loaded (labels.numel() per micro-batch, trainer.py batch_generator) /
//     (time x parallel_dims.non_data_parallel_size): the job's tokens per second over its
//     devices, tokens/s per GPU, printed rounded to a whole number with thousands commas;
//   tflops = num_flops_per_token x tps / 1e12: model FLOPs per token (models/utils.py
//     get_dense_model_nparams_and_flops: 6 x the non-embedding parameters plus the s x s
//     attention, causal sparsity and recomputation not counted), TFLOP/s per GPU;
//   mfu = 100 x that / gpu_peak_flops, the BF16 dense peak of tools/utils.py get_peak_flops for
//     the device name ("Peak FLOPS used for computing MFU: X" in the log, trainer.py), N/A
//     under FP8/MX quantisation;
//   memory = the caching allocator's peak reserved GiB (and % of capacity) since the last line.
// The model, the GPUs, the parallel degrees, the batch and the sequence length are in the job's
// TOML config, not the line: they come from flags, and a missing one is refused by name.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "memwall/core/error.h"
#include "memwall/core/precision.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure::detail {
namespace {

constexpr const char* kSchema =
    "torchtitan/components/metrics.py MetricsProcessor.log() at torchtitan commit b5bcd76c66d0";

struct Line {
  std::string where;  // FILE:LINE
  int64_t step = 0;
  double tps = 0, tflops = 0;
  std::optional<double> mfu_percent;  // nullopt: N/A
};

// A number of the line's field `key`: digits with thousands commas and a decimal point.
double number_of(std::string text, const std::string& where, const std::string& key,
                 const std::string& suffix = "") {
  const std::string shown = text;
  if (!suffix.empty()) {
    if (text.size() <= suffix.size() ||
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) != 0)
      throw InputError(where + ": " + key, shown, fmt::format("a number followed by '{}'", suffix));
    text.resize(text.size() - suffix.size());
  }
  std::string digits;
  for (char c : text)
    if (c != ',') digits += c;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v) || v < 0 ||
      digits.find_first_not_of("0123456789.") != std::string::npos)
    throw InputError(where + ": " + key, shown,
                     fmt::format("a finite number >= 0 (the value {} prints)", kSchema));
  return v;
}

// The metrics line starting at `pos` ("step:"), its fields as the tokens between "key:" tokens.
Line parse_line(const std::string& text, size_t pos, const std::string& where) {
  std::istringstream in(text.substr(pos));
  std::vector<std::pair<std::string, std::string>> fields;
  std::string token;
  while (in >> token) {
    if (token.size() > 1 && token.back() == ':' &&
        token.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == token.size() - 1) {
      fields.emplace_back(token.substr(0, token.size() - 1), "");
      continue;
    }
    if (fields.empty()) break;
    fields.back().second += fields.back().second.empty() ? token : " " + token;
  }
  Line l;
  l.where = where;
  bool tps = false, tflops = false, mfu = false;
  for (const auto& [key, value] : fields) {
    if (value.empty()) throw InputError(where + ": " + key, "(missing)", "a value after the key");
    if (key == "step") {
      const double s = number_of(value, where, key);
      if (s != std::floor(s) || s < 1 || s > 1e12 || value.find_first_of(".,") != std::string::npos)
        throw InputError(where + ": step", value, "a whole step number from 1");
      l.step = static_cast<int64_t>(s);
    } else if (key == "tps") {
      l.tps = number_of(value, where, key);
      tps = true;
    } else if (key == "tflops") {
      l.tflops = number_of(value, where, key);
      tflops = true;
    } else if (key == "mfu") {
      if (value != "N/A") l.mfu_percent = number_of(value, where, key, "%");
      mfu = true;
    } else if (key == "memory") {
      if (value.find("GiB(") == std::string::npos)
        throw InputError(where + ": memory", value, "GIB(PCT%) as MetricsProcessor.log() prints");
    } else if (key != "loss" && key != "grad_norm") {
      throw InputError(where + ": " + key, value,
                       fmt::format("step, loss, grad_norm, memory, tps, tflops, mfu (the fields "
                                   "of {}; another version's line: tell memwall which torchtitan "
                                   "wrote it)",
                                   kSchema));
    }
  }
  for (const auto& [present, key] : {std::pair{tps, "tps"}, {tflops, "tflops"}, {mfu, "mfu"}})
    if (!present)
      throw InputError(where + ": " + key, "(missing)",
                       fmt::format("the field every line of {} carries", kSchema));
  if (!(l.tps > 0)) throw InputError(where + ": tps", "0", "a throughput above 0 tokens/s");
  return l;
}

// The position of a metrics line's "step:" in `row`, or npos ("validate step:" lines are the
// validator's, Trainer's own "Training starts at step N" has no colon).
size_t metrics_step(const std::string& row) {
  for (size_t at = row.find("step:"); at != std::string::npos; at = row.find("step:", at + 1)) {
    const bool word_start = at == 0 || row[at - 1] == ' ' || row[at - 1] == ']' ||
                            row[at - 1] == '-' || row[at - 1] == ':';
    const bool validation = at >= 9 && row.compare(at - 9, 9, "validate ") == 0;
    if (word_start && !validation && row.find("tps:", at) != std::string::npos) return at;
  }
  return std::string::npos;
}

// "Peak FLOPS used for computing MFU: 9.890e+14" (trainer.py), nullopt when the log has none.
std::optional<double> peak_flops_of(const std::string& row, const std::string& where) {
  const std::string key = "Peak FLOPS used for computing MFU:";
  const size_t at = row.find(key);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(row.substr(at + key.size()));
  std::string v;
  in >> v;
  char* end = nullptr;
  const double f = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(f) || !(f > 0))
    throw InputError(where + ": Peak FLOPS used for computing MFU", v, "a FLOP/s figure above 0");
  return f;
}

// torchtitan trains with FSDP2, compiled or not (training.compile): memwall's two framework
// profiles of it; which one ran is in the job's config, not the log.
std::string required_framework(const ImportOptions& o) {
  if (!o.framework)
    throw InputError(
        "--framework: required: fsdp (eager) or fsdp-compiled (torch.compile on): a torchtitan "
        "log does not print whether the job compiled");
  if (*o.framework != "fsdp" && *o.framework != "fsdp-compiled")
    throw InputError("--framework", *o.framework,
                     "fsdp or fsdp-compiled (torchtitan's FSDP2, eager or compiled)");
  return *o.framework;
}

}  // namespace

std::vector<Json> import_torchtitan_log(const std::string& text, const std::string& where,
                                        const ImportOptions& o, const Catalog& catalog,
                                        std::vector<std::string>& notes) {
  std::vector<Line> lines;
  std::optional<double> peak;
  std::istringstream in(text);
  std::string raw;
  for (int n = 1; std::getline(in, raw); ++n) {
    const std::string row = without_ansi(raw);
    const std::string w = fmt::format("{}:{}", where, n);
    if (auto p = peak_flops_of(row, w)) peak = p;
    if (const size_t at = metrics_step(row); at != std::string::npos)
      lines.push_back(parse_line(row, at, w));
  }
  if (lines.empty())
    throw InputError(where, "(no metrics line)",
                     fmt::format("a log with the lines 'step: N  loss: ...  tps: T  tflops: F  "
                                 "mfu: U%' ({})",
                                 kSchema));
  for (size_t i = 1; i < lines.size(); ++i)
    if (lines[i].step <= lines[i - 1].step)
      throw InputError(lines[i].where + ": step", std::to_string(lines[i].step),
                       fmt::format("above the previous line's {} (one rank's log of one run: "
                                   "this one restarts, or several ranks' lines are mixed; "
                                   "import each apart)",
                                   lines[i - 1].step));
  // Warm-up: the first line's interval starts when the MetricsProcessor is built (trainer
  // __init__), before the checkpoint load and the first step's compilation, allocator growth and
  // NCCL set-up (trainer.py train()), so it is no step time; it is left out.
  const Line warm = lines.front();
  lines.erase(lines.begin());
  if (lines.empty())
    throw InputError(warm.where, "(one metrics line)",
                     "at least two metrics lines: the first interval holds the start-up and "
                     "warm-up and is not a training rate");
  notes.push_back(fmt::format(
      "{}: warm-up skipped: the first logged interval (steps up to {}), whose timer started "
      "before the checkpoint load and the first step; {} line(s) kept, steps {} to {}",
      warm.where, warm.step, lines.size(), warm.step + 1, lines.back().step));

  const std::string framework = required_framework(o);
  TrainingJob job;
  job.log = "a torchtitan log";
  job.framework = framework;
  job.source = fmt::format("torchtitan log {}, steps {} to {} ({})", where, warm.step + 1,
                           lines.back().step, kSchema);
  job.tp_name = "parallelism.tensor_parallel_degree";
  job.pp_name = "parallelism.pipeline_parallel_degree";
  job.micro_name = "training.local_batch_size";
  job.global_name = "training.global_batch_size";
  job.seq_name = "training.seq_len";
  Json base = training_base(o, job, notes);

  // Each line is over the steps since the previous one and a step's tokens and FLOPs are fixed:
  // the kept lines' rate is the tokens (FLOPs) over the summed time, the step-weighted harmonic
  // mean of their rates.
  double steps = 0, inverse_tps = 0, inverse_tflops = 0, inverse_mfu = 0;
  bool every_tflops = true, every_mfu = true;
  int64_t previous = warm.step;
  for (const Line& l : lines) {
    const double w = double(l.step - previous);
    previous = l.step;
    steps += w;
    inverse_tps += w / l.tps;
    if (l.tflops > 0)
      inverse_tflops += w / l.tflops;
    else
      every_tflops = false;
    if (l.mfu_percent && *l.mfu_percent > 0)
      inverse_mfu += w / *l.mfu_percent;
    else
      every_mfu = false;
  }
  std::vector<Json> out;
  const std::string id = fmt::format("torchtitan@{}", where);
  add_metric_record(base, id + "/tps", where, "tps", steps / inverse_tps, "training_throughput",
                    "value", "tokens/s/gpu", ZeroValue::refused, out, notes);
  if (every_tflops)
    add_metric_record(base, id + "/tflops", where, "tflops", steps / inverse_tflops, "model_tflops",
                      "value", "TFLOP/s/GPU", ZeroValue::refused, out, notes);
  else
    notes.push_back(where + ": tflops 0 on a kept line: not imported");
  // MFU is memwall's only where torchtitan's peak is memwall's: the BF16 dense peak of the
  // catalog's accelerator, in a BF16 run (memwall divides by the run precision's peak).
  const std::string gpu = *o.accelerator;
  const auto memwall_peak = catalog.accelerator(gpu).peak(Precision::bf16);
  const bool bf16 = !o.training_precision || *o.training_precision == "bf16";
  if (!every_mfu) {
    notes.push_back(where + ": mfu N/A on a kept line (FP8/MX quantisation): not imported");
  } else if (!peak) {
    notes.push_back(where +
                    ": mfu not imported: the log has no 'Peak FLOPS used for computing MFU' line, "
                    "so the peak it divides by is unknown (the tflops record carries the rate)");
  } else if (!memwall_peak || !bf16 || std::abs(*peak / memwall_peak->value() - 1) > 0.01) {
    notes.push_back(fmt::format(
        "{}: mfu not imported: torchtitan divided by {:.4g} FLOP/s, memwall's {} peak is {} (the "
        "tflops record carries the rate)",
        where, *peak, bf16 ? "BF16 dense" : "run precision's",
        memwall_peak && bf16 ? fmt::format("{:.4g} FLOP/s", memwall_peak->value())
                             : std::string("another")));
  } else {
    add_metric_record(base, id + "/mfu", where, "mfu", steps / inverse_mfu, "mfu", "value", "%",
                      ZeroValue::refused, out, notes);
  }
  notes.push_back(where +
                  ": not imported: loss, grad_norm, memory (the caching allocator's peak "
                  "reserved, fragmentation included: not memwall's peak of live tensors)");
  return out;
}

}  // namespace memwall::measure::detail
