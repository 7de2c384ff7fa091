#include "memwall/measure/import.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "memwall/core/error.h"
#include "memwall/core/precision.h"
#include "memwall/core/test_paths.h"
#include "memwall/measure/import_test_util.h"
#include "memwall/measure/predict.h"

namespace memwall::measure {
namespace {

using testdata::fixture;
using testdata::text_of;

ImportOptions serve_options() {
  ImportOptions o;
  o.format = "vllm-serve";
  o.accelerator = "h100";
  o.engine = "vllm";
  o.engine_version = "0.10.2";
  o.input = "1024";
  o.output = "128";
  return o;
}

const Record& by_id(const std::vector<Record>& rs, const std::string& id) {
  for (const auto& r : rs)
    if (r.id == id) return r;
  throw std::runtime_error("no record " + id);
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const auto& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// The message of the InputError `f` raises, or "(accepted)".
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string serve_refusal(const Json& run, const ImportOptions& o = serve_options()) {
  std::vector<std::string> notes;
  return refusal([&] { import_text(run.dump(), "run.json", o, Catalog::builtin(), notes); });
}

Json concurrency_run() {
  return Json::parse(text_of("vllm_serve_concurrency.json"));
}

TEST(ImportVllmServe, ConcurrencyRunToEveryRecordExactly) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("vllm_serve_concurrency.json"), serve_options(),
                              Catalog::builtin(), notes);
  // ttft, tpot, itl, e2el x mean, median, p90, p99 (no p95 in the file) + three throughputs.
  ASSERT_EQ(rs.size(), 19u);
  const Record& ttft = by_id(rs, "vllm@20261130-101500/mean_ttft_ms");
  EXPECT_EQ(ttft.model.id, "llama-3.1-8b");
  EXPECT_EQ(ttft.model.as_given, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(ttft.hardware.accelerator, "nvidia-h100-sxm");
  EXPECT_EQ(ttft.hardware.count, 1);
  EXPECT_EQ(*ttft.stack.engine, "vllm");
  EXPECT_EQ(*ttft.stack.version, "0.10.2");
  EXPECT_EQ(ttft.workload.mode, Mode::concurrency);
  EXPECT_EQ(*ttft.workload.concurrency, 32);
  EXPECT_EQ(*ttft.workload.requests, 320);
  EXPECT_EQ(ttft.workload.input->distribution, "fixed");
  EXPECT_EQ(ttft.workload.input->mean, 1024);
  EXPECT_EQ(ttft.workload.output->mean, 128);
  EXPECT_EQ(ttft.measured.metric, Metric::ttft);
  EXPECT_EQ(ttft.measured.statistic, Statistic::mean);
  EXPECT_EQ(ttft.measured.value, 210.5);
  EXPECT_EQ(ttft.measured.unit, "ms");
  EXPECT_DOUBLE_EQ(ttft.measured.si, 0.2105);
  const Record& p99 = by_id(rs, "vllm@20261130-101500/p99_tpot_ms");
  EXPECT_EQ(p99.measured.metric, Metric::tpot);
  EXPECT_EQ(p99.measured.statistic, Statistic::p99);
  EXPECT_EQ(p99.measured.value, 16.75);
  const Record& e2e = by_id(rs, "vllm@20261130-101500/median_e2el_ms");
  EXPECT_EQ(e2e.measured.metric, Metric::e2e_latency);
  EXPECT_EQ(e2e.measured.statistic, Statistic::median);
  EXPECT_EQ(e2e.measured.value, 1780.0);
  const Record& out = by_id(rs, "vllm@20261130-101500/output_throughput");
  EXPECT_EQ(out.measured.metric, Metric::output_throughput);
  EXPECT_EQ(out.measured.value, 2226.0869565217395);
  EXPECT_EQ(out.measured.unit, "tokens/s");
  const Record& total = by_id(rs, "vllm@20261130-101500/total_token_throughput");
  EXPECT_EQ(total.measured.metric, Metric::total_throughput);
  EXPECT_EQ(total.measured.value, 20034.782608695652);
  const Record& req = by_id(rs, "vllm@20261130-101500/request_throughput");
  EXPECT_EQ(req.measured.unit, "requests/s");
  EXPECT_EQ(req.measured.value, 17.39130434782609);
  // What was not imported is said, never dropped: the other percentiles, std, metadata.
  EXPECT_TRUE(has_note(notes, "p99.9_ttft_ms")) << notes.size();
  EXPECT_TRUE(has_note(notes, "std_tpot_ms"));
  EXPECT_TRUE(has_note(notes, "request_goodput"));
  EXPECT_TRUE(has_note(notes, "run_by=alice"));
  EXPECT_TRUE(has_note(notes, "version=0.10.2"));
}

TEST(ImportVllmServe, AppendedRunsWithPerRequestLengths) {
  ImportOptions o = serve_options();
  o.input.reset();
  o.output.reset();
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("vllm_serve_append.jsonl"), o, Catalog::builtin(), notes);
  // Each run: ttft, tpot, itl x mean, median, p99 + three throughputs; no e2el in the files.
  ASSERT_EQ(rs.size(), 24u);
  const Record& rate = by_id(rs, "rate4@20261130-110000/mean_tpot_ms");
  EXPECT_EQ(rate.model.id, "qwen2.5-7b");
  EXPECT_EQ(rate.workload.mode, Mode::request_rate);
  EXPECT_EQ(*rate.workload.request_rate, 4.0);
  EXPECT_EQ(*rate.workload.requests, 4);
  EXPECT_EQ(rate.workload.input->mean, 512);
  // The failed request's 0 output tokens are left out of the lengths, and said.
  EXPECT_EQ(rate.workload.output->distribution, "fixed");
  EXPECT_EQ(rate.workload.output->mean, 128);
  EXPECT_EQ(rate.measured.value, 9.8);
  EXPECT_TRUE(has_note(notes, "1 of 4 requests failed"));
  EXPECT_TRUE(has_note(notes, "1 entries of 0 tokens"));
  const Record& offline = by_id(rs, "offline@20261130-111500/request_throughput");
  EXPECT_EQ(offline.workload.mode, Mode::offline);
  EXPECT_EQ(*offline.workload.requests, 2);
  EXPECT_EQ(offline.measured.value, 1.25);
  EXPECT_NE(offline.source.find("vllm_serve_append.jsonl:3"), std::string::npos) << offline.source;
}

TEST(ImportVllmServe, VaryingLengthsNeedToBeReadAsADistribution) {
  Json run = concurrency_run();
  run["input_lens"] = {100, 200, 300, 400};
  run["output_lens"] = {128, 128, 128, 128};
  ImportOptions o = serve_options();
  o.input.reset();
  o.output.reset();
  const std::string m = serve_refusal(run, o);
  EXPECT_NE(m.find("run.json.input_lens: the lengths vary (4 requests from 100 to 400 tokens"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("--input"), std::string::npos) << m;

  std::vector<std::string> notes;
  o.input = "uniform:100,400";
  auto rs = import_text(run.dump(), "run.json", o, Catalog::builtin(), notes);
  EXPECT_EQ(rs[0].workload.input->distribution, "uniform");
  EXPECT_EQ(*rs[0].workload.input->min, 100);
  EXPECT_EQ(*rs[0].workload.input->max, 400);
  EXPECT_EQ(rs[0].workload.input->mean, 250);
  o.input = "lognormal";
  rs = import_text(run.dump(), "run.json", o, Catalog::builtin(), notes);
  EXPECT_EQ(rs[0].workload.input->distribution, "lognormal");
  EXPECT_DOUBLE_EQ(rs[0].workload.input->mean, 250);
  EXPECT_DOUBLE_EQ(*rs[0].workload.input->cv, std::sqrt(12500.0) / 250);
  // A length stated beside the list must be the list's.
  o.input = "250";
  EXPECT_NE(serve_refusal(run, o).find("--input: value '250' is not allowed; allowed: the lengths "
                                       "run.json.input_lens lists (4 requests from 100 to 400"),
            std::string::npos)
      << serve_refusal(run, o);
  run["input_lens"] = {300, 300, 300, 300};
  o.input = "300";
  rs = import_text(run.dump(), "run.json", o, Catalog::builtin(), notes);
  EXPECT_EQ(rs[0].workload.input->mean, 300);
  run["input_lens"] = {100, 200, 300, 400};
  // Bounds that leave a length out are refused with the range.
  o.input = "uniform:150,400";
  EXPECT_NE(serve_refusal(run, o).find("--input: value 'uniform:150,400' is not allowed"),
            std::string::npos)
      << serve_refusal(run, o);
}

// The route the client used, from serve.py's "backend" (endpoint_request_func.py
// ASYNC_REQUEST_FUNCS): completions, chat, or left unknown with a note; never a guess.
TEST(ImportVllmServe, TheBackendSaysWhichServerRouteTheRequestsTook) {
  auto endpoint_of = [](const Json& run, std::vector<std::string>& notes) {
    const auto rs = import_text(run.dump(), "run.json", serve_options(), Catalog::builtin(), notes);
    return rs.at(0).workload.endpoint;
  };
  std::vector<std::string> notes;
  EXPECT_EQ(endpoint_of(concurrency_run(), notes), Endpoint::completions);
  Json chat = concurrency_run();
  chat["backend"] = chat["endpoint_type"] = "openai-chat";
  EXPECT_EQ(endpoint_of(chat, notes), Endpoint::chat);
  Json other = concurrency_run();
  other["backend"] = other["endpoint_type"] = "tgi";
  notes.clear();
  EXPECT_FALSE(endpoint_of(other, notes).has_value());
  bool noted = false;
  for (const auto& n : notes) noted = noted || n.find("backend 'tgi'") != std::string::npos;
  EXPECT_TRUE(noted);
  Json pooling = concurrency_run();
  pooling["backend"] = "openai-embeddings";
  EXPECT_NE(serve_refusal(pooling).find("run.json.backend: value 'openai-embeddings'"),
            std::string::npos)
      << serve_refusal(pooling);
}

TEST(ImportVllmServe, RefusesWhatItCannotMapByName) {
  Json gamma = concurrency_run();
  gamma["request_rate"] = 8.0;
  gamma["max_concurrency"] = nullptr;
  gamma["burstiness"] = 0.5;
  EXPECT_NE(serve_refusal(gamma).find("run.json.burstiness: value '0.5'"), std::string::npos)
      << serve_refusal(gamma);
  Json both = concurrency_run();
  both["request_rate"] = 8.0;
  EXPECT_NE(serve_refusal(both).find("request_rate 8.0 with max_concurrency 32"), std::string::npos)
      << serve_refusal(both);
  Json ramp = concurrency_run();
  ramp["ramp_up_strategy"] = "linear";
  EXPECT_NE(serve_refusal(ramp).find("run.json.ramp_up_strategy"), std::string::npos);
  Json spec = concurrency_run();
  spec["spec_decode_acceptance_rate"] = 61.5;
  EXPECT_NE(serve_refusal(spec).find("run.json.spec_decode_acceptance_rate"), std::string::npos);
  Json unknown = concurrency_run();
  unknown["mean_goodness"] = 3;  // a number of no known meaning (metadata is text)
  EXPECT_NE(serve_refusal(unknown).find("run.json.mean_goodness: value '3'"), std::string::npos)
      << serve_refusal(unknown);
  Json no_prompts = concurrency_run();
  no_prompts.erase("num_prompts");
  EXPECT_NE(serve_refusal(no_prompts).find("'num_prompts' is missing"), std::string::npos);
  Json no_conc = concurrency_run();
  no_conc.erase("max_concurrency");
  EXPECT_NE(serve_refusal(no_conc).find("'max_concurrency' is missing"), std::string::npos);
  Json bad_value = concurrency_run();
  bad_value["mean_tpot_ms"] = -1;
  EXPECT_NE(serve_refusal(bad_value).find("run.json.mean_tpot_ms: value '-1'"), std::string::npos);
  Json model = concurrency_run();
  model["model_id"] = "acme/Unknown-13B";
  EXPECT_NE(serve_refusal(model).find("run.json: model_id"), std::string::npos)
      << serve_refusal(model);
  EXPECT_NE(serve_refusal(model).find("give --model"), std::string::npos);

  // What the file does not carry and no flag gave is named.
  ImportOptions o = serve_options();
  o.accelerator.reset();
  EXPECT_NE(serve_refusal(concurrency_run(), o).find("--gpu: required"), std::string::npos);
  o = serve_options();
  o.engine.reset();
  EXPECT_NE(serve_refusal(concurrency_run(), o)
                .find("--engine: required: run.json does not name "
                      "the engine that served (backend 'vllm'"),
            std::string::npos)
      << serve_refusal(concurrency_run(), o);
  o = serve_options();
  o.input.reset();
  EXPECT_NE(
      serve_refusal(concurrency_run(), o).find("--input: required: run.json holds no input_lens"),
      std::string::npos);
  EXPECT_NE(serve_refusal(concurrency_run(), o).find("total_input_tokens = 327680"),
            std::string::npos);
  // Malformed text, a list, an unknown format.
  std::vector<std::string> notes;
  EXPECT_NE(refusal([&] {
              import_text("{\"num_prompts\": ", "run.json", serve_options(), Catalog::builtin(),
                          notes);
            }),
            "(accepted)");
  EXPECT_NE(refusal([&] {
              import_text("[1, 2]", "run.json", serve_options(), Catalog::builtin(), notes);
            }).find("a JSON object of results"),
            std::string::npos);
  o = serve_options();
  o.batch = 8;  // the file records its load
  EXPECT_NE(serve_refusal(concurrency_run(), o).find("--batch: value '8' is not allowed"),
            std::string::npos);
  o = serve_options();
  o.format = "vllm-bench";
  EXPECT_NE(serve_refusal(concurrency_run(), o).find("--format"), std::string::npos);
}

TEST(ImportVllmThroughput, OfflineRunToTwoRecords) {
  ImportOptions o = serve_options();
  o.format = "vllm-throughput";
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("vllm_throughput.json"), o, Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].workload.mode, Mode::offline);
  EXPECT_EQ(*rs[0].workload.requests, 1000);
  EXPECT_EQ(rs[0].workload.endpoint, Endpoint::none);  // LLM.generate in-process: no server
  EXPECT_EQ(rs[0].measured.metric, Metric::total_throughput);
  EXPECT_EQ(rs[0].measured.value, 24427.480916030534);
  EXPECT_EQ(rs[0].measured.unit, "tokens/s");
  EXPECT_EQ(rs[1].measured.metric, Metric::request_throughput);
  EXPECT_EQ(rs[1].measured.value, 19.083969465648856);
  EXPECT_TRUE(has_note(notes, "--n"));
  o.model.reset();
  EXPECT_NE(refusal([&] {
              import_file(fixture("vllm_throughput.json"), o, Catalog::builtin(), notes);
            }).find("--model: required"),
            std::string::npos);
}

