// The llm-d Benchmark Report v0.2 importer (import_llmd.cc) on a report written by hand to
// llm-d-benchmark's schema_v0_2.py at commit 8bc9f1ddd873, with made-up values.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"
#include "memwall/measure/import_test_util.h"
#include "memwall/measure/import.h"
#include "memwall/measure/predict.h"

namespace memwall::measure {
namespace {

std::string fixture() { return testdata::fixture("llmd_benchmark_report_v0_2.yaml"); }

Json report() {
  return parse_document(testdata::text_of("llmd_benchmark_report_v0_2.yaml"), fixture());
}

ImportOptions llmd_options() {
  ImportOptions o;
  o.format = "llm-d-report";
  o.accelerator = "h100";
  o.engine = "vllm";
  o.engine_version = "0.10.2";
  return o;
}

std::string refusal(const Json& doc, const ImportOptions& o = llmd_options()) {
  std::vector<std::string> notes;
  try {
    import_text(doc.dump(), "r.json", o, Catalog::builtin(), notes);
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

const Record* find(const std::vector<Record>& rs, const std::string& id_tail) {
  for (const Record& r : rs)
    if (r.id.size() >= id_tail.size() &&
        r.id.compare(r.id.size() - id_tail.size(), id_tail.size(), id_tail) == 0)
      return &r;
  return nullptr;
}

// A vllm-benchmark run at concurrency 16 on two single-GPU replicas: TTFT, TPOT, ITL and
// latency at mean, median, p90, p95, p99 and three throughputs.
TEST(ImportLlmdReport, ReportToRecordsExactly) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture(), llmd_options(), Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 23u);
  const Record& ttft = rs[0];
  EXPECT_EQ(ttft.id, "stage0.concurrency16@" + fixture() + "/time_to_first_token.mean");
  EXPECT_EQ(ttft.model.id, "llama-3.1-8b");
  EXPECT_EQ(ttft.hardware.count, 2);  // replicas x accelerator.count
  EXPECT_EQ(ttft.stack.dp, 2);
  EXPECT_EQ(ttft.stack.tp, 1);
  EXPECT_EQ(*ttft.stack.engine, "vllm");
  EXPECT_EQ(ttft.workload.mode, Mode::concurrency);
  EXPECT_EQ(*ttft.workload.concurrency, 16);
  EXPECT_EQ(*ttft.workload.requests, 640);
  EXPECT_EQ(ttft.workload.input->mean, 1024);  // the stated fixed lengths (no measured min/max)
  EXPECT_EQ(ttft.workload.output->mean, 128);
  EXPECT_EQ(ttft.measured.metric, Metric::ttft);
  EXPECT_EQ(ttft.measured.unit, "ms");
  EXPECT_DOUBLE_EQ(ttft.measured.value, 41.83);
  const Record* tpot = find(rs, "/time_per_output_token.p50");
  ASSERT_TRUE(tpot);
  EXPECT_EQ(tpot->measured.metric, Metric::tpot);
  EXPECT_EQ(tpot->measured.statistic, Statistic::median);
  EXPECT_DOUBLE_EQ(tpot->measured.si, 9.367e-3);
  const Record* itl = find(rs, "/inter_token_latency.p99");
  ASSERT_TRUE(itl);
  EXPECT_EQ(itl->measured.metric, Metric::itl);  // vLLM's itl: every gap pooled
  const Record* e2e = find(rs, "/request_latency.p95");
  ASSERT_TRUE(e2e);
  EXPECT_EQ(e2e->measured.metric, Metric::e2e_latency);
  EXPECT_DOUBLE_EQ(e2e->measured.si, 1.3672);
  const Record* rate = find(rs, "/request_rate.mean");
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->measured.metric, Metric::request_throughput);
  EXPECT_EQ(rate->measured.unit, "requests/s");
  EXPECT_DOUBLE_EQ(rate->measured.value, 12.9);
  EXPECT_TRUE(has_note(notes, "not imported: the generic component 'epp'"));
  EXPECT_TRUE(has_note(notes, "not imported: normalized_time_per_output_token"));
  const Prediction p = predict(ttft, Catalog::builtin());
  EXPECT_TRUE(p.si) << p.unpredicted;
}

// What each harness's TPOT and ITL are (native_to_br0_2.py).
TEST(ImportLlmdReport, HarnessDecidesWhatTpotAndItlAre) {
  Json doc = report();
  auto& load = doc["scenario"]["load"]["standardized"];
  load["tool"] = "aiperf";
  doc["results"]["request_performance"]["aggregate"]["latency"].erase("time_per_output_token");
  std::vector<std::string> notes;
  auto rs = import_text(doc.dump(), "r.json", llmd_options(), Catalog::builtin(), notes);
  const Record* aiperf_itl = find(rs, "/inter_token_latency.p90");
  ASSERT_TRUE(aiperf_itl);
  EXPECT_EQ(aiperf_itl->measured.metric, Metric::tpot);  // aiperf's per-request ITL
  doc = report();
  doc["scenario"]["load"]["standardized"]["tool"] = "guidellm";
  ImportOptions o = llmd_options();
  // A GuideLLM concurrency is a concurrent profile's streams or a throughput profile's cap.
  EXPECT_NE(refusal(doc, o).find("--load-type: required"), std::string::npos) << refusal(doc, o);
  o.load_type = "concurrent";
  notes.clear();
  rs = import_text(doc.dump(), "r.json", o, Catalog::builtin(), notes);
  EXPECT_FALSE(find(rs, "/time_per_output_token.mean"));  // the first token's wait included
  EXPECT_TRUE(find(rs, "/inter_token_latency.mean"));
  EXPECT_FALSE(find(rs, "/inter_token_latency.p90"));
  EXPECT_TRUE(has_note(notes, "not memwall's tpot (the first token's wait included)"));
  doc["scenario"]["load"]["standardized"]["tool"] = "inferencemax";
  EXPECT_NE(refusal(doc, o).find("standardized.tool: unknown name 'inferencemax'"),
            std::string::npos);
}

TEST(ImportLlmdReport, RateStagesAndLengths) {
  Json doc = report();
  auto& load = doc["scenario"]["load"]["standardized"];
  load["tool"] = "inference-perf";
  load.erase("concurrency");
  load["rate_qps"] = 4.0;
  EXPECT_NE(refusal(doc).find("--load-type: required: r.json.scenario.load.standardized.rate_qps "
                              "4 is a rate"),
            std::string::npos)
      << refusal(doc);
  ImportOptions o = llmd_options();
  o.load_type = "constant";
  EXPECT_NE(refusal(doc, o).find("--load-type: value 'constant'"), std::string::npos);
  o.load_type = "poisson";
  // Measured lengths that vary: the flag says how to read them.
  auto& requests = doc["results"]["request_performance"]["aggregate"]["requests"];
  requests["input_length"] = {
      {"units", "count"}, {"mean", 1010.5}, {"min", 900}, {"max", 1100}, {"stddev", 40}};
  EXPECT_NE(refusal(doc, o).find("input_length: the lengths vary"), std::string::npos)
      << refusal(doc, o);
  o.input = "uniform";
  std::vector<std::string> notes;
  const auto rs = import_text(doc.dump(), "r.json", o, Catalog::builtin(), notes);
  EXPECT_EQ(rs[0].workload.mode, Mode::request_rate);
  EXPECT_EQ(*rs[0].workload.request_rate, 4.0);
  EXPECT_EQ(rs[0].workload.input->distribution, "uniform");
  EXPECT_EQ(*rs[0].workload.input->min, 900);
  EXPECT_FALSE(find(rs, "/inter_token_latency.p90"));  // inference-perf: the mean only
  // A rate capped by a concurrency is no memwall load.
  load["concurrency"] = 8;
  EXPECT_NE(refusal(doc, o).find("standardized.concurrency: value '8'"), std::string::npos);
  // Gaussian stated lengths without measured min and max: refused, the flag named.
  doc = report();
  doc["scenario"]["load"]["standardized"]["output_seq_len"] = {
      {"distribution", "gaussian"}, {"value", 128}, {"std_dev", 10}};
  EXPECT_NE(refusal(doc).find("output_seq_len.distribution: value 'gaussian'"), std::string::npos);
}

TEST(ImportLlmdReport, RefusesWhatItCannotMapByName) {
  auto with = [](const std::function<void(Json&)>& change) {
    Json doc = report();
    change(doc);
    return refusal(doc);
  };
  EXPECT_NE(with([](Json& d) { d["version"] = "0.2.1"; }).find("r.json.version: value '\"0.2.1\"'"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) { d["extra"] = 1; }).find("r.json.extra"), std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["scenario"]["stack"][0]["standardized"]["role"] = "decode";
            }).find("standardized.role: value 'decode'"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["scenario"]["stack"].push_back(d["scenario"]["stack"][0]);
            }).find("(a second inference_engine)"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["scenario"]["stack"][0]["standardized"]["accelerator"]["count"] = 4;
            }).find("accelerator.count: value '4'"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["scenario"]["stack"][0]["standardized"]["accelerator"]["parallelism"]["dp"] = 4;
            }).find("parallelism.dp: value '4'"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["scenario"]["load"]["standardized"]["prefix"] = {{"num_groups", 4}};
            }).find("standardized.prefix"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["scenario"]["load"]["standardized"]["multi_turn"] = {{"enabled", true}};
            }).find("standardized.multi_turn"),
            std::string::npos);
  EXPECT_NE(with([](Json& d) {
              d["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"]
               ["units"] = "us";
            }).find("time_to_first_token.units: value 'us'"),
            std::string::npos);
  EXPECT_NE(
      with([](Json& d) {
        d["results"]["request_performance"]["aggregate"]["throughput"]["request_rate"]["p42"] = 1;
      }).find("request_rate.p42"),
      std::string::npos);
  // The accelerator: a name the catalog does not know needs --gpu.
  Json doc = report();
  ImportOptions o = llmd_options();
  o.accelerator.reset();
  EXPECT_NE(refusal(doc, o).find("--gpu: required: r.json.scenario.stack[0].standardized."
                                 "accelerator.model 'NVIDIA-H100-80GB-HBM3'"),
            std::string::npos)
      << refusal(doc, o);
  o = llmd_options();
  o.engine.reset();
  EXPECT_NE(refusal(doc, o).find("--engine: required: r.json.scenario.stack[0].standardized.tool "
                                 "'llm-d-cuda'"),
            std::string::npos);
  o = llmd_options();
  o.tp = 2;
  EXPECT_NE(refusal(doc, o).find("--tp: value '2'"), std::string::npos);
}

}  // namespace
}  // namespace memwall::measure
