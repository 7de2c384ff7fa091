// The message catalog: every page string and sentence template has both languages, the page uses
// no key the catalog lacks, and the sentences the library says for the page's default questions
// (binding walls, bottlenecks, rejections, errors) come out in Chinese with no English left.
#include "memwall/i18n/messages.h"

#include <gtest/gtest.h>

#include <cctype>
#include <regex>
#include <set>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/core/embedded.h"
#include "memwall/ui/api.h"
#include "memwall/ui/server.h"

namespace memwall::i18n {
namespace {

// Whole words of four or more ASCII letters that are not technical terms or units; tokens with
// digits, dots, slashes or hyphens (ids such as nvidia-h100-sxm, llama-3.1-8b, ib-ndr) are not
// words.
std::vector<std::string> english_words(const std::string& s) {
  // The API's request field names are ids too (an error names the field as the request spells it).
  static const std::set<std::string> fields = [] {
    std::set<std::string> out;
    for (const auto& e : ui::endpoints())
      for (const auto& f : ui::request_fields(e)) out.insert(f);
    for (const auto& e : ui::endpoints()) out.insert(e);
    return out;
  }();
  static const std::set<std::string> terms{
      "NVLink",    "NVSwitch", "PCIe",    "TPOT",      "TTFT",      "FLOP",          "token",
      "tokens",    "ZeRO",     "JSON",    "true",      "false",     "Host",          "http",
      "localhost", "memwall",  "catalog", "list",      "max",       "Gb/s",          "GB/s",
      "TB/s",      "Simple",   "budget",  "power",     "cap",       "gpus",          "ShareGPT",
      "Alpaca",    "NVMe",     "vllm", "FILE",    "sglang",    "lmdeploy",  "mindie",        "trtllm",
      "Roofline",  "SXM",      "HGX",     "AllReduce", "AllGather", "ReduceScatter", "AllToAll"};
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    const bool word = token.size() >= 4 && std::all_of(token.begin(), token.end(), [](char c) {
                        return std::isalpha(static_cast<unsigned char>(c));
                      });
    if (word && !terms.count(token) && !fields.count(token)) out.push_back(token);
    token.clear();
  };
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
        c == '/' || c == '$' || c == '\'' || c == '`')
      token += c;
    else
      flush();
  }
  flush();
  // A token quoted with ' or ` is a value the user gave or a command: not a word to translate.
  out.erase(std::remove_if(
                out.begin(), out.end(),
                [](const std::string& w) { return w.find_first_of("'`") != std::string::npos; }),
            out.end());
  return out;
}

TEST(Messages, ParsesLanguagesAndLocales) {
  EXPECT_EQ(parse_lang("zh"), Lang::zh);
  EXPECT_EQ(parse_lang("zh_CN.UTF-8"), Lang::zh);
  EXPECT_EQ(parse_lang("zh-Hans"), Lang::zh);
  EXPECT_EQ(parse_lang("en_US.UTF-8"), Lang::en);
  EXPECT_EQ(parse_lang("C.UTF-8"), Lang::en);
  EXPECT_FALSE(parse_lang("fr"));
}

TEST(Messages, EveryPageStringAndTemplateHasBothLanguages) {
  const Json& m = page_messages();
  ASSERT_GT(m.at("en").size(), 100u);
  EXPECT_EQ(m.at("en").size(), m.at("zh").size());
  for (const auto& [key, en] : m.at("en").items()) {
    const std::string zh = m.at("zh").at(key).get<std::string>();
    EXPECT_FALSE(en.get<std::string>().empty()) << key;
    EXPECT_FALSE(zh.empty()) << key;
    EXPECT_TRUE(english_words(zh).empty()) << key << ": " << zh;
  }
  for (const auto& t : sentence_templates()) {
    const std::string zh = localize(t, Lang::zh);
    EXPECT_NE(zh, t) << t;
  }
}

// A translation says every number its English says: a Chinese template that turns "has 0 NICs"
// into "has no NICs" drops a value the reader (and the UI parity check) compares. Numbers are
// counted outside {placeholders} and not inside words ("e2e"); "2x" counts as 2.
TEST(Messages, EveryTemplateKeepsTheNumbersOfItsEnglish) {
  auto numbers = [](std::string s) {
    s = std::regex_replace(s, std::regex(R"(\{[^}]*\})"), " ");
    static const std::regex number(R"((^|[^A-Za-z0-9.])(\d+(\.\d+)?))");
    std::multiset<std::string> out;
    for (auto it = std::sregex_iterator(s.begin(), s.end(), number); it != std::sregex_iterator();
         ++it)
      out.insert((*it)[2].str());
    return out;
  };
  int checked = 0;
  for (const auto& f : data::embedded_files()) {
    if (f.path != "messages/messages.json") continue;
    const Json doc = Json::parse(f.content);
    std::string en_run, zh_run;  // a formula split over two lines moves a term across the break
    for (const auto& t : doc.at("sentences")) {
      en_run += " " + t.at("en").get<std::string>();
      zh_run += " " + t.at("zh").get<std::string>();
      ++checked;
      if (numbers(en_run) == numbers(zh_run)) {
        en_run.clear();
        zh_run.clear();
      } else if (en_run.size() > 400) {
        ADD_FAILURE() << "numbers differ between\n  " << en_run << "\n  " << zh_run;
        en_run.clear();
        zh_run.clear();
      }
    }
    EXPECT_TRUE(en_run.empty()) << "numbers differ between\n  " << en_run << "\n  " << zh_run;
  }
  EXPECT_GT(checked, 300);
}

