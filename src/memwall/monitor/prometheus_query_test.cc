// The Prometheus HTTP API client: strict parsing of vector and matrix answers (values as strings,
// NaN and infinities), errors naming the field, and the HTTP side against a fake server on
// loopback (error answers, timeouts, the size cap, an unreachable server).
#include "memwall/monitor/prometheus_query.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "memwall/core/error.h"
#include "memwall/monitor/fake_prometheus.h"

namespace memwall::monitor {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PrometheusQuery, ParsesAVectorWithNaNAndInfinities) {
  const auto s = parse_query_response(
      R"({"status":"success","data":{"resultType":"vector","result":[
        {"metric":{"__name__":"a","gpu":"0"},"value":[1764450000.5,"0.72"]},
        {"metric":{"__name__":"a","gpu":"1"},"value":[1764450000.5,"NaN"]},
        {"metric":{"__name__":"a","gpu":"2"},"value":[1764450000.5,"+Inf"]},
        {"metric":{"__name__":"a","gpu":"3"},"value":[1764450000.5,"-1.5e3"]}]}})",
      "q");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].labels.at("gpu"), "0");
  ASSERT_EQ(s[0].points.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].points[0].first, 1764450000.5);
  EXPECT_DOUBLE_EQ(s[0].points[0].second, 0.72);
  EXPECT_TRUE(std::isnan(s[1].points[0].second));
  EXPECT_TRUE(std::isinf(s[2].points[0].second) && s[2].points[0].second > 0);
  EXPECT_DOUBLE_EQ(s[3].points[0].second, -1500);
}

TEST(PrometheusQuery, ParsesAMatrix) {
  const auto s = parse_query_response(
      R"({"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"__name__":"a"},"values":[[10,"1"],[12,"2"],[14,"3"]]}]}})",
      "q");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].points.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].points[2].first, 14);
  EXPECT_DOUBLE_EQ(s[0].points[2].second, 3);
}

TEST(PrometheusQuery, AnythingElseIsAnInputErrorNamingTheField) {
  auto parse = [](const std::string& body) {
    return message_of([&] { parse_query_response(body, "q"); });
  };
  EXPECT_EQ(parse("not json").find("q: value 'not json'"), 0u) << parse("not json");
  EXPECT_NE(parse(R"({"data":{}})").find("q.status"), std::string::npos);
  EXPECT_NE(parse(R"({"status":"success","data":{"resultType":"scalar","result":[1,"2"]}})")
                .find("q.data.resultType: value '\"scalar\"'"),
            std::string::npos);
  // A value as a number, not a string.
  EXPECT_NE(parse(R"({"status":"success","data":{"resultType":"vector","result":[
                    {"metric":{},"value":[1,0.5]}]}})")
                .find("q.data.result[0].value"),
            std::string::npos);
  EXPECT_NE(parse(R"({"status":"success","data":{"resultType":"matrix","result":[
                    {"metric":{},"values":[[1,"1"],[2,"x"]]}]}})")
                .find("q.data.result[0].values[1][1]: value 'x'"),
            std::string::npos);
  EXPECT_NE(parse(R"({"status":"success","data":{"resultType":"vector","result":[
                    {"metric":{"gpu":0},"value":[1,"1"]}]}})")
                .find("q.data.result[0].metric.gpu"),
            std::string::npos);
  EXPECT_NE(parse(R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})")
                .find("Prometheus answered bad_data: parse error at char 3"),
            std::string::npos);
  EXPECT_THROW(parse_query_response("{}", "q"), InputError);
}

TEST(PrometheusQuery, SampleValues) {
  EXPECT_DOUBLE_EQ(parse_sample_value("1e-3", "v"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_sample_value(".5", "v"), 0.5);
  EXPECT_TRUE(std::isinf(parse_sample_value("-Inf", "v")));
  for (const char* bad : {"", "inf", "nan", "0x10", "1.2.3", "1e999", "12abc", " 1"})
    EXPECT_THROW(parse_sample_value(bad, "v"), InputError) << bad;
}

TEST(PrometheusQuery, UrlMustBeHttpOrHttps) {
  for (const char* bad :
       {"localhost:9090", "ftp://x", "http://", "http://a b", "http://h:9090?x=1"})
    EXPECT_NE(message_of([&] { PrometheusClient c(bad); }).find("--prometheus"), std::string::npos)
        << bad;
  EXPECT_NO_THROW(PrometheusClient("https://prom.example.org/prometheus/"));
  EXPECT_THROW(PrometheusClient("http://h", PromClientOptions{Seconds(0.0)}), InputError);
}

TEST(PrometheusQuery, InstantAndRangeQueriesOverHttp) {
  fixtures::FakePrometheus fake(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"b"},"value":[5,"1"]}]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[5,"1"],[7,"2"]]}]}})");
  PrometheusClient c(fake.url() + "/");
  const auto v = c.query("up{job=\"x\"}", 5);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(fake.last_query(), "up{job=\"x\"}");
  const auto m = c.query_range("up", 0, 10, 2);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].points.size(), 2u);
  EXPECT_EQ(fake.last_step(), "2.000");
}

TEST(PrometheusQuery, ErrorAnswersTimeoutsSizeAndUnreachable) {
  {  // 400 with the API's error object: bad input, with Prometheus's message.
    fixtures::FakePrometheus fake(
        "", R"({"status":"error","errorType":"bad_data","error":"1:2: bad"})", 400);
    PrometheusClient c(fake.url());
    const auto m = message_of([&] { c.query_range("x", 0, 10, 1); });
    EXPECT_NE(m.find("bad_data: 1:2: bad"), std::string::npos) << m;
    EXPECT_THROW(c.query_range("x", 0, 10, 1), InputError);
  }
  {  // 503: the server cannot answer now.
    fixtures::FakePrometheus fake("overloaded", "", 503);
    PrometheusClient c(fake.url());
    EXPECT_THROW(c.query("x"), InfeasibleError);
  }
  {  // Slower than the timeout.
    fixtures::FakePrometheus fake(
        R"({"status":"success","data":{"resultType":"vector","result":[]}})", "", 200,
        std::chrono::milliseconds(1500));
    PrometheusClient c(fake.url(), PromClientOptions{Seconds(0.3)});
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(c.query("x"), InfeasibleError);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
  }
  {  // Over the size cap.
    fixtures::FakePrometheus fake(std::string(5000, ' '), "");
    PromClientOptions o;
    o.max_response_bytes = 1000;
    PrometheusClient c(fake.url(), o);
    const auto m = message_of([&] { c.query("x"); });
    EXPECT_NE(m.find("over 1000 bytes"), std::string::npos) << m;
  }
  {  // Nothing listens there.
    int port = 0;
    {
      fixtures::FakePrometheus gone("", "");
      port = std::stoi(gone.url().substr(17));
    }
    PrometheusClient c("http://127.0.0.1:" + std::to_string(port), PromClientOptions{Seconds(1.0)});
    const auto m = message_of([&] { c.query("x"); });
    EXPECT_NE(m.find("cannot reach Prometheus"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace memwall::monitor
