// The reports in Chinese (issue 33): `plan --lang zh` prints its sentences through the message
// catalog, the ids, numbers and table cells as they are, and --json is the same bytes in either
// language.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

// Words of four or more ASCII letters left in a line, leaving out what stays in its own language:
// text quoted in 「」 (a source's own words), ids and values (tokens with digits, dots, slashes,
// hyphens or underscores), acronyms and column names in capitals, and the technical terms and
// engine ids Chinese engineers write in English.
std::vector<std::string> english_words(std::string s) {
  for (size_t a = s.find("「"), b; a != std::string::npos && (b = s.find("」", a)) != std::string::npos;
       a = s.find("「"))
    s.erase(a, b - a + std::string("」").size());
  static const std::set<std::string> terms{
      "memwall", "plan",  "infer",   "prompt", "token", "prefill", "decode", "batching",
      "continuous", "step", "fabric", "risk", "averse", "docs", "quality", "unknown", "validate",
      "confidence", "high", "intervals", "catalog", "PCIe", "NVMe", "lognormal", "cache", "uncal", "tokens",
      "rack", "vllm", "sglang", "trtllm", "lmdeploy", "mindie", "Ascend"};
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    const bool word = token.size() >= 4 && std::all_of(token.begin(), token.end(), [](char c) {
                        return std::isalpha(static_cast<unsigned char>(c));
                      });
    // A word in capitals is an acronym or a column the legend names (TPOT, DEVICES, FILE).
    const bool capitals = std::none_of(token.begin(), token.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c));
    });
    if (word && !capitals && !terms.count(token)) out.push_back(token);
    token.clear();
  };
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
        c == '/' || c == ':' || c == '$')
      token += c;
    else
      flush();
  }
  flush();
  return out;
}

// A line laid out in columns (two spaces between cells: a table row, a frontier point) holds ids
// and numbers, and a line in capitals is a table's header: neither is a sentence.
bool is_sentence(const std::string& line) {
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos) return false;
  const std::string body = line.substr(start);
  if (body.find("  ") != std::string::npos) return false;
  bool lower = false;
  for (char c : body) lower = lower || std::islower(static_cast<unsigned char>(c));
  return lower;
}

TEST(LangZh, ThePlanReportHasNoEnglishSentenceLeft) {
  const Result r = run("plan --lang zh");
  ASSERT_EQ(r.status, 0);
  for (const char* heading : {"1. 先不看硬件：这个负载需要什么", "3. 每个方案撞上的墙，以及它的软件风险",
                              "4. 帕累托前沿", "5. 没有可行方案的加速器"})
    EXPECT_NE(r.out.find(heading), std::string::npos) << heading;
  std::istringstream lines(r.out);
  int sentences = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!is_sentence(line)) continue;
    ++sentences;
    EXPECT_TRUE(english_words(line).empty())
        << "English left: " << line.substr(0, 200) << " (" << english_words(line).front() << ")";
  }
  EXPECT_GT(sentences, 30);
}

TEST(LangZh, JsonIsTheSameBytesInEitherLanguage) {
  auto answer = [](const std::string& lang) {
    const Result r = run("plan infer --json --concurrency 20 --model qwen2.5-7b --lang " + lang);
    EXPECT_EQ(r.status, 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    j.erase("search_seconds");  // a timing, different on every run
    return j.dump();
  };
  EXPECT_EQ(answer("zh"), answer("en"));
}

// The English report is the library's text as it is: the catalog is not in the way.
TEST(LangZh, EnglishReportsAreUntouched) {
  const Result r = run("plan --lang en");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("1. What the workload needs, before any hardware is named"),
            std::string::npos);
  EXPECT_EQ(r.out.find("先不看硬件"), std::string::npos);
}

}  // namespace
