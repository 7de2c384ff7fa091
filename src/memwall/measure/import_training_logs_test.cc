// The torchtitan and nanotron training log importers (import_torchtitan.cc, import_nanotron.cc)
// on logs written by hand to MetricsProcessor.log()'s format at torchtitan commit b5bcd76c66d0
// and train_step_logs()'s at nanotron commit 2411b022a75f, with made-up values.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"
#include "memwall/measure/import_test_util.h"
#include "memwall/measure/import.h"
#include "memwall/measure/predict.h"

namespace memwall::measure {
namespace {

using testdata::fixture;
using testdata::text_of;

// llama-3.1-8b on one HGX H100 node, FSDP over 8 GPUs, local batch 1, sequence 8192.
ImportOptions torchtitan_options() {
  ImportOptions o;
  o.format = "torchtitan-log";
  o.framework = "fsdp-compiled";
  o.model = "llama-3.1-8b";
  o.accelerator = "h100";
  o.devices = 8;
  o.tp = 1;
  o.pp = 1;
  o.micro_batch = 1;
  o.global_batch = 8;
  o.seq_len = 8192;
  o.training_precision = "bf16";
  return o;
}

// llama-3.1-8b on 8 H100, data parallel 8; the log's start line prints mbs 1, sequence 4096 and
// global batch 32.
ImportOptions nanotron_options() {
  ImportOptions o;
  o.format = "nanotron-log";
  o.model = "llama-3.1-8b";
  o.accelerator = "h100";
  o.devices = 8;
  o.tp = 1;
  o.pp = 1;
  o.training_precision = "bf16";
  return o;
}

std::string refusal(const std::string& text, const ImportOptions& o) {
  std::vector<std::string> notes;
  try {
    import_text(text, "t.log", o, Catalog::builtin(), notes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(imported)";
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const auto& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// Four metrics lines (steps 1, 10, 20, 30): the first (start-up and warm-up) is left out; the
// others cover 9, 10 and 10 steps, and their rates combine as the step-weighted harmonic mean.
TEST(ImportTorchtitanLog, MetricsLinesToThroughputTflopsAndMfuExactly) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("torchtitan_training.log"), torchtitan_options(),
                              Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 3u);
  const Record& tps = rs[0];
  EXPECT_EQ(tps.id, "torchtitan@" + fixture("torchtitan_training.log") + "/tps");
  EXPECT_EQ(tps.workload.mode, Mode::training);
  EXPECT_EQ(*tps.workload.seq_len, 8192);
  EXPECT_EQ(*tps.stack.framework, "fsdp-compiled");
  EXPECT_EQ(tps.stack.dp, 8);
  EXPECT_EQ(*tps.stack.micro_batch, 1);
  EXPECT_EQ(*tps.stack.global_batch, 8);
  EXPECT_EQ(tps.hardware.count, 8);
  EXPECT_EQ(tps.measured.metric, Metric::training_throughput);
  EXPECT_EQ(tps.measured.scope, Scope::per_device);
  EXPECT_DOUBLE_EQ(tps.measured.value, 29 / (9 / 6401.0 + 10 / 6436.0 + 10 / 6418.0));
  EXPECT_EQ(rs[1].measured.metric, Metric::model_tflops);
  EXPECT_DOUBLE_EQ(rs[1].measured.value, 29 / (9 / 310.45 + 10 / 312.15 + 10 / 311.27));
  // torchtitan's peak (9.890e+14) is the catalog's H100 BF16 dense peak within 1 %.
  EXPECT_EQ(rs[2].measured.metric, Metric::mfu);
  EXPECT_EQ(rs[2].measured.unit, "%");
  EXPECT_DOUBLE_EQ(rs[2].measured.value, 29 / (9 / 31.39 + 10 / 31.56 + 10 / 31.47));
  EXPECT_TRUE(has_note(notes, "warm-up skipped: the first logged interval (steps up to 1)"));
  EXPECT_TRUE(has_note(notes, "steps 2 to 30"));
  EXPECT_TRUE(has_note(notes, "not imported: loss, grad_norm, memory"));
  for (const Record& r : rs) {
    const Prediction p = predict(r, Catalog::builtin());
    ASSERT_TRUE(p.si) << r.id << ": " << p.unpredicted;
  }
  // On another accelerator than the peak torchtitan divided by, MFU is left out, named.
  ImportOptions a100 = torchtitan_options();
  a100.accelerator = "a100";
  notes.clear();
  const auto other =
      import_file(fixture("torchtitan_training.log"), a100, Catalog::builtin(), notes);
  EXPECT_EQ(other.size(), 2u);
  EXPECT_TRUE(has_note(notes, "mfu not imported: torchtitan divided by 9.89e+14"));
}

TEST(ImportTorchtitanLog, RefusesWhatTheLogDoesNotCarryByName) {
  const std::string text = text_of("torchtitan_training.log");
  for (auto [field, unset] :
       {std::pair<std::string, void (*)(ImportOptions&)>{
            "--framework: required", [](ImportOptions& o) { o.framework.reset(); }},
        {"--model: required", [](ImportOptions& o) { o.model.reset(); }},
        {"--gpus: required", [](ImportOptions& o) { o.devices.reset(); }},
        {"--tp: required: a torchtitan log does not print parallelism.tensor_parallel_degree",
         [](ImportOptions& o) { o.tp.reset(); }},
        {"--global-batch: required", [](ImportOptions& o) { o.global_batch.reset(); }},
        {"--micro-batch: required", [](ImportOptions& o) { o.micro_batch.reset(); }},
        {"--seq-len: required", [](ImportOptions& o) { o.seq_len.reset(); }}}) {
    ImportOptions o = torchtitan_options();
    unset(o);
    EXPECT_NE(refusal(text, o).find(field), std::string::npos) << field << ": " << refusal(text, o);
  }
  ImportOptions o = torchtitan_options();
  o.framework = "megatron";
  EXPECT_NE(refusal(text, o).find("--framework: value 'megatron'"), std::string::npos);
  o = torchtitan_options();
  o.global_batch = 12;
  EXPECT_NE(refusal(text, o).find("--micro-batch: value '1'"), std::string::npos);
}

TEST(ImportTorchtitanLog, RefusesLinesItCannotRead) {
  const std::string line =
      "[titan] 2026-03-02 09:00:00,000 - root - INFO - step: 10  loss:  9.1  "
      "grad_norm:  1.2  memory: 60.00GiB(75.00%)  tps: 6,400  tflops: 310.00 "
      " mfu: 31.34%\n";
  auto at = [](std::string s, int step) {
    return s.replace(s.find("10"), 2, std::to_string(step));
  };
  const ImportOptions o = torchtitan_options();
  EXPECT_NE(refusal("nothing here\n", o).find("(no metrics line)"), std::string::npos);
  EXPECT_NE(refusal(line, o).find("at least two metrics lines"), std::string::npos);
  EXPECT_NE(refusal(line + line, o).find("t.log:2: step: value '10'"), std::string::npos);
  std::string bad = at(line, 20);
  bad.replace(bad.find("6,400"), 5, "six");
  EXPECT_NE(refusal(line + bad, o).find("t.log:2: tps: value 'six'"), std::string::npos);
  std::string extra = at(line, 20);
  extra.replace(extra.find("mfu:"), 4, "wps: 12  mfu:");
  EXPECT_NE(refusal(line + extra, o).find("t.log:2: wps: value '12'"), std::string::npos);
  std::string no_tflops = at(line, 20);
  no_tflops.replace(no_tflops.find("tflops: 310.00"), 14, "");
  EXPECT_NE(refusal(line + no_tflops, o).find("t.log:2: tflops: value '(missing)'"),
            std::string::npos);
  // No peak line, or an N/A MFU (FP8 / MX): throughput and TFLOP/s only, with a note.
  std::vector<std::string> notes;
  const auto rs = import_text(line + at(line, 20), "t.log", o, Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].measured.value, 6400);
  EXPECT_TRUE(has_note(notes, "no 'Peak FLOPS used for computing MFU' line"));
  std::string na = at(line, 20);
  na.replace(na.find("31.34%"), 6, "N/A");
  notes.clear();
  EXPECT_EQ(import_text(line + na, "t.log", o, Catalog::builtin(), notes).size(), 2u);
  EXPECT_TRUE(has_note(notes, "mfu N/A on a kept line"));
}

// Four iteration lines (1, 11, 21, 31), each one iteration: the first (the process's first step)
// is left out, the step time is the others' mean, the rates their harmonic mean.
TEST(ImportNanotronLog, IterationLinesToStepTimeThroughputAndTflopsExactly) {
  std::vector<std::string> notes;
  const auto rs =
      import_file(fixture("nanotron_training.log"), nanotron_options(), Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 3u);
  const Record& step = rs[0];
  EXPECT_EQ(step.id, "nanotron@" + fixture("nanotron_training.log") + "/step_time");
  EXPECT_EQ(*step.stack.framework, "nanotron");
  EXPECT_EQ(*step.stack.micro_batch, 1);    // the start line's mbs
  EXPECT_EQ(*step.stack.global_batch, 32);  // its global_batch_size, in sequences
  EXPECT_EQ(*step.workload.seq_len, 4096);  // its sequence_length
  EXPECT_EQ(step.stack.dp, 8);
  EXPECT_EQ(step.measured.metric, Metric::step_time);
  EXPECT_EQ(step.measured.unit, "ms");
  EXPECT_DOUBLE_EQ(step.measured.value, (2360.0 + 2350.0 + 2370.0) / 3);
  EXPECT_EQ(rs[1].measured.metric, Metric::training_throughput);
  EXPECT_EQ(rs[1].measured.scope, Scope::per_device);
  EXPECT_DOUBLE_EQ(rs[1].measured.value, 3 / (1 / 6940.0 + 1 / 6970.0 + 1 / 6910.0));
  EXPECT_EQ(rs[2].measured.metric, Metric::model_tflops);
  EXPECT_DOUBLE_EQ(rs[2].measured.value, 3 / (1 / 361.0 + 1 / 363.0 + 1 / 360.0));
  EXPECT_TRUE(has_note(notes, "warm-up skipped: the first logged iteration (1)"));
  EXPECT_TRUE(has_note(notes, "iterations 11 to 31"));
  EXPECT_TRUE(has_note(notes, "three significant digits"));
  for (const Record& r : rs) {
    const Prediction p = predict(r, Catalog::builtin());
    ASSERT_TRUE(p.si) << r.id << ": " << p.unpredicted;
  }
}

TEST(ImportNanotronLog, RefusesWhatItCannotReadByName) {
  const std::string text = text_of("nanotron_training.log");
  ImportOptions o = nanotron_options();
  o.seq_len = 8192;  // the start line prints 4096
  EXPECT_NE(refusal(text, o).find("--seq-len: value '8192'"), std::string::npos)
      << refusal(text, o);
  o = nanotron_options();
  o.tp.reset();
  EXPECT_NE(refusal(text, o).find("--tp: required: a nanotron log does not print parallelism.tp"),
            std::string::npos);
  o = nanotron_options();
  o.framework = "megatron";
  EXPECT_NE(refusal(text, o).find("--framework: value 'megatron'"), std::string::npos);

  const std::string line =
      "03/02 10:01:05 [INFO|DP=0]: iteration: 11 / 1000 | consumed_tokens: 1.44M | "
      "time_per_iteration_ms: 2.36K | tokens_per_sec: 55.5K | tokens_per_sec_per_gpu: 6.94K | "
      "global_batch_size: 131K | lm_loss: 9.87 | lr: 3.3e-05 | model_tflops_per_gpu: 361 | eta: "
      "0:38:54\n";
  auto at = [](std::string s, int iteration) {
    return s.replace(s.find("11 /"), 2, std::to_string(iteration));
  };
  // Without the start line, the batch and length come from the flags.
  o = nanotron_options();
  EXPECT_NE(refusal(line + at(line, 21), o).find("--micro-batch: required"), std::string::npos);
  o.micro_batch = 1;
  o.seq_len = 4096;
  o.global_batch = 32;
  std::vector<std::string> notes;
  EXPECT_EQ(import_text(line + at(line, 21), "t.log", o, Catalog::builtin(), notes).size(), 3u);
  EXPECT_NE(refusal("none\n", o).find("(no iteration line)"), std::string::npos);
  EXPECT_NE(refusal(line, o).find("at least two iteration lines"), std::string::npos);
  EXPECT_NE(refusal(line + line, o).find("t.log:2: iteration: value '11'"), std::string::npos);
  std::string tokens = at(line, 21);
  tokens.replace(tokens.find("131K"), 4, "262K");
  EXPECT_NE(refusal(line + tokens, o).find("t.log:2: global_batch_size: value '262000'"),
            std::string::npos);
  std::string bad = at(line, 21);
  bad.replace(bad.find("2.36K"), 5, "2.36G");
  EXPECT_NE(refusal(line + bad, o).find("t.log:2: time_per_iteration_ms: value '2.36G'"),
            std::string::npos);
  std::string no_rate = at(line, 21);
  no_rate.replace(no_rate.find("tokens_per_sec_per_gpu"), 22, "tokens_per_gpu");
  EXPECT_NE(refusal(line + no_rate, o).find("t.log:2: tokens_per_sec_per_gpu"), std::string::npos);
  // Before nanotron 2b141c2f: elapsed_time_per_iteration_ms, the global batch in sequences.
  std::string old = line;
  old.replace(old.find("time_per_iteration_ms"), 21, "elapsed_time_per_iteration_ms");
  old.replace(old.find("131K"), 4, "32");
  notes.clear();
  const auto rs = import_text(old + at(old, 21), "t.log", o, Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0].measured.value, 2360);
  EXPECT_NE(refusal(line + at(old, 21), o).find("the field names of one nanotron version"),
            std::string::npos);
}

}  // namespace
}  // namespace memwall::measure