TEST(ImportVllmLatency, StaticBatchLatencies) {
  ImportOptions o = serve_options();
  o.format = "vllm-latency";
  o.model = "llama-3.1-8b";
  o.input = "32";
  std::vector<std::string> notes;
  EXPECT_NE(refusal([&] {
              import_file(fixture("vllm_latency.json"), o, Catalog::builtin(), notes);
            }).find("--batch: required"),
            std::string::npos);
  o.batch = 8;
  const auto rs = import_file(fixture("vllm_latency.json"), o, Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[0].workload.mode, Mode::static_batch);
  EXPECT_EQ(*rs[0].workload.batch, 8);
  EXPECT_EQ(rs[0].workload.input->mean, 32);
  EXPECT_EQ(rs[0].measured.metric, Metric::e2e_latency);
  EXPECT_EQ(rs[0].measured.statistic, Statistic::mean);
  EXPECT_EQ(rs[0].measured.value, 1.6125);
  EXPECT_EQ(rs[0].measured.unit, "s");
  EXPECT_EQ(rs[1].measured.statistic, Statistic::median);
  EXPECT_EQ(rs[2].measured.statistic, Statistic::p90);
  EXPECT_EQ(rs[2].measured.value, 1.6185);
  EXPECT_EQ(rs[3].measured.statistic, Statistic::p99);
  EXPECT_EQ(rs[3].measured.value, 1.61985);
  EXPECT_TRUE(has_note(notes, "percentiles.10 (1.603 s)"));
  Json extra = Json::parse(text_of("vllm_latency.json"));
  extra["batch_size"] = 8;
  EXPECT_NE(refusal([&] {
              import_text(extra.dump(), "lat.json", o, Catalog::builtin(), notes);
            }).find("lat.json.batch_size"),
            std::string::npos);
}

