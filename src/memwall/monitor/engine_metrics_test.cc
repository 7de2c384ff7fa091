// The engines' own metrics over Prometheus: the hand-written vLLM 0.10 and SGLang loads of
// testdata (make_engine_answers.py, README.md "Engine metrics"), served by the fake Prometheus,
// give the operating point worked out by hand; histogram quantiles are PromQL's; malformed or
// self-contradicting series are refused by name; what no series gives stays unknown.
#include "memwall/monitor/engine_metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "memwall/core/error.h"
#include "memwall/measure/predict.h"
#include "memwall/monitor/engine_records.h"
#include "memwall/monitor/fake_prometheus.h"

namespace memwall::monitor {
namespace {

EngineWindow window_of(const std::string& file, const std::string& job = "") {
  fixtures::FakePrometheus fake("", fixtures::testdata(file));
  FleetOptions o;
  o.url = fake.url();
  o.window = Seconds(60.0);
  o.job_selector = job;
  EngineWindow w = fetch_engines(o);
  EXPECT_EQ(fake.last_query(), w.query);
  return w;
}

TEST(EngineMetrics, TheTableHoldsEveryReadingForVllmAndOneNameOfEachVersion) {
  const EngineTable& t = engine_table();
  EXPECT_EQ(t.sets, (std::vector<std::string>{"vllm", "sglang"}));
  auto rank_of = [&](const std::string& name) {
    for (const auto& m : t.metrics)
      if (m.name == name) return m.rank;
    return -1;
  };
  // The newer name of a reading is ranked first, so a 0.10 server that exposes both is read once.
  EXPECT_LT(rank_of("vllm:kv_cache_usage_perc"), rank_of("vllm:gpu_cache_usage_perc"));
  EXPECT_LT(rank_of("vllm:inter_token_latency_seconds"),
            rank_of("vllm:time_per_output_token_seconds"));
  for (const std::string set : {"vllm", "sglang"})
    for (const auto& reading : engine_readings()) {
      bool found = false;
      for (const auto& m : t.metrics) found = found || (m.set == set && m.reading == reading);
      EXPECT_TRUE(found) << set << " " << reading;
    }
  const std::string q = engine_query(t, "namespace=\"llm\"");
  EXPECT_NE(q.find("vllm:time_to_first_token_seconds_bucket|"), std::string::npos) << q;
  EXPECT_NE(q.find("sglang:num_running_reqs"), std::string::npos) << q;
  EXPECT_EQ(q.substr(q.size() - 17), ",namespace=\"llm\"}");
  EXPECT_THROW(engine_query(t, "{pod=\"x\"}"), InputError);
  // A table entry of the wrong type or an unknown reading is refused by name.
  auto table = [](const std::string& type, const std::string& reading) {
    const Json j = {
        {"sets",
         {{{"id", "vllm"},
           {"engine", "vllm"},
           {"metrics", {{{"name", "vllm:x"}, {"type", type}, {"reading", reading}}}}}}}};
    return engine_table_from_json(j, exporter_table(), "engines");
  };
  EXPECT_EQ(table("histogram", "ttft_seconds").metrics.size(), 1u);
  EXPECT_THROW(table("gauge", "ttft_seconds"), InputError);
  EXPECT_THROW(table("counter", "running_requests"), InputError);
  EXPECT_THROW(table("gauge", "tokens"), InputError);
}

// PromQL's histogram_quantile: linear inside the bucket the rank falls in, 0 as the lowest
// bucket's lower bound, the second-highest bound when the rank falls in +Inf.
TEST(EngineMetrics, BucketQuantileInterpolatesAsHistogramQuantile) {
  const double inf = HUGE_VAL;
  const std::vector<std::pair<double, double>> b = {{0.1, 10}, {0.5, 60}, {1.0, 90}, {inf, 100}};
  EXPECT_NEAR(*bucket_quantile(0.05, b), 0.05, 1e-12);  // 5 of 10 in [0, 0.1]
  EXPECT_NEAR(*bucket_quantile(0.5, b), 0.1 + 0.4 * 40 / 50, 1e-12);
  EXPECT_NEAR(*bucket_quantile(0.9, b), 1.0, 1e-12);
  EXPECT_NEAR(*bucket_quantile(0.99, b), 1.0, 1e-12);        // in +Inf: the highest finite bound
  EXPECT_FALSE(bucket_quantile(0.5, {{0.1, 0}, {inf, 0}}));  // no observations
  EXPECT_FALSE(bucket_quantile(0.5, {{0.1, 3}, {1.0, 5}}));  // no +Inf bucket
  EXPECT_FALSE(bucket_quantile(0.5, {{inf, 5}}));            // one bucket
}

// vLLM 0.10 (v1 engine names, loggers.py at 005a810): every number worked out in
// make_engine_answers.py's comments and README.md.
TEST(EngineMetrics, Vllm010OperatingPoint) {
  const EngineWindow w = window_of("prom-vllm-0.10-range.json", "job=\"vllm\"");
  ASSERT_EQ(w.points.size(), 1u);
  const EngineOperatingPoint& p = w.points[0];
  EXPECT_EQ(p.job, "namespace=llm,pod=vllm-0,container=engine");
  EXPECT_EQ(p.engine, "vllm");
  EXPECT_EQ(p.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(p.last_s - p.first_s, 60);
  // Of the two KV names the newer is read; the 0.10 inter-token name is the only one present.
  EXPECT_TRUE(p.names.count("vllm:kv_cache_usage_perc"));
  EXPECT_FALSE(p.names.count("vllm:gpu_cache_usage_perc"));
  EXPECT_TRUE(p.names.count("vllm:time_per_output_token_seconds"));
  EXPECT_DOUBLE_EQ(*p.running_requests, 24);  // (20 + 24 + 28 + 24 + 24) / 5
  EXPECT_DOUBLE_EQ(*p.waiting_requests, 0.2);
  EXPECT_NEAR(*p.kv_cache_usage_ratio, 0.35, 1e-12);
  EXPECT_DOUBLE_EQ(*p.prompt_tokens_per_s, 4000);      // 240,000 over 60 s
  EXPECT_DOUBLE_EQ(*p.generation_tokens_per_s, 2000);  // 120,000 over 60 s
  EXPECT_DOUBLE_EQ(*p.finished_requests_per_s, 4);     // 200 stop + 40 length
  EXPECT_DOUBLE_EQ(*p.preemptions, 3);
  EXPECT_NEAR(*p.inter_token.mean, 0.012, 1e-12);  // 1437.12 s / 119,760 gaps
  EXPECT_EQ(p.inter_token.observations, 119760);
  // p50: rank 59,880 in (0.01, 0.025] holding 74,000 from 36,000: 0.01 + 0.015 x 23,880 / 74,000.
  EXPECT_NEAR(*p.inter_token.p50, 0.01 + 0.015 * 23880 / 74000, 1e-12);
  // p99: rank 118,562.4 in (0.05, 0.075] holding 1,500 from 118,000.
  EXPECT_NEAR(*p.inter_token.p99, 0.05 + 0.025 * 562.4 / 1500, 1e-12);
  EXPECT_NEAR(*p.ttft.mean, 0.15, 1e-12);
  EXPECT_NEAR(*p.ttft.p50, 0.13, 1e-12);  // rank 120 in (0.1, 0.25]: 0.1 + 0.15 x 24 / 120
  EXPECT_NEAR(*p.ttft.p99, 0.6, 1e-12);   // rank 237.6 in (0.5, 0.75]: 0.5 + 0.25 x 1.6 / 4
  EXPECT_NEAR(*p.e2e.mean, 6, 1e-12);
  EXPECT_NEAR(*p.e2e.p50, 5 + 5.0 * 60 / 168, 1e-12);
  EXPECT_NEAR(*p.e2e.p99, 14, 1e-12);
  EXPECT_DOUBLE_EQ(*p.mean_prompt_tokens, 1000);
  EXPECT_DOUBLE_EQ(*p.mean_generation_tokens, 500);
}

// SGLang (collector.py at 00ae9c1) without its opt-in length histograms: the lengths are unknown
// (the counters per finished request are kept as a hint); a counter reset counts from 0.
TEST(EngineMetrics, SglangOperatingPointWithACounterReset) {
  const EngineWindow w = window_of("prom-sglang-range.json");
  ASSERT_EQ(w.points.size(), 1u);
  const EngineOperatingPoint& p = w.points[0];
  EXPECT_EQ(p.engine, "sglang");
  EXPECT_DOUBLE_EQ(*p.running_requests, 32);
  EXPECT_DOUBLE_EQ(*p.waiting_requests, 4);
  EXPECT_NEAR(*p.kv_cache_usage_ratio, 0.9, 1e-12);
  EXPECT_DOUBLE_EQ(*p.prompt_tokens_per_s, 3000);
  // 36,000 x 3 before the restart, then 36,000 counted from 0: 144,000 over 60 s.
  EXPECT_DOUBLE_EQ(*p.generation_tokens_per_s, 2400);
  EXPECT_DOUBLE_EQ(*p.finished_requests_per_s, 6);
  EXPECT_DOUBLE_EQ(*p.preemptions, 2);  // sglang:num_retractions_sum
  EXPECT_NEAR(*p.inter_token.mean, 0.013, 1e-12);
  EXPECT_NEAR(*p.inter_token.p50, 0.01 + 0.005 * 72000 / 100800, 1e-12);
  EXPECT_NEAR(*p.inter_token.p99, 0.024, 1e-12);
  EXPECT_NEAR(*p.ttft.mean, 0.5, 1e-12);
  EXPECT_FALSE(p.mean_prompt_tokens);
  EXPECT_FALSE(p.mean_generation_tokens);
  EXPECT_DOUBLE_EQ(*p.prompt_tokens_per_request, 500);
  EXPECT_DOUBLE_EQ(*p.generation_tokens_per_request, 400);
}

// Series built in the test: one gauge or histogram at a time, to show each refusal by name.
PromSeries series(const std::string& name, std::map<std::string, std::string> labels,
                  std::vector<double> values) {
  PromSeries s;
  s.labels = std::move(labels);
  s.labels["__name__"] = name;
  for (size_t i = 0; i < values.size(); ++i)
    s.points.emplace_back(1000.0 + 15.0 * double(i), values[i]);
  return s;
}

std::vector<PromSeries> itl_histogram(double count_increase, double le_025_end, bool with_inf) {
  std::vector<PromSeries> out = {
      series("vllm:inter_token_latency_seconds_bucket", {{"le", "0.01"}}, {0, 10}),
      series("vllm:inter_token_latency_seconds_bucket", {{"le", "0.025"}}, {0, le_025_end}),
      series("vllm:inter_token_latency_seconds_sum", {}, {0, 0.5}),
      series("vllm:inter_token_latency_seconds_count", {}, {0, count_increase})};
  if (with_inf)
    out.push_back(series("vllm:inter_token_latency_seconds_bucket", {{"le", "+Inf"}}, {0, 40}));
  return out;
}

std::string refusal(const std::vector<PromSeries>& s) {
  try {
    (void)engine_points_from_series(s, engine_table());
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(EngineMetrics, MalformedOrContradictorySeriesAreRefusedByName) {
  EXPECT_EQ(refusal(itl_histogram(40, 30, true)), "accepted");
  EXPECT_NE(
      refusal(itl_histogram(41, 30, true)).find("_count rose by 41 but the +Inf bucket by 40"),
      std::string::npos);
  EXPECT_NE(refusal(itl_histogram(40, 5, true)).find("cumulative bucket counts"),
            std::string::npos);
  EXPECT_NE(refusal(itl_histogram(40, 30, false)).find("no le=\"+Inf\" bucket"), std::string::npos);
  auto bad_le = itl_histogram(40, 30, true);
  bad_le[0].labels["le"] = "fast";
  EXPECT_NE(refusal(bad_le).find("le"), std::string::npos);
  bad_le[0].labels.erase("le");
  EXPECT_NE(refusal(bad_le).find("no le label"), std::string::npos);
  EXPECT_NE(refusal({series("vllm:kv_cache_usage_perc", {}, {0.5, 1.5})})
                .find("vllm:kv_cache_usage_perc{}: value '1.5'"),
            std::string::npos);
  EXPECT_NE(refusal({series("vllm:num_requests_running", {}, {-1})}).find("a gauge value"),
            std::string::npos);
  EXPECT_NE(refusal({series("vllm:prompt_tokens_total", {}, {5, -2})}).find("a counter value"),
            std::string::npos);
}

TEST(EngineMetrics, AbsentSeriesAreUnknownNeverZero) {
  const auto points = engine_points_from_series(
      {series("vllm:num_requests_running", {{"pod", "a"}}, {3, 5}),
       series("vllm:prompt_tokens_total", {{"pod", "a"}}, {7})},  // one point: no increase
      engine_table());
  ASSERT_EQ(points.size(), 1u);
  EXPECT_DOUBLE_EQ(*points[0].running_requests, 4);
  EXPECT_FALSE(points[0].waiting_requests);
  EXPECT_FALSE(points[0].kv_cache_usage_ratio);
  EXPECT_FALSE(points[0].prompt_tokens_per_s);
  EXPECT_FALSE(points[0].ttft.mean);
  EXPECT_FALSE(points[0].ttft.p99);
  EXPECT_EQ(points[0].ttft.observations, 0);
  EXPECT_EQ(points[0].job, "pod=a");
}

// The operating point as measurement records and memwall's estimate beside it.
TEST(EngineRecords, Vllm010RecordsAndTheEstimate) {
  const EngineWindow w = window_of("prom-vllm-0.10-range.json");
  ASSERT_EQ(w.points.size(), 1u);
  measure::ImportOptions o;
  o.accelerator = "h100";
  o.engine_version = "0.10.1";
  const EngineRecords r = operating_point_records(w.points[0], o, "test", Catalog::builtin());
  ASSERT_EQ(r.records.size(), 4u);
  const measure::Record& itl = r.records[0];
  EXPECT_EQ(itl.id, "vllm/itl_mean (namespace=llm,pod=vllm-0,container=engine)");
  EXPECT_EQ(itl.model.id, "llama-3.1-8b");  // from the model_name label
  EXPECT_EQ(itl.measured.metric, measure::Metric::itl);
  EXPECT_NEAR(itl.measured.si, 0.012, 1e-12);
  EXPECT_EQ(itl.workload.mode, measure::Mode::concurrency);
  EXPECT_EQ(*itl.workload.concurrency, 24);
  EXPECT_EQ(itl.workload.input->mean, 1000);
  EXPECT_EQ(itl.workload.output->mean, 500);
  EXPECT_EQ(r.records[1].measured.metric, measure::Metric::output_throughput);
  EXPECT_DOUBLE_EQ(r.records[1].measured.si, 2000);
  EXPECT_EQ(r.records[2].measured.metric, measure::Metric::ttft);
  EXPECT_EQ(r.records[3].measured.metric, measure::Metric::e2e_latency);

  const OperatingPointEstimate e =
      estimate_operating_point(w.points[0], o, "test", Catalog::builtin(), {});
  ASSERT_TRUE(e.not_estimated.empty()) << e.not_estimated;
  ASSERT_EQ(e.rows.size(), 4u);
  for (const auto& row : e.rows) {
    // The estimate is the record's prediction: the same number predict() gives.
    ASSERT_TRUE(row.predicted) << row.metric << ": " << row.unpredicted;
    EXPECT_GT(*row.predicted, 0);
  }
  const measure::Prediction direct = measure::predict(itl, Catalog::builtin());
  EXPECT_DOUBLE_EQ(*e.rows[0].predicted, *direct.si);

  // Another engine than the series' is a contradiction; without --gpu the estimate names it.
  measure::ImportOptions other = o;
  other.engine = "sglang";
  EXPECT_THROW(operating_point_records(w.points[0], other, "test", Catalog::builtin()), InputError);
  measure::ImportOptions no_gpu;
  const auto none = estimate_operating_point(w.points[0], no_gpu, "test", Catalog::builtin(), {});
  EXPECT_NE(none.not_estimated.find("--gpu: required"), std::string::npos) << none.not_estimated;
}

// SGLang's requests waited (mean 4): TTFT and e2e are left out with a note; the lengths must come
// from flags, and without them the refusal names --input with the counters' hint.
TEST(EngineRecords, SglangNeedsTheLengthsFromFlags) {
  const EngineWindow w = window_of("prom-sglang-range.json");
  measure::ImportOptions o;
  o.accelerator = "h100";
  try {
    (void)operating_point_records(w.points[0], o, "test", Catalog::builtin());
    ADD_FAILURE() << "accepted without --input";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--input: required: test holds no prompt-length "
                                         "histogram (sglang:prompt_tokens_histogram)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("500 prompt tokens per finished request"),
              std::string::npos)
        << e.what();
  }
  o.input = "500";
  o.output = "400";
  const EngineRecords r = operating_point_records(w.points[0], o, "test", Catalog::builtin());
  ASSERT_EQ(r.records.size(), 2u);  // itl mean, output throughput
  EXPECT_EQ(*r.records[0].workload.concurrency, 32);
  bool noted = false;
  for (const auto& n : r.notes)
    noted = noted || n.find("ttft not used: 4.0 requests waited") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace memwall::monitor
