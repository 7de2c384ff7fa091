// JSON-lines recordings: the round trip, and errors that name the line, field and value.
#include "memwall/monitor/recording.h"

#include <gtest/gtest.h>

#include <sstream>

#include "memwall/core/error.h"
#include "memwall/monitor/test_samples.h"

namespace memwall::monitor {
namespace {

using fixtures::h100_sample;

TEST(MonitorRecording, RecordReplayRoundTripKeepsEveryFieldAndUnknowns) {
  GpuSample partial;
  partial.time_s = 1764450000.5;
  partial.index = 1;
  partial.gpu_util_ratio = 0.5;
  GpuSample later = h100_sample();
  later.time_s += 1;
  later.throttle_reasons = 0x1 | 0x20 | (uint64_t(1) << 40);
  std::stringstream file;
  write_jsonl(file, {later, h100_sample(), partial});
  const auto back = read_jsonl(file, "mem.jsonl");
  ASSERT_EQ(back.size(), 3u);
  // Ordered by time, then index.
  EXPECT_EQ(back[0], h100_sample());
  EXPECT_EQ(back[1], partial);
  EXPECT_EQ(back[2], later);
  EXPECT_FALSE(back[1].sm_active_ratio.has_value());  // unknown stays unknown
  EXPECT_FALSE(back[1].name.has_value());
  const auto passes = frames(back);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0].size(), 2u);
  EXPECT_EQ(throttle_reason_names(*later.throttle_reasons),
            (std::vector<std::string>{"gpu_idle", "sw_thermal_slowdown", "0x10000000000"}));
  EXPECT_TRUE(clocks_limited(*later.throttle_reasons));
  EXPECT_FALSE(clocks_limited(0x1 | 0x10));
}

// Each bad line names the line, the field and the value.
TEST(MonitorRecording, ParserErrorsNameLineFieldAndValue) {
  const std::string good = R"({"time_s":1,"index":0})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"time_s":1,"index":0,"sm_active_ratio":1.5})", "sm_active_ratio: value '1.5'"},
      {R"({"time_s":1,"index":0,"power_w":-3})", "power_w: value '-3'"},
      {R"({"time_s":1,"index":0,"power_w":"300"})", "power_w: value '\"300\"'"},
      {R"({"time_s":1,"index":0,"sm_activ_ratio":0.5})", "sm_active_ratio"},
      {R"({"time_s":1,"index":-1})", "index: value '-1'"},
      {R"({"time_s":1,"index":0.5})", "index: value '0.5'"},
      {R"({"index":0})", "'time_s' is missing"},
      {R"({"time_s":1,"index":0,"throttle_reasons":-4})", "throttle_reasons: value '-4'"},
      {R"({"time_s":1,"index":0,"temperature_c":1e300})", "temperature_c: value '1e+300'"},
      {R"({"time_s":1,"index":0,"memory_used_bytes":1e15,"memory_total_bytes":1e10})",
       "memory_used_bytes: value '1e+15' is not allowed; allowed: bytes at most "
       "memory_total_bytes (1e+10)"},
      {R"([1,2])", "a JSON object"},
      {R"({"time_s":1,"index":0)", "not valid JSON"},
  };
  for (const auto& [line, needle] : cases) {
    std::stringstream file(good + "\n\n" + line + "\n");
    try {
      read_jsonl(file, "rec.jsonl");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("rec.jsonl:3"), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  }
  std::stringstream nulls(R"({"time_s":1,"index":2,"power_w":null,"name":null})");
  const auto s = read_jsonl(nulls, "n.jsonl");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(s[0].power_w.has_value());
}

}  // namespace
}  // namespace memwall::monitor