ImportOptions sglang_options() {
  ImportOptions o;
  o.format = "sglang-serve";
  o.model = "llama-3.1-8b";
  o.accelerator = "h100";
  o.engine = "sglang";
  o.engine_version = "0.4";
  return o;
}

// Two appended runs of sglang.bench_serving: the default rate (Python's bare Infinity) with a
// concurrency cap, and a Poisson rate with random lengths over [len x ratio, len].
TEST(ImportSglangServe, AppendedRunsToEveryRecordExactly) {
  std::vector<std::string> notes;
  const auto rs =
      import_file(fixture("sglang_serve.jsonl"), sglang_options(), Catalog::builtin(), notes);
  // Per run: ttft, tpot, e2e_latency x mean, median, p99; itl mean, median, p95, p99; output
  // and request throughput.
  ASSERT_EQ(rs.size(), 30u);
  const std::string w = fixture("sglang_serve.jsonl");
  const Record& ttft = by_id(rs, "sglang@" + w + ":1/mean_ttft_ms");
  EXPECT_EQ(ttft.model.id, "llama-3.1-8b");
  EXPECT_EQ(ttft.hardware.accelerator, "nvidia-h100-sxm");
  EXPECT_EQ(*ttft.stack.engine, "sglang");
  EXPECT_EQ(ttft.workload.mode, Mode::concurrency);
  EXPECT_EQ(*ttft.workload.concurrency, 16);
  EXPECT_EQ(*ttft.workload.requests, 160);
  EXPECT_EQ(ttft.workload.input->distribution, "fixed");
  EXPECT_EQ(ttft.workload.input->mean, 1024);
  EXPECT_EQ(ttft.workload.output->mean, 256);
  EXPECT_EQ(ttft.measured.value, 180.2);
  EXPECT_DOUBLE_EQ(ttft.measured.si, 0.1802);
  const Record& e2e = by_id(rs, "sglang@" + w + ":1/p99_e2e_latency_ms");
  EXPECT_EQ(e2e.measured.metric, Metric::e2e_latency);
  EXPECT_EQ(e2e.measured.statistic, Statistic::p99);
  EXPECT_EQ(e2e.measured.value, 4400.1);
  const Record& itl = by_id(rs, "sglang@" + w + ":1/p95_itl_ms");
  EXPECT_EQ(itl.measured.metric, Metric::itl);
  EXPECT_EQ(itl.measured.statistic, Statistic::p95);
  const Record& poisson = by_id(rs, "sglang-oai@" + w + ":2/output_throughput");
  EXPECT_EQ(poisson.workload.mode, Mode::request_rate);
  EXPECT_EQ(*poisson.workload.request_rate, 4.0);
  EXPECT_EQ(*poisson.workload.requests, 300);
  EXPECT_EQ(poisson.workload.input->distribution, "uniform");
  EXPECT_EQ(poisson.workload.input->mean, 1536);
  EXPECT_EQ(poisson.workload.output->mean, 96);
  EXPECT_EQ(poisson.measured.metric, Metric::output_throughput);
  EXPECT_EQ(poisson.measured.value, 384.0);
  EXPECT_EQ(by_id(rs, "sglang-oai@" + w + ":2/request_throughput").measured.unit, "requests/s");
  EXPECT_TRUE(has_note(notes, "std_ttft_ms"));
  EXPECT_TRUE(has_note(notes, "input_throughput"));
  EXPECT_TRUE(has_note(notes, "requests: the 160 completed"));
}

TEST(ImportSglangServe, RefusesWhatItCannotMapByName) {
  const std::string line = text_of("sglang_serve.jsonl").substr(0, text_of("sglang_serve.jsonl").find('\n'));
  auto refused = [&](const std::string& from, const std::string& to,
                     const ImportOptions& o = sglang_options()) {
    std::string t = line;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    std::vector<std::string> notes;
    return refusal([&] { import_text(t, "run.jsonl", o, Catalog::builtin(), notes); });
  };
  EXPECT_NE(refused("\"accept_length\": null", "\"accept_length\": 2.4")
                .find("run.jsonl.accept_length: value '2.4' is not allowed"),
            std::string::npos);
  EXPECT_NE(refused("\"dataset_name\": \"random\"", "\"dataset_name\": \"generated-shared-prefix\"")
                .find("prefix cache"),
            std::string::npos);
  EXPECT_NE(refused("\"request_rate\": Infinity", "\"request_rate\": 8")
                .find("request_rate 8 with max_concurrency 16"),
            std::string::npos);
  // NaN where a number was measured: refused, never read as 0.
  EXPECT_NE(refused("\"mean_tpot_ms\": 15.4", "\"mean_tpot_ms\": NaN")
                .find("run.jsonl.mean_tpot_ms: value '\"NaN\"' is not allowed; allowed: a number >= 0"),
            std::string::npos);
  EXPECT_NE(refused("\"concurrency\": 15.9", "\"concurrency\": 15.9, \"goodput\": 3")
                .find("run.jsonl.goodput: value '3' is not allowed; allowed: a field of"),
            std::string::npos);
  ImportOptions no_model = sglang_options();
  no_model.model.reset();
  EXPECT_NE(refused("\"completed\": 160", "\"completed\": 160", no_model)
                .find("--model: required"),
            std::string::npos);
  // Lengths the file states are not overridden by a flag that disagrees.
  ImportOptions with_input = sglang_options();
  with_input.input = "512";
  EXPECT_NE(refused("\"completed\": 160", "\"completed\": 160", with_input)
                .find("--input: value '512' is not allowed; allowed: no --input"),
            std::string::npos);
  // "NaN" inside a text stays text.
  EXPECT_EQ(refused("\"backend\": \"sglang\"", "\"backend\": \"NaN Infinity\""), "(accepted)");
}

