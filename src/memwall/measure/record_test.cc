#include "memwall/measure/record.h"

#include <gtest/gtest.h>

#include <set>

#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/measure/predict.h"

namespace memwall::measure {
namespace {

Json serving_record() {
  return Json::parse(R"({
    "id": "run-1", "source": "my vllm bench serve run",
    "model": "meta-llama/Llama-3.1-8B-Instruct",
    "hardware": {"accelerator": "h100", "count": 1},
    "stack": {"engine": "vllm", "version": "0.10.2", "tp": 1, "max_num_seqs": 256},
    "workload": {"mode": "concurrency", "concurrency": 32, "input_tokens": 1024,
                 "output_tokens": 128, "requests": 320},
    "metric": {"name": "tpot", "statistic": "mean", "value": 12.5, "unit": "ms"}
  })");
}

std::string refusal(const Json& doc) {
  try {
    parse_record(doc, "r", Catalog::builtin());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MeasurementRecord, ReadsEveryPartTyped) {
  const Record r = parse_record(serving_record(), "r", Catalog::builtin());
  EXPECT_EQ(r.model.id, "llama-3.1-8b");
  EXPECT_EQ(r.model.as_given, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(r.hardware.accelerator, "nvidia-h100-sxm");
  EXPECT_EQ(*r.stack.engine, "vllm");
  EXPECT_EQ(*r.stack.max_num_seqs, 256);
  EXPECT_EQ(r.stack.dp, 1);
  EXPECT_EQ(r.workload.mode, Mode::concurrency);
  EXPECT_EQ(*r.workload.concurrency, 32);
  EXPECT_EQ(r.workload.input->mean, 1024);
  EXPECT_EQ(r.measured.metric, Metric::tpot);
  EXPECT_EQ(r.measured.statistic, Statistic::mean);
  EXPECT_DOUBLE_EQ(r.measured.si, 0.0125);
  // Written back, it reads to the same record.
  const Record again = parse_record(to_json(r), "again", Catalog::builtin());
  EXPECT_EQ(again.model.id, r.model.id);
  EXPECT_DOUBLE_EQ(again.measured.si, r.measured.si);
}

// A burst of requests sent at once to the engine's HTTP server: its front end takes them in first
// (the vllm profile's frontend_us_per_request), the same factor validate applies to such cases;
// in-process (endpoint none) or not stated, the engine's own rate.
TEST(MeasurementRecord, ABurstThroughTheServerPaysItsFrontEnd) {
  Json j = serving_record();
  j["workload"] = Json::parse(R"({"mode": "offline", "requests": 1000, "input_tokens": 128,
                                  "output_tokens": 4, "endpoint": "chat"})");
  j["metric"] = Json::parse(R"({"name": "request_throughput", "value": 50, "unit": "requests/s"})");
  const Prediction chat = predict(parse_record(j, "r", Catalog::builtin()), Catalog::builtin());
  j["workload"]["endpoint"] = "none";
  const Prediction none = predict(parse_record(j, "r", Catalog::builtin()), Catalog::builtin());
  j["workload"].erase("endpoint");
  const Prediction unstated = predict(parse_record(j, "r", Catalog::builtin()), Catalog::builtin());
  ASSERT_TRUE(chat.si && none.si && unstated.si) << chat.unpredicted << none.unpredicted;
  EXPECT_DOUBLE_EQ(*none.si, *unstated.si);
  const infer::Deployment d = infer::make_deployment(Catalog::builtin(), [] {
    infer::DeploymentOptions o;
    o.model = "llama-3.1-8b";
    o.gpu = "nvidia-h100-sxm";
    o.engine = "vllm@0.10.2";
    return o;
  }());
  const double c = d.engine_profile->frontend_per_request.value();
  ASSERT_GT(c, 0);
  EXPECT_NEAR(*chat.si, *none.si / (1 + c * *none.si), 1e-9 * *none.si);
  EXPECT_NE(chat.assumptions.find("chat endpoint's front end"), std::string::npos) << chat.assumptions;
  EXPECT_NE(unstated.assumptions.find("Endpoint not stated"), std::string::npos);
  // Named, never guessed: another route, or a route in a training record, is refused.
  j["workload"]["endpoint"] = "grpc";
  EXPECT_NE(refusal(j).find("r.workload.endpoint"), std::string::npos) << refusal(j);
}

TEST(MeasurementRecord, RefusesWhatItCannotMapByName) {
  Json j = serving_record();
  j["metric"]["unit"] = "tokens/s";  // a throughput unit for a latency
  EXPECT_NE(refusal(j).find("r.metric.unit"), std::string::npos) << refusal(j);
  j = serving_record();
  j["metric"]["name"] = "goodput";
  EXPECT_NE(refusal(j).find("r.metric.name"), std::string::npos);
  j = serving_record();
  j["workload"]["qps"] = 3;
  EXPECT_NE(refusal(j).find("r.workload.qps"), std::string::npos);
  j = serving_record();
  j["workload"]["batch"] = 8;  // a static batch's field in a concurrency run
  EXPECT_NE(refusal(j).find("r.workload.batch"), std::string::npos);
  j = serving_record();
  j["workload"].erase("concurrency");
  EXPECT_NE(refusal(j).find("concurrency: required"), std::string::npos);
  j = serving_record();
  j["stack"]["engine"] = "vlm";
  EXPECT_NE(refusal(j).find("r.stack.engine"), std::string::npos);
  j = serving_record();
  j["stack"]["zero"] = 1;  // a training setting
  EXPECT_NE(refusal(j).find("r.stack.zero"), std::string::npos);
  j = serving_record();
  j["metric"]["value"] = -3;
  EXPECT_NE(refusal(j).find("r.metric.value"), std::string::npos);
  j = serving_record();
  j["hardware"]["count"] = 2;  // tp 1 x dp 1 stated... dp not stated: derived as 2
  EXPECT_EQ(refusal(j), "(accepted)");
  j["stack"]["dp"] = 1;
  EXPECT_NE(refusal(j).find("hardware.count 2"), std::string::npos);
  j = serving_record();
  j["metric"] = Json::parse(R"({"name": "step_time", "value": 1, "unit": "s"})");
  EXPECT_NE(refusal(j).find("an inference metric"), std::string::npos) << refusal(j);
}

TEST(MeasurementRecord, DocumentNeedsItsFormat) {
  const Json doc = {{"format", "memwall-measurements/2"}, {"records", Json::array({serving_record()})}};
  EXPECT_THROW(parse_measurements(doc, "f", Catalog::builtin()), InputError);
  const Json ok = {{"format", kFormat}, {"records", Json::array({serving_record()})}};
  EXPECT_EQ(parse_measurements(ok, "f", Catalog::builtin()).size(), 1u);
  EXPECT_TRUE(is_measurement_document(ok));
}

// The prediction is the estimator's own answer for the record's question.
TEST(MeasurementRecord, PredictsAStaticBatchAsInferDoes) {
  const Json j = Json::parse(R"({
    "model": "llama-3.1-8b", "hardware": {"accelerator": "h100"},
    "workload": {"mode": "static_batch", "batch": 8, "input_tokens": 512, "output_tokens": 64},
    "metric": {"name": "ttft", "value": 100, "unit": "ms"}})");
  const Record r = parse_record(j, "r", Catalog::builtin());
  const Prediction p = predict(r, Catalog::builtin());
  ASSERT_TRUE(p.si) << p.unpredicted;
  infer::DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.gpu = "h100";
  const auto d = infer::make_deployment(Catalog::builtin(), o);
  EXPECT_DOUBLE_EQ(*p.si, infer::estimate(d, {8, 512, 64}).ttft.value());
  // 100 ms measured: the signed error is > 0 (optimistic) exactly when memwall predicts less time.
  EXPECT_EQ(*p.signed_error(r) > 0, *p.si < 0.1);
}

TEST(MeasurementRecord, ConcurrencyMeansComeFromTheSteadyStateAndPercentilesFromARun) {
  Json j = serving_record();
  const Record mean = parse_record(j, "r", Catalog::builtin());
  const Prediction pm = predict(mean, Catalog::builtin());
  ASSERT_TRUE(pm.si) << pm.unpredicted;
  j["metric"]["statistic"] = "p99";
  const Record p99 = parse_record(j, "r", Catalog::builtin());
  const Prediction pp = predict(p99, Catalog::builtin());
  ASSERT_TRUE(pp.si) << pp.unpredicted;
  // 32 clients on one H100 decode an 8B model in a few ms per token, and the tail is no faster
  // than the mean.
  EXPECT_GT(*pm.si, 0.002);
  EXPECT_LT(*pm.si, 0.05);
  EXPECT_GE(*pp.si, *pm.si * 0.9);
  j["metric"]["statistic"] = "p95";
  const Prediction p95 = predict(parse_record(j, "r", Catalog::builtin()), Catalog::builtin());
  EXPECT_FALSE(p95.si);
  EXPECT_NE(p95.unpredicted.find("p95"), std::string::npos);
}

}  // namespace
}  // namespace memwall::measure