TEST(Messages, ThePageUsesOnlyKeysTheCatalogHas) {
  const std::string page(ui::page());
  const Json& en = page_messages().at("en");
  static const std::regex uses(
      R"re((?:\bt|\bcard|\bpanel)\("([a-z0-9_]+)"|\{ k: "([a-z0-9_]+)"|data-k="([a-z0-9_]+)")re");
  int checked = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), uses); it != std::sregex_iterator();
       ++it) {
    std::string key = (*it)[1].matched   ? (*it)[1].str()
                      : (*it)[2].matched ? (*it)[2].str()
                                         : (*it)[3].str();
    if (key.back() == '_')
      continue;  // a prefix completed at run time (tab_<view>, dim_<name>), checked in the browser
                 // test
    EXPECT_TRUE(en.contains(key)) << "the page uses message '" << key
                                  << "' that data/messages/messages.json lacks";
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(Messages, SentencesKeepTheirValuesAndLocaliseInside) {
  EXPECT_EQ(localize("TPOT 57.1 ms > 50.0 ms at batch 257", Lang::zh),
            "批大小 257 时 TPOT 57.1 ms > 50.0 ms");
  EXPECT_EQ(localize("TPOT 57.1 ms > 50.0 ms at batch 257", Lang::en),
            "TPOT 57.1 ms > 50.0 ms at batch 257");
  const std::string wall =
      "decode is compute-bound: 21.9 ms of the 29.9 ms step is matmul work at batch 256; one more "
      "sequence per "
      "replica gives TPOT 57.1 ms > 50.0 ms at batch 257";
  EXPECT_EQ(localize(wall, Lang::zh),
            "解码受算力约束：批大小 256 时 29.9 ms 的步长中有 21.9 ms "
            "是矩阵乘；每个副本再多一条序列就会导致批大小 257 时 TPOT "
            "57.1 ms > 50.0 ms");
  EXPECT_EQ(localize("nvidia-h100-sxm", Lang::zh), "nvidia-h100-sxm");  // ids stay
}

// The sentences of the page's default answers and of typical bad requests, in Chinese.
TEST(Messages, DefaultAnswersAndErrorsHaveNoEnglishLeftInChinese) {
  const Catalog& c = Catalog::builtin();
  Json zh = ui::default_answers(c).at("zh");
  std::vector<std::string> sentences;
  for (const auto& p : zh.at("plan").at("plans")) {
    sentences.push_back(p.at("binding"));
    for (const auto& r : p.value("risks", Json::array())) sentences.push_back(r);
  }
  for (const auto& [gpu, why] : zh.at("plan").at("not_feasible").items()) sentences.push_back(why);
  for (const auto& line : zh.at("plan").value("explanation", Json::array()))
    sentences.push_back(line);
  const Json& ex = zh.at("net").at("explain");
  sentences.push_back(ex.at("bottleneck"));
  for (const auto& l : ex.at("links")) sentences.push_back(l.at("link"));
  for (const auto& u : ex.at("upgrades")) sentences.push_back(u.at("change"));
  for (const auto& r : zh.at("net").at("rows")) sentences.push_back(r.at("bottleneck"));
  for (const auto& o : zh.at("infer").at("prefill").at("step").at("operators"))
    sentences.push_back(o.at("shape"));
  Json none =
      ui::handle(c, "plan", Json{{"model", "llama-3.1-405b"}, {"gpus", {"l4"}}, {"fabric", ""}});
  localize_strings(none, Lang::zh);
  for (const auto& [gpu, why] : none.at("not_feasible").items()) sentences.push_back(why);
  for (const Json& bad :
       {Json{{"btach", 4}}, Json{{"batch", -1}}, Json{{"gpu", "h1000"}}, Json{{"batch", "x"}}}) {
    try {
      ui::handle(c, "infer", bad);
    } catch (const InputError& e) {
      sentences.push_back(localize(e.what(), Lang::zh));
    }
  }
  ASSERT_GT(sentences.size(), 20u);
  for (auto s : sentences) {
    // A source or catalog text the sentence quotes (「...」) keeps its own language.
    for (size_t a = s.find("「"), b;
         a != std::string::npos && (b = s.find("」", a)) != std::string::npos; a = s.find("「"))
      s.erase(a, b - a + std::string("」").size());
    EXPECT_TRUE(english_words(s).empty()) << s;
  }
}

}  // namespace
}  // namespace memwall::i18n