ImportOptions llama_bench_options() {
  ImportOptions o;
  o.format = "llama-bench";
  o.model = "llama-3.1-8b";
  o.accelerator = "rtx-4090";
  return o;
}

// `llama-bench -o json`: a pp test is the prefill of one prompt (prompt_throughput), a tg test
// n_gen single-token steps from an empty context (output_throughput of a one-token prompt).
TEST(ImportLlamaBench, PromptAndGenerationTestsToRecords) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("llama_bench.json"), llama_bench_options(),
                              Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 2u);
  const std::string w = fixture("llama_bench.json");
  const Record& pp = by_id(rs, "pp512@" + w + "[0]");
  EXPECT_EQ(*pp.stack.engine, "llama.cpp");
  EXPECT_EQ(pp.stack.weight_precision, Precision::fp16);
  EXPECT_EQ(pp.stack.kv_precision, Precision::fp16);
  EXPECT_EQ(*pp.stack.max_num_batched_tokens, 512);
  EXPECT_EQ(pp.workload.mode, Mode::static_batch);
  EXPECT_EQ(*pp.workload.batch, 1);
  EXPECT_EQ(pp.workload.input->mean, 512);
  EXPECT_EQ(pp.workload.output->mean, 1);
  EXPECT_EQ(pp.measured.metric, Metric::prompt_throughput);
  EXPECT_EQ(pp.measured.value, 9381.92);
  const Record& tg = by_id(rs, "tg128@" + w + "[1]");
  EXPECT_EQ(tg.workload.input->mean, 1);
  EXPECT_EQ(tg.workload.output->mean, 128);
  EXPECT_EQ(tg.measured.metric, Metric::output_throughput);
  EXPECT_EQ(tg.measured.value, 54.84);
  EXPECT_TRUE(has_note(notes, "gpu_info 'NVIDIA GeForce RTX 4090'"));
  // The prediction of a pp record is batch x prompt / TTFT of the same static batch.
  const Prediction p = predict(pp, Catalog::builtin(), PredictOptions{});
  ASSERT_TRUE(p.si) << p.unpredicted;
  EXPECT_GT(*p.si, 1000);
  EXPECT_LT(*p.si, 100000);
}

TEST(ImportLlamaBench, RefusesWhatItCannotMapByName) {
  const Json tests = Json::parse(text_of("llama_bench.json"));
  auto refused = [&](const std::string& key, const Json& value,
                     const ImportOptions& o = llama_bench_options()) {
    Json t = tests[1];
    t[key] = value;
    std::vector<std::string> notes;
    return refusal(
        [&] { import_text(Json::array({t}).dump(), "b.json", o, Catalog::builtin(), notes); });
  };
  EXPECT_NE(refused("n_depth", 512).find("b.json[0].n_depth: value '512' is not allowed"),
            std::string::npos);
  EXPECT_NE(refused("n_prompt", 512).find("a pg test's one time over both"), std::string::npos);
  EXPECT_NE(refused("n_gpu_layers", 20).find("at least the model's 32 layers"), std::string::npos);
  EXPECT_NE(refused("model_type", "llama 8B Q4_K - Medium").find("--weight-precision: required"),
            std::string::npos);
  EXPECT_NE(refused("type_k", "q8_0").find("--kv-precision: required"), std::string::npos);
  EXPECT_NE(refused("no_kv_offload", true).find("no_kv_offload: value 'true'"), std::string::npos);
  EXPECT_NE(refused("use_direct_io", false).find("b.json[0].use_direct_io: value 'false' is not "
                                                 "allowed; allowed: a field of"),
            std::string::npos);
  ImportOptions vllm = llama_bench_options();
  vllm.engine = "vllm";
  EXPECT_NE(refused("n_gen", 128, vllm).find("--engine: value 'vllm'"), std::string::npos);
  // The same test as JSON Lines (-o jsonl) reads the same.
  std::vector<std::string> notes;
  const auto rs = import_text(tests[0].dump() + "\n" + tests[1].dump() + "\n", "b.jsonl",
                              llama_bench_options(), Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[1].id, "tg128@b.jsonl:2");
}

ImportOptions inference_perf_options() {
  ImportOptions o;
  o.format = "inference-perf";
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.accelerator = "h100";
  o.engine = "vllm";
  o.engine_version = "0.10.2";
  return o;
}

// inference-perf's stage report (kubernetes-sigs/inference-perf 7de5ef2e reportgen/base.py
// summarize_requests), a concurrent stage of 16 clients: every statistic memwall predicts, to the
// record.
TEST(ImportInferencePerf, ConcurrentStageToEveryRecordExactly) {
  std::vector<std::string> notes;
  const std::string w = fixture("inference_perf_stage_0_lifecycle_metrics.json");
  const auto rs = import_file(w, inference_perf_options(), Catalog::builtin(), notes);
  // ttft, tpot and e2e_latency x mean, median, p90, p95, p99; itl mean; three throughputs.
  ASSERT_EQ(rs.size(), 19u);
  const std::string id = "concurrency16@" + w;
  const Record& ttft = by_id(rs, id + "/time_to_first_token.p99");
  EXPECT_EQ(ttft.model.id, "llama-3.1-8b");
  EXPECT_EQ(ttft.hardware.accelerator, "nvidia-h100-sxm");
  EXPECT_EQ(ttft.workload.mode, Mode::concurrency);
  EXPECT_EQ(*ttft.workload.concurrency, 16);
  EXPECT_EQ(*ttft.workload.requests, 318);  // the successful requests
  EXPECT_EQ(ttft.workload.input->distribution, "fixed");
  EXPECT_EQ(ttft.workload.input->mean, 1024);
  EXPECT_EQ(ttft.workload.output->mean, 128);  // the server's count (output_tokens), not output_len
  EXPECT_EQ(ttft.measured.metric, Metric::ttft);
  EXPECT_EQ(ttft.measured.statistic, Statistic::p99);
  EXPECT_EQ(ttft.measured.value, 0.2874);
  EXPECT_EQ(ttft.measured.unit, "s");
  const Record& tpot = by_id(rs, id + "/time_per_output_token.median");
  EXPECT_EQ(tpot.measured.metric, Metric::tpot);
  EXPECT_EQ(tpot.measured.value, 0.01548);
  EXPECT_EQ(by_id(rs, id + "/request_latency.mean").measured.metric, Metric::e2e_latency);
  const Record& itl = by_id(rs, id + "/inter_token_latency.mean");
  EXPECT_EQ(itl.measured.metric, Metric::itl);
  EXPECT_EQ(itl.measured.value, 0.01551);
  EXPECT_THROW(by_id(rs, id + "/inter_token_latency.p99"), std::runtime_error);
  const Record& out = by_id(rs, id + "/output_tokens_per_sec");
  EXPECT_EQ(out.measured.metric, Metric::output_throughput);
  EXPECT_EQ(out.measured.statistic, Statistic::value);
  EXPECT_EQ(out.measured.value, 972.19);
  EXPECT_EQ(by_id(rs, id + "/total_tokens_per_sec").measured.metric, Metric::total_throughput);
  EXPECT_EQ(by_id(rs, id + "/requests_per_sec").measured.unit, "requests/s");
  EXPECT_TRUE(has_note(notes, "2 of 320 requests failed"));
  EXPECT_TRUE(has_note(notes, "token_count_mismatches: 3"));
  EXPECT_TRUE(has_note(notes, "normalized_time_per_output_token (the first token's wait"));
}

