// The Megatron-LM / NeMo training log importer (import_megatron.cc) on a log written by hand to
// training_log()'s format at Megatron-LM commit 86df799dc4c7.
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

std::string fixture() { return testdata::fixture("megatron_training.log"); }

std::string log_text() { return testdata::text_of("megatron_training.log"); }

// llama-3.1-8b on one HGX H100 node, data parallel 8, micro-batch 1, sequence 8192.
ImportOptions megatron_options() {
  ImportOptions o;
  o.format = "megatron-log";
  o.model = "llama-3.1-8b";
  o.accelerator = "h100";
  o.devices = 8;
  o.tp = 1;
  o.pp = 1;
  o.micro_batch = 1;
  o.seq_len = 8192;
  o.training_precision = "bf16";
  return o;
}

std::string refusal(const std::string& text, const ImportOptions& o = megatron_options()) {
  std::vector<std::string> notes;
  try {
    import_text(text, "m.log", o, Catalog::builtin(), notes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(imported)";
}

// Four logged intervals of ten iterations: the first (the warm-up, 21034.5 ms) is left out; the
// other three give the iteration-weighted mean step time and the harmonic mean of TFLOP/s/GPU.
TEST(ImportMegatronLog, IterationLinesToStepTimeAndTflopsExactly) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture(), megatron_options(), Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 2u);
  const Record& step = rs[0];
  EXPECT_EQ(step.id, "megatron@" + fixture() + "/step_time");
  EXPECT_EQ(step.workload.mode, Mode::training);
  EXPECT_EQ(*step.workload.seq_len, 8192);
  EXPECT_EQ(*step.stack.framework, "megatron");
  EXPECT_EQ(step.stack.tp, 1);
  EXPECT_EQ(step.stack.pp, 1);
  EXPECT_EQ(step.stack.dp, 8);
  EXPECT_EQ(*step.stack.micro_batch, 1);
  EXPECT_EQ(*step.stack.global_batch, 128);  // from the lines' "global batch size"
  EXPECT_EQ(*step.stack.precision, "bf16");
  EXPECT_EQ(step.hardware.count, 8);
  EXPECT_EQ(step.measured.metric, Metric::step_time);
  EXPECT_EQ(step.measured.unit, "ms");
  EXPECT_DOUBLE_EQ(step.measured.value, (18520.0 + 18440.0 + 18460.0) / 3);
  const Record& tflops = rs[1];
  EXPECT_EQ(tflops.measured.metric, Metric::model_tflops);
  EXPECT_EQ(tflops.measured.scope, Scope::per_device);
  EXPECT_DOUBLE_EQ(tflops.measured.value, 3 / (1 / 409.8 + 1 / 411.6 + 1 / 411.2));
  bool warm = false, losses = false;
  for (const auto& n : notes) {
    warm = warm || n.find("warm-up skipped: the first logged interval (iterations up to 10)") !=
                       std::string::npos;
    losses = losses || n.find("not imported: lm loss") != std::string::npos;
  }
  EXPECT_TRUE(warm);
  EXPECT_TRUE(losses);
  // The records are the training estimator's questions.
  for (const Record& r : rs) {
    const Prediction p = predict(r, Catalog::builtin());
    ASSERT_TRUE(p.si) << r.id << ": " << p.unpredicted;
  }
}

TEST(ImportMegatronLog, RefusesWhatTheLogDoesNotCarryByName) {
  const std::string text = log_text();
  for (auto [field, unset] :
       {std::pair<std::string, void (*)(ImportOptions&)>{"--model: required",
                                                         [](ImportOptions& o) { o.model.reset(); }},
        {"--gpu: required", [](ImportOptions& o) { o.accelerator.reset(); }},
        {"--gpus: required", [](ImportOptions& o) { o.devices.reset(); }},
        {"--tp: required", [](ImportOptions& o) { o.tp.reset(); }},
        {"--pp: required", [](ImportOptions& o) { o.pp.reset(); }},
        {"--micro-batch: required", [](ImportOptions& o) { o.micro_batch.reset(); }},
        {"--seq-len: required", [](ImportOptions& o) { o.seq_len.reset(); }}}) {
    ImportOptions o = megatron_options();
    unset(o);
    EXPECT_NE(refusal(text, o).find(field), std::string::npos) << field << ": " << refusal(text, o);
  }
  ImportOptions o = megatron_options();
  o.micro_batch = 3;
  EXPECT_NE(refusal(text, o).find("--micro-batch: value '3'"), std::string::npos);
  o = megatron_options();
  o.global_batch = 256;
  EXPECT_NE(refusal(text, o).find("global batch size: value '128'"), std::string::npos);
  o = megatron_options();
  o.framework = "deepspeed";
  EXPECT_NE(refusal(text, o).find("--framework: value 'deepspeed'"), std::string::npos);
  o = megatron_options();
  o.model = "no-such-model";
  EXPECT_NE(refusal(text, o).find("no-such-model"), std::string::npos);
}

TEST(ImportMegatronLog, RefusesLogsItCannotReadAsOneRun) {
  const std::string line =
      " [2024-08-01 10:01:34] iteration       20/     500 | consumed samples:         2560 | "
      "elapsed time per iteration (ms): 4210.0 | global batch size:   128 |\n";
  auto at = [](std::string s, int iteration) {
    return s.replace(s.find("20/"), 2, std::to_string(iteration));
  };
  EXPECT_NE(refusal("no iterations here\n").find("(no iteration line)"), std::string::npos);
  EXPECT_NE(refusal(line).find("at least two iteration lines"), std::string::npos);
  EXPECT_NE(refusal(line + line).find("m.log:2: iteration: value '20'"), std::string::npos);
  std::string ramp = at(line, 40);
  ramp.replace(ramp.find("128"), 3, "256");
  EXPECT_NE(refusal(line + at(line, 30) + ramp).find("m.log:3: global batch size: value '256'"),
            std::string::npos);
  std::string no_time = at(line, 30);
  no_time.replace(no_time.find("elapsed"), 7, "elapsing");
  EXPECT_NE(refusal(line + no_time).find("m.log:2: elapsed time per iteration (ms)"),
            std::string::npos);
  std::string bad = at(line, 30);
  bad.replace(bad.find("4210.0"), 6, "nan");
  EXPECT_NE(refusal(line + bad).find("m.log:2: elapsed time per iteration (ms): value 'nan'"),
            std::string::npos);
  // Without throughput on the lines (--log-throughput off): the step time alone.
  std::vector<std::string> notes;
  const auto rs =
      import_text(line + at(line, 30), "m.log", megatron_options(), Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].measured.value, 4210.0);
}

}  // namespace
}  // namespace memwall::measure
