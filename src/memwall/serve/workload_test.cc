#include "memwall/serve/workload.h"

#include <gtest/gtest.h>

#include <cmath>

#include "memwall/core/error.h"
#include "memwall/serve/trace.h"

namespace memwall::serve {
namespace {

TEST(LengthDistribution, LognormalMatchesItsMeanAndSpread) {
  const auto d = LengthDistribution::lognormal(338, 1.0);
  std::mt19937_64 rng(3);
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = d.sample(rng);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 338, 338 * 0.02);
  EXPECT_NEAR(sd / mean, 1.0, 0.06);
}

TEST(LengthDistribution, ParsesEveryKindAndRejectsNonsense) {
  EXPECT_EQ(LengthDistribution::parse("fixed:128", "--input").mean(), 128);
  EXPECT_EQ(LengthDistribution::parse("uniform:10,20", "--input").mean(), 15);
  EXPECT_EQ(LengthDistribution::parse("empirical:1,2,3,6", "--input").mean(), 3);
  EXPECT_NEAR(LengthDistribution::parse("lognormal:100,0.5", "--input").mean(), 100, 1e-9);
  for (const char* bad :
       {"fixed", "fixed:0", "fixed:-3", "fixed:nan", "uniform:5,1", "lognormal:100,0",
        "lognormal:inf,1", "zipf:3", "empirical:", "fixed:1e9"})
    EXPECT_THROW(LengthDistribution::parse(bad, "--input"), InputError) << bad;
}

TEST(Workload, SameSeedSameRequestsAndRateDoesNotChangeLengths) {
  WorkloadSpec w;
  w.lengths = dataset_preset("sharegpt");
  w.requests = 1000;
  w.arrival.rate_per_s = 2;
  RequestSource a(w), b(w);
  w.arrival.rate_per_s = 20;
  RequestSource c(w);
  Request x, y, z;
  double last = 0;
  while (a.next(x)) {
    ASSERT_TRUE(b.next(y));
    ASSERT_TRUE(c.next(z));
    EXPECT_EQ(x.arrival_s, y.arrival_s);
    EXPECT_EQ(x.input_tokens, z.input_tokens);
    EXPECT_EQ(x.output_tokens, z.output_tokens);
    EXPECT_LE(x.input_tokens + x.output_tokens, 2048);
    EXPECT_GE(x.arrival_s, last);
    last = x.arrival_s;
  }
  EXPECT_NEAR(last, 1000 / 2.0, 1000 / 2.0 * 0.1);  // ~n / rate
}

TEST(Workload, GammaArrivalsHaveTheRequestedBurstiness) {
  WorkloadSpec w;
  w.lengths = dataset_preset("fixed:10,10");
  w.requests = 100000;
  w.arrival = {ArrivalKind::gamma, 5.0, 3.0, 1};
  RequestSource s(w);
  Request r;
  double prev = 0, sum = 0, sq = 0;
  int n = 0;
  s.next(r);
  prev = r.arrival_s;
  while (s.next(r)) {
    const double gap = r.arrival_s - prev;
    prev = r.arrival_s;
    sum += gap;
    sq += gap * gap;
    ++n;
  }
  const double mean = sum / n, cv = std::sqrt(sq / n - mean * mean) / mean;
  EXPECT_NEAR(mean, 0.2, 0.01);
  EXPECT_NEAR(cv, 3.0, 0.2);
}

TEST(Workload, PresetsCarryThePublishedMeans) {
  EXPECT_NEAR(dataset_preset("sharegpt").input.mean(), 161.31, 1e-9);
  EXPECT_NEAR(dataset_preset("sharegpt").output.mean(), 337.99, 1e-9);
  EXPECT_NEAR(dataset_preset("alpaca").input.mean(), 19.31, 1e-9);
  EXPECT_NEAR(dataset_preset("alpaca").output.mean(), 58.45, 1e-9);
  EXPECT_THROW(dataset_preset("sharegtp"), InputError);
  EXPECT_THROW(dataset_preset("fixed:10"), InputError);
}

TEST(Trace, ParsesCsvWithAndWithoutHeaderAndJsonLines) {
  const auto a = parse_trace(
      "arrival_s,input_tokens,output_tokens,prefix_id\n0,10,5,sys\n1.5,20,6,\n", "t.csv");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].prefix_id, 0);
  EXPECT_EQ(a[0].prefix_tokens, 10);
  EXPECT_EQ(a[1].prefix_id, -1);
  EXPECT_EQ(a[1].input_tokens, 20);
  const auto b = parse_trace("0.5,7,8\n", "t.csv");
  EXPECT_EQ(b[0].output_tokens, 8);
  const auto c = parse_trace(
      "{\"arrival_s\": 0.25, \"input_tokens\": 30, \"output_tokens\": 4, \"prefix_id\": 3, "
      "\"prefix_tokens\": 16}\n\n{\"timestamp\": 1, \"input\": 2, \"output\": 1}\n",
      "t.jsonl");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].prefix_tokens, 16);
  EXPECT_EQ(c[1].input_tokens, 2);
}

TEST(Trace, RejectsMalformedLinesWithTheirNumber) {
  for (const char* bad : {"", "a,b,c\n1,2,3\n", "0,10\n", "-1,10,5\n", "0,10,0\n", "0,1.5,3\n",
                          "0,10,5,p,11\n", "{\"arrival_s\":0}\n",
                          "{\"arrival_s\":0,\"input_tokens\""
                          ":1,\"output_tokens\":1,\"input\":3}\n",
                          "[1,2,3]\n", "0,nan,3\n"})
    EXPECT_THROW(parse_trace(bad, "bad.csv"), InputError) << bad;
  try {
    parse_trace("0,1,1\n0,x,1\n", "bad.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos);
  }
}

}  // namespace
}  // namespace memwall::serve