TEST(ImportInferencePerf, RefusesWhatItCannotMapByName) {
  const Json report = Json::parse(text_of("inference_perf_stage_0_lifecycle_metrics.json"));
  const auto with = [&](const Json::json_pointer& at, const Json& value) {
    Json r = report;
    r[at] = value;
    return r;
  };
  const auto refused = [&](const Json& r, const ImportOptions& o = inference_perf_options()) {
    std::vector<std::string> notes;
    return refusal([&] { import_text(r.dump(), "s.json", o, Catalog::builtin(), notes); });
  };
  // A rate stage: the arrival process is in config.yaml, so --load-type says it.
  Json rate = report;
  rate["load_summary"].erase("concurrency");
  EXPECT_NE(refused(rate).find("--load-type: required: s.json.load_summary.requested_rate 8"),
            std::string::npos)
      << refused(rate);
  ImportOptions poisson = inference_perf_options();
  poisson.load_type = "poisson";
  std::vector<std::string> notes;
  const auto rs = import_text(rate.dump(), "s.json", poisson, Catalog::builtin(), notes);
  EXPECT_EQ(rs.front().workload.mode, Mode::request_rate);
  EXPECT_EQ(*rs.front().workload.request_rate, 8.0);
  EXPECT_TRUE(has_note(notes, "achieved 8.077"));
  ImportOptions constant = inference_perf_options();
  constant.load_type = "constant";
  EXPECT_NE(refused(rate, constant).find("--load-type: value 'constant'"), std::string::npos)
      << refused(rate, constant);
  // A generator that fell behind its rate: the offered load is not the requested one.
  Json late = rate;
  late["load_summary"]["schedule_delay"]["median"] = 0.4;
  EXPECT_NE(refused(late, poisson).find("schedule_delay.median"), std::string::npos)
      << refused(late, poisson);
  // The run's summary pools every stage.
  Json summary = rate;
  summary["load_summary"] = {{"count", 320}, {"schedule_delay", nullptr}};
  EXPECT_NE(refused(summary).find("pools every stage"), std::string::npos) << refused(summary);
  // Prefix-cache hits, multimodal requests, lengths without a stated distribution, other fields.
  EXPECT_NE(refused(with(Json::json_pointer("/successes/prompt_tokens/cached"), 512.0))
                .find("prompt_tokens.cached"),
            std::string::npos);
  EXPECT_NE(refused(with(Json::json_pointer("/successes/image/count/mean"), 1.0))
                .find("image.count.mean"),
            std::string::npos);
  Json varied = with(Json::json_pointer("/successes/prompt_tokens/max"), 2048.0);
  EXPECT_NE(refused(varied).find("the lengths vary"), std::string::npos) << refused(varied);
  ImportOptions lognormal = inference_perf_options();
  lognormal.input = "lognormal";
  EXPECT_NE(refused(varied, lognormal).find("no standard deviation"), std::string::npos)
      << refused(varied, lognormal);
  EXPECT_NE(refused(with(Json::json_pointer("/successes/latency/ttft_ms"), 3.0)).find("ttft_ms"),
            std::string::npos);
  Json old = report;
  old.erase("benchmark_time_seconds");
  EXPECT_NE(refused(old).find("'benchmark_time_seconds' is missing"), std::string::npos);
  ImportOptions no_engine = inference_perf_options();
  no_engine.engine.reset();
  EXPECT_NE(refused(report, no_engine).find("--engine"), std::string::npos);
  ImportOptions stray = inference_perf_options();
  stray.load_type = "poisson";
  stray.format = "guidellm";
  EXPECT_NE(refused(report, stray).find("--load-type"), std::string::npos);
  EXPECT_NE(refused(Json::array()).find("not an inference-perf lifecycle report"),
            std::string::npos);
}

ImportOptions guidellm_options() {
  ImportOptions o;
  o.format = "guidellm";
  o.accelerator = "h100";
  o.engine = "vllm";
  o.engine_version = "0.10.2";
  return o;
}

std::string guidellm_refusal(const Json& report, const ImportOptions& o = guidellm_options()) {
  std::vector<std::string> notes;
  return refusal([&] { import_text(report.dump(), "g.json", o, Catalog::builtin(), notes); });
}