namespace memwall::measure {
namespace {

// The JSON Schema in schema/ and the reader accept the same fields, section by section: the
// reader's refusal of an unknown key lists what it accepts, and that list is the schema's.
TEST(MeasurementRecord, SchemaAndReaderAcceptTheSameFields) {
  const Json schema = load_document(test::source_dir() + "/schema/measurements.schema.json");
  const Json& record = schema.at("$defs").at("record");
  auto keys_of = [](const Json& properties) {
    std::set<std::string> out;
    for (const auto& [k, v] : properties.items()) out.insert(k);
    return out;
  };
  auto reader_keys = [](Json j, const std::string& section) {
    (section.empty() ? j : j[section])["zz_not_a_field"] = 1;
    const std::string m = refusal(j);
    const size_t at = m.find("a field of: ");
    EXPECT_NE(at, std::string::npos) << m;
    std::set<std::string> out;
    std::string rest = m.substr(at + 12), word;
    for (char c : rest + ",") {
      if (c == ',') {
        if (!word.empty()) out.insert(word);
        word.clear();
      } else if (c != ' ') {
        word += c;
      }
    }
    return out;
  };
  EXPECT_EQ(reader_keys(serving_record(), ""), keys_of(record.at("properties")));
  for (const char* section : {"hardware", "stack", "workload", "metric"})
    EXPECT_EQ(reader_keys(serving_record(), section),
              keys_of(record.at("properties").at(section).at("properties")))
        << section;
}

}  // namespace
}  // namespace memwall::measure