// A GuideLLM sweep (benchmarks.json, report schema 2): synchronous, throughput and a Poisson rate;
// only the successful requests' statistics.
TEST(ImportGuidellm, SweepToEveryRecordExactly) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("guidellm_benchmarks.json"), guidellm_options(),
                              Catalog::builtin(), notes);
  // Per benchmark: ttft and e2e_latency x mean, median, p90, p95, p99; itl mean; three rates.
  // The throughput benchmark never reached its limit (peak 512 of 10240 in flight): its rates
  // only.
  ASSERT_EQ(rs.size(), 31u);
  const std::string w = fixture("guidellm_benchmarks.json");
  const Record& sync = by_id(rs, "synchronous@" + w + ".benchmarks[0]/time_to_first_token_ms.mean");
  EXPECT_EQ(sync.model.id, "llama-3.1-8b");
  EXPECT_EQ(sync.model.as_given, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(sync.hardware.accelerator, "nvidia-h100-sxm");
  EXPECT_EQ(*sync.stack.engine, "vllm");
  EXPECT_EQ(sync.workload.mode, Mode::concurrency);
  EXPECT_EQ(*sync.workload.concurrency, 1);
  EXPECT_EQ(*sync.workload.requests, 271);
  EXPECT_EQ(sync.workload.input->distribution, "fixed");
  EXPECT_EQ(sync.workload.input->mean, 1024);
  EXPECT_EQ(sync.workload.output->mean, 128);
  EXPECT_EQ(sync.measured.metric, Metric::ttft);
  EXPECT_EQ(sync.measured.statistic, Statistic::mean);
  EXPECT_EQ(sync.measured.value, 22.8);
  EXPECT_DOUBLE_EQ(sync.measured.si, 0.0228);
  const Record& p99 = by_id(rs, "synchronous@" + w + ".benchmarks[0]/request_latency.p99");
  EXPECT_EQ(p99.measured.metric, Metric::e2e_latency);
  EXPECT_EQ(p99.measured.statistic, Statistic::p99);
  EXPECT_EQ(p99.measured.value, 0.832);
  EXPECT_EQ(p99.measured.unit, "s");
  // The token-weighted mean of each request's mean gap is the mean of every gap: itl.
  const Record& itl = by_id(rs, "synchronous@" + w + ".benchmarks[0]/inter_token_latency_ms.mean");
  EXPECT_EQ(itl.measured.metric, Metric::itl);
  EXPECT_EQ(itl.measured.value, 6.21);
  const Record& offline =
      by_id(rs, "throughput@" + w + ".benchmarks[1]/output_tokens_per_second.mean");
  EXPECT_EQ(offline.workload.mode, Mode::offline);
  EXPECT_FALSE(offline.workload.requests.has_value());  // a measured window, not a burst
  EXPECT_EQ(offline.measured.metric, Metric::output_throughput);
  EXPECT_EQ(offline.measured.statistic, Statistic::value);
  EXPECT_EQ(offline.measured.value, 1792.0);
  const Record& total = by_id(rs, "throughput@" + w + ".benchmarks[1]/tokens_per_second.mean");
  EXPECT_EQ(total.measured.metric, Metric::total_throughput);
  EXPECT_EQ(total.measured.value, 16128.0);
  const Record& rate = by_id(rs, "poisson4@" + w + ".benchmarks[2]/requests_per_second.mean");
  EXPECT_EQ(rate.workload.mode, Mode::request_rate);
  EXPECT_EQ(*rate.workload.request_rate, 4.0);
  EXPECT_EQ(*rate.workload.requests, 438);
  EXPECT_EQ(rate.measured.metric, Metric::request_throughput);
  EXPECT_EQ(rate.measured.unit, "requests/s");
  EXPECT_EQ(rate.measured.value, 3.98);
  EXPECT_EQ(
      by_id(rs, "poisson4@" + w + ".benchmarks[2]/time_to_first_token_ms.median").measured.value,
      55.0);
  EXPECT_THROW(by_id(rs, "throughput@" + w + ".benchmarks[1]/time_to_first_token_ms.mean"),
               std::runtime_error);
  EXPECT_TRUE(has_note(notes, "never reached its concurrency limit"));
  EXPECT_TRUE(has_note(notes, "2 of 440 requests errored or were incomplete"));
  EXPECT_TRUE(has_note(notes, "time_per_output_token_ms (includes the first token's wait"));
}

TEST(ImportGuidellm, RefusesWhatItCannotMapByName) {
  const Json report = Json::parse(text_of("guidellm_benchmarks.json"));
  const auto with = [&](const Json::json_pointer& at, const Json& value) {
    Json r = report;
    r[at] = value;
    return r;
  };
  const Json::json_pointer strategy("/benchmarks/0/config/strategy");
  // A concurrent strategy is a concurrency (read, not refused).
  std::vector<std::string> notes;
  Json conc = with(strategy, {{"type_", "concurrent"}, {"streams", 16}, {"rampup_duration", 0.0}});
  const auto rs = import_text(conc.dump(), "g.json", guidellm_options(), Catalog::builtin(), notes);
  EXPECT_EQ(rs[0].id, "concurrent16@g.json.benchmarks[0]/time_to_first_token_ms.mean");
  EXPECT_EQ(*rs[0].workload.concurrency, 16);
  // Arrivals memwall's records cannot state, by name.
  EXPECT_NE(guidellm_refusal(with(strategy, {{"type_", "constant"}, {"rate", 4.0}}))
                .find("g.json.benchmarks[0].config.strategy.type_: value 'constant' is not "
                      "allowed; allowed: synchronous, concurrent, throughput or poisson"),
            std::string::npos)
      << guidellm_refusal(with(strategy, {{"type_", "constant"}, {"rate", 4.0}}));
  EXPECT_NE(guidellm_refusal(with(strategy, {{"type_", "trace"}, {"time_scale", 1.0}}))
                .find("strategy.type_: value 'trace'"),
            std::string::npos);
  // The scheduler writes the limit it resolved: a limit the run reached (benchmark 0's peak is 1
  // in flight) caps a Poisson rate (refused) and makes a throughput run a concurrency.
  EXPECT_NE(guidellm_refusal(
                with(strategy, {{"type_", "poisson"}, {"rate", 4.0}, {"max_concurrency", 1}}))
                .find("strategy.max_concurrency: value '1' is not allowed; allowed: a limit the "
                      "run never reached"),
            std::string::npos);
  Json capped = with(strategy, {{"type_", "poisson"}, {"rate", 4.0}, {"max_concurrency", 8}});
  EXPECT_EQ(import_text(capped.dump(), "g.json", guidellm_options(), Catalog::builtin(), notes)[0]
                .workload.mode,
            Mode::request_rate);
  Json full = with(strategy, {{"type_", "throughput"}, {"max_concurrency", 1}});
  const auto rf = import_text(full.dump(), "g.json", guidellm_options(), Catalog::builtin(), notes);
  EXPECT_EQ(rf[0].id, "throughput1@g.json.benchmarks[0]/time_to_first_token_ms.mean");
  EXPECT_EQ(*rf[0].workload.concurrency, 1);
  EXPECT_EQ(rf[0].measured.value, 22.8);
  EXPECT_NE(guidellm_refusal(
                with(strategy, {{"type_", "concurrent"}, {"streams", 8}, {"rampup_duration", 5}}))
                .find("strategy.rampup_duration: value '5'"),
            std::string::npos);
  // Another report version, another version's fields.
  EXPECT_NE(guidellm_refusal(with(Json::json_pointer("/metadata/version"), 1))
                .find("g.json.metadata.version: value '1' is not allowed; allowed: 2"),
            std::string::npos);
  Json old = report;
  old.erase("metadata");  // guidellm 0.3 and before wrote no report version
  EXPECT_NE(guidellm_refusal(old).find("g.json: required field 'metadata' is missing"),
            std::string::npos);
  EXPECT_NE(guidellm_refusal(with(Json::json_pointer("/benchmarks/1/run_stats"), Json::object()))
                .find("g.json.benchmarks[1].run_stats: value '{}' is not allowed"),
            std::string::npos);
  EXPECT_NE(guidellm_refusal(with(Json::json_pointer("/benchmarks/1/metrics/goodput"), 3))
                .find("g.json.benchmarks[1].metrics.goodput: value '3'"),
            std::string::npos);
  // Token counts: missing, or none reported.
  Json no_output = report;
  no_output["benchmarks"][2]["metrics"].erase("output_token_count");
  EXPECT_NE(guidellm_refusal(no_output).find(
                "g.json.benchmarks[2].metrics: required field 'output_token_count' is "
                "missing"),
            std::string::npos)
      << guidellm_refusal(no_output);
  EXPECT_NE(
      guidellm_refusal(
          with(Json::json_pointer("/benchmarks/2/metrics/prompt_token_count/successful/count"), 0))
          .find("g.json.benchmarks[2].metrics.prompt_token_count.successful.count: value '0'"),
      std::string::npos);
  EXPECT_NE(guidellm_refusal(with(Json::json_pointer("/benchmarks/0/metrics/request_totals/"
                                                     "successful"),
                                  0))
                .find("request_totals.successful: value '0'"),
            std::string::npos);
  EXPECT_NE(
      guidellm_refusal(with(Json::json_pointer("/benchmarks/0/metrics/image/tokens"),
                            {{"successful", {{"total_sum", 2048.0}}}}))
          .find("g.json.benchmarks[0].metrics.image.tokens.successful.total_sum: value '2048.0'"),
      std::string::npos);
  // Lengths that vary are read only as a flag says.
  Json varying =
      with(Json::json_pointer("/benchmarks/0/metrics/prompt_token_count/successful/max"), 1100.0);
  EXPECT_NE(guidellm_refusal(varying).find(
                "g.json.benchmarks[0].metrics.prompt_token_count.successful: the lengths vary "
                "(271 requests from 1024 to 1100 tokens, mean 1024)"),
            std::string::npos)
      << guidellm_refusal(varying);
  ImportOptions o = guidellm_options();
  o.input = "uniform";
  const auto ru = import_text(varying.dump(), "g.json", o, Catalog::builtin(), notes);
  EXPECT_EQ(ru[0].workload.input->distribution, "uniform");
  EXPECT_EQ(*ru[0].workload.input->max, 1100);
  // What the file does not carry and no flag gave.
  o = guidellm_options();
  o.engine.reset();
  EXPECT_NE(guidellm_refusal(report, o).find(
                "--engine: required: g.json.benchmarks[0] does not name the engine that "
                "served (config.backend.kind 'openai_http' is the client)"),
            std::string::npos)
      << guidellm_refusal(report, o);
}

ImportOptions export_options(const char* format) {
  ImportOptions o;
  o.format = format;
  o.accelerator = "h100";
  o.engine = "vllm";
  o.engine_version = "0.10.2";
  return o;
}

std::string export_refusal(const Json& run, const char* format) {
  std::vector<std::string> notes;
  return refusal([&] {
    import_text(run.dump(), "p.json", export_options(format), Catalog::builtin(), notes);
  });
}

// AIPerf's profile_export_aiperf.json at concurrency 16: units read from the file.
TEST(ImportProfileExport, AiperfToEveryRecordExactly) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("aiperf_profile_export.json"), export_options("aiperf"),
                              Catalog::builtin(), notes);
  // ttft, tpot, e2e_latency x mean, median, p90, p95, p99 + output and request throughput.
  ASSERT_EQ(rs.size(), 17u);
  const std::string w = fixture("aiperf_profile_export.json");
  const Record& ttft = by_id(rs, "concurrency16@" + w + "/time_to_first_token.avg");
  EXPECT_EQ(ttft.model.id, "qwen2.5-7b");
  EXPECT_EQ(ttft.workload.mode, Mode::concurrency);
  EXPECT_EQ(*ttft.workload.concurrency, 16);
  EXPECT_EQ(*ttft.workload.requests, 320);
  EXPECT_EQ(ttft.workload.input->mean, 550);
  EXPECT_EQ(ttft.workload.output->mean, 256);
  EXPECT_EQ(ttft.measured.metric, Metric::ttft);
  EXPECT_EQ(ttft.measured.statistic, Statistic::mean);
  EXPECT_EQ(ttft.measured.value, 118.43);
  EXPECT_DOUBLE_EQ(ttft.measured.si, 0.11843);
  // inter_token_latency is (latency - TTFT) / (output tokens - 1) per request: memwall's tpot.
  const Record& tpot = by_id(rs, "concurrency16@" + w + "/inter_token_latency.p99");
  EXPECT_EQ(tpot.measured.metric, Metric::tpot);
  EXPECT_EQ(tpot.measured.statistic, Statistic::p99);
  EXPECT_EQ(tpot.measured.value, 5.277);
  const Record& e2e = by_id(rs, "concurrency16@" + w + "/request_latency.p50");
  EXPECT_EQ(e2e.measured.metric, Metric::e2e_latency);
  EXPECT_EQ(e2e.measured.statistic, Statistic::median);
  EXPECT_DOUBLE_EQ(e2e.measured.si, 1.3456);
  const Record& out = by_id(rs, "concurrency16@" + w + "/output_token_throughput.avg");
  EXPECT_EQ(out.measured.metric, Metric::output_throughput);
  EXPECT_EQ(out.measured.unit, "tokens/s");
  EXPECT_EQ(out.measured.value, 3028.5);
  const Record& req = by_id(rs, "concurrency16@" + w + "/request_throughput.avg");
  EXPECT_EQ(req.measured.unit, "requests/s");
  EXPECT_EQ(req.measured.value, 11.83);
  EXPECT_TRUE(has_note(notes, "inter_chunk_latency"));
  EXPECT_TRUE(has_note(notes, "time_to_second_token"));
}

// genai-perf's profile_export_genai_perf.json at concurrency 8, output lengths that vary.
TEST(ImportProfileExport, GenaiPerfToEveryRecordExactly) {
  ImportOptions o = export_options("genai-perf");
  std::vector<std::string> notes;
  EXPECT_NE(refusal([&] {
              import_file(fixture("genai_perf_profile_export.json"), o, Catalog::builtin(), notes);
            })
                .find("output_sequence_length: the lengths vary (80 requests from 120 to 128 "
                      "tokens, mean 126.4)"),
            std::string::npos);
  o.output = "lognormal";
  const auto rs =
      import_file(fixture("genai_perf_profile_export.json"), o, Catalog::builtin(), notes);
  ASSERT_EQ(rs.size(), 17u);
  const std::string w = fixture("genai_perf_profile_export.json");
  const Record& tpot = by_id(rs, "concurrency8@" + w + "/inter_token_latency.avg");
  EXPECT_EQ(tpot.model.id, "llama-3.1-8b");
  EXPECT_EQ(*tpot.workload.concurrency, 8);
  EXPECT_EQ(*tpot.workload.requests, 80);
  EXPECT_EQ(tpot.workload.input->mean, 512);
  EXPECT_EQ(tpot.workload.output->distribution, "lognormal");
  EXPECT_DOUBLE_EQ(tpot.workload.output->mean, 126.4);
  EXPECT_DOUBLE_EQ(*tpot.workload.output->cv, 2.1 / 126.4);
  EXPECT_EQ(tpot.measured.metric, Metric::tpot);
  EXPECT_EQ(tpot.measured.value, 10.85);
  EXPECT_EQ(by_id(rs, "concurrency8@" + w + "/request_latency.p90").measured.value, 1455.7);
  EXPECT_EQ(by_id(rs, "concurrency8@" + w + "/request_throughput.avg").measured.value, 5.677);
}

TEST(ImportProfileExport, UnitsAreReadFromTheFileAndConverted) {
  Json run = Json::parse(text_of("aiperf_profile_export.json"));
  for (auto& [k, v] : run["request_latency"].items())
    if (k != "unit") v = v.get<double>() / 1000;  // the same latencies in seconds
  run["request_latency"]["unit"] = "sec";
  for (auto& [k, v] : run["time_to_first_token"].items())
    if (k != "unit") v = v.get<double>() * 1e6;  // in nanoseconds
  run["time_to_first_token"]["unit"] = "ns";
  std::vector<std::string> notes;
  const auto rs =
      import_text(run.dump(), "p.json", export_options("aiperf"), Catalog::builtin(), notes);
  const Record& e2e = by_id(rs, "concurrency16@p.json/request_latency.avg");
  EXPECT_EQ(e2e.measured.unit, "s");
  EXPECT_DOUBLE_EQ(e2e.measured.si, 1.34821);
  const Record& ttft = by_id(rs, "concurrency16@p.json/time_to_first_token.p99");
  EXPECT_EQ(ttft.measured.unit, "us");
  EXPECT_DOUBLE_EQ(ttft.measured.si, 0.2408);
  run["request_latency"]["unit"] = "min";
  EXPECT_NE(export_refusal(run, "aiperf")
                .find("p.json.request_latency.unit: value 'min' is not allowed; allowed: ns, us, "
                      "ms or sec"),
            std::string::npos)
      << export_refusal(run, "aiperf");
  run = Json::parse(text_of("aiperf_profile_export.json"));
  run["output_token_throughput"]["unit"] = "tokens/sec/user";
  EXPECT_NE(export_refusal(run, "aiperf")
                .find("p.json.output_token_throughput.unit: value 'tokens/sec/user' is not "
                      "allowed; allowed: tokens/sec"),
            std::string::npos);
}

TEST(ImportProfileExport, RefusesWhatItCannotMapByName) {
  const Json aiperf = Json::parse(text_of("aiperf_profile_export.json"));
  const Json genai = Json::parse(text_of("genai_perf_profile_export.json"));
  const auto with = [](Json r, const char* at, const Json& value) {
    r[Json::json_pointer(at)] = value;
    return r;
  };
  // aiperf: a Poisson rate is a request_rate; constant intervals and a capped rate are refused.
  Json rate = aiperf;
  rate["input_config"]["loadgen"] = {{"request_rate", 12.0}, {"request_count", 320}};
  std::vector<std::string> notes;
  const auto rs =
      import_text(rate.dump(), "p.json", export_options("aiperf"), Catalog::builtin(), notes);
  EXPECT_EQ(rs[0].workload.mode, Mode::request_rate);
  EXPECT_EQ(*rs[0].workload.request_rate, 12.0);
  EXPECT_NE(
      export_refusal(with(rate, "/input_config/loadgen/request_rate_mode", "constant"), "aiperf")
          .find("p.json.input_config.loadgen.request_rate_mode: value 'constant'"),
      std::string::npos);
  EXPECT_NE(export_refusal(with(rate, "/input_config/loadgen/concurrency", 16), "aiperf")
                .find("request_rate 12.0 with concurrency 16"),
            std::string::npos);
  EXPECT_NE(export_refusal(with(aiperf, "/input_config/loadgen/request_cancellation_rate", 10.0),
                           "aiperf")
                .find("loadgen.request_cancellation_rate: value '10.0'"),
            std::string::npos);
  EXPECT_NE(export_refusal(with(aiperf, "/input_config/input/prompt/prefix_prompt/pool_size", 4),
                           "aiperf")
                .find("p.json.input_config.input.prompt.prefix_prompt.pool_size: value '4'"),
            std::string::npos);
  EXPECT_NE(export_refusal(with(aiperf, "/input_config/input/fixed_schedule", true), "aiperf")
                .find("input.fixed_schedule: value 'true'"),
            std::string::npos);
  EXPECT_NE(export_refusal(with(aiperf, "/was_cancelled", true), "aiperf")
                .find("p.json.was_cancelled: value 'true'"),
            std::string::npos);
  EXPECT_NE(
      export_refusal(
          with(aiperf, "/input_config/endpoint/model_names", Json::array({"a/b", "c/d"})), "aiperf")
          .find("p.json.input_config.endpoint.model_names: value '[\"a/b\",\"c/d\"]'"),
      std::string::npos);
  EXPECT_NE(export_refusal(with(aiperf, "/request_goodness", 3), "aiperf")
                .find("p.json.request_goodness: value '3' is not allowed; allowed: a metric "
                      "object"),
            std::string::npos);
  Json no_isl = aiperf;
  no_isl.erase("input_sequence_length");
  EXPECT_NE(export_refusal(no_isl, "aiperf")
                .find("p.json: required field 'input_sequence_length' is missing"),
            std::string::npos);
  EXPECT_NE(export_refusal(with(aiperf, "/time_to_first_token/p90", -1.0), "aiperf")
                .find("p.json.time_to_first_token.p90: value '-1.0'"),
            std::string::npos);
  // genai-perf: perf_analyzer sends a request rate at constant intervals.
  EXPECT_NE(
      export_refusal(with(genai, "/input_config/perf_analyzer/stimulus", {{"request_rate", 5}}),
                     "genai-perf")
          .find("p.json.input_config.perf_analyzer.stimulus.request_rate: value '5' is not "
                "allowed; allowed: a concurrency"),
      std::string::npos);
  EXPECT_NE(export_refusal(
                with(genai, "/input_config/perf_analyzer/stimulus", {{"session_concurrency", 4}}),
                "genai-perf")
                .find("stimulus.session_concurrency: value '4'"),
            std::string::npos);
  EXPECT_NE(export_refusal(with(genai, "/input_config/input/prefix_prompt/num", 2), "genai-perf")
                .find("p.json.input_config.input.prefix_prompt.num: value '2'"),
            std::string::npos);
  Json flat = genai;
  flat["input_config"].erase("perf_analyzer");
  EXPECT_NE(export_refusal(flat, "genai-perf")
                .find("p.json.input_config: required field 'perf_analyzer' is missing"),
            std::string::npos);
  // A genai-perf file read as aiperf (and back) is refused by name, not read with defaults.
  EXPECT_NE(export_refusal(genai, "aiperf")
                .find("p.json.input_config.analyze: value '{\"sweep_parameters\":{}}' is not "
                      "allowed; allowed: a field of the input_config of "
                      "profile_export_aiperf.json"),
            std::string::npos)
      << export_refusal(genai, "aiperf");
  EXPECT_NE(export_refusal(aiperf, "genai-perf").find("p.json.input_config.cli_command: value"),
            std::string::npos)
      << export_refusal(aiperf, "genai-perf");
}

TEST(ImportVllmServe, ImportedRecordsReadBackAndArePredicted) {
  std::vector<std::string> notes;
  const auto rs = import_file(fixture("vllm_serve_concurrency.json"), serve_options(),
                              Catalog::builtin(), notes);
  const auto again = parse_measurements(to_json(rs), "imported", Catalog::builtin());
  ASSERT_EQ(again.size(), rs.size());
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(again[i].id, rs[i].id);
    EXPECT_EQ(again[i].measured.si, rs[i].measured.si);
  }
  const Prediction p =
      predict(by_id(again, "vllm@20261130-101500/mean_tpot_ms"), Catalog::builtin());
  ASSERT_TRUE(p.si.has_value()) << p.unpredicted;
  EXPECT_GT(*p.si, 0);
}

}  // namespace
}  // namespace memwall::measure
