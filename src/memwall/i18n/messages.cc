#include "memwall/i18n/messages.h"

#include <algorithm>
#include <cstdlib>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall::i18n {
namespace {

// An English sentence with {placeholders}: literals[0] {names[0]} literals[1] ... literals[n].
struct Template {
  std::string en, zh;
  std::vector<std::string> literals, names;
  bool laid_out = false;  // a literal holds two spaces: the template of a labelled, aligned line
};

struct Catalog {
  Json page = Json{{"en", Json::object()}, {"zh", Json::object()}};
  std::vector<Template> sentences;
};

Template compile(const std::string& en, const std::string& zh) {
  Template t{en, zh, {""}, {}};
  for (size_t i = 0; i < en.size(); ++i) {
    const size_t close = en[i] == '{' ? en.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      t.literals.back() += en[i];
      continue;
    }
    if (!t.names.empty() && t.literals.back().empty())
      throw InputError("messages.json sentence", en, "placeholders separated by text");
    t.names.push_back(en.substr(i + 1, close - i - 1));
    t.literals.emplace_back();
    i = close;
  }
  for (const auto& l : t.literals) t.laid_out = t.laid_out || l.find("  ") != std::string::npos;
  return t;
}

size_t literal_size(const Template& t) {
  size_t n = 0;
  for (const auto& l : t.literals) n += l.size();
  return n;
}

// Whether the parentheses of `v` pair up: a value is a whole phrase, so "12 (3-4) (5" is not one
// (the literal after it was found inside a parenthesis; a later occurrence is tried).
bool balanced(std::string_view v) {
  int depth = 0;
  for (char c : v) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth == 0;
}

// Fills `values` when `s` from `at` matches literals[k] {names[k]} ... to the end; each value is
// non-empty, its parentheses balanced, and as short as the rest allows (backtracking over later
// occurrences, at most `budget` tries in all, so hostile text cannot make it slow).
bool match(const Template& t, const std::string& s, size_t k, size_t at,
           std::vector<std::string>& values, int& budget) {
  const std::string& lit = t.literals[k];
  if (s.compare(at, lit.size(), lit) != 0) return false;
  at += lit.size();
  if (k == t.names.size()) return at == s.size();
  const std::string& next = t.literals[k + 1];
  if (k + 1 == t.names.size()) {  // the last placeholder runs to the final literal
    if (s.size() < at + next.size() + 1 ||
        s.compare(s.size() - next.size(), next.size(), next) != 0)
      return false;
    values[k] = s.substr(at, s.size() - next.size() - at);
    return balanced(values[k]);
  }
  for (size_t end = s.find(next, at + 1); end != std::string::npos && --budget > 0;
       end = s.find(next, end + 1)) {
    values[k] = s.substr(at, end - at);
    if (balanced(values[k]) && match(t, s, k + 1, end, values, budget)) return true;
  }
  return false;
}

const Catalog& catalog() {
  static const Catalog c = [] {
    Catalog out;
    for (const auto& f : data::embedded_files()) {
      if (f.path != "messages/messages.json") continue;
      const Json doc = parse_document(f.content, "built-in data/messages/messages.json");
      for (const auto& [key, v] : doc.at("page").items()) {
        out.page["en"][key] = v.at("en");
        out.page["zh"][key] = v.at("zh");
      }
      for (const auto& s : doc.at("sentences"))
        out.sentences.push_back(
            compile(s.at("en").get<std::string>(), s.at("zh").get<std::string>()));
      // The most specific template first: a leading {placeholder} of a shorter one could swallow
      // the words of a longer one ("{n}x {acc} ..." inside "Cost: plan 1 (8x ...").
      std::stable_sort(
          out.sentences.begin(), out.sentences.end(),
          [](const Template& a, const Template& b) { return literal_size(a) > literal_size(b); });
    }
    return out;
  }();
  return c;
}

bool has_letters(std::string_view s) {
  for (char c : s)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return false;
}

std::string localize_at(const std::string& s, Lang lang, int depth);

// `laid_out_only`: only templates that hold the two-space layout of an aligned line themselves.
std::optional<std::string> whole_match(const std::string& s, Lang lang, int depth,
                                       bool laid_out_only = false) {
  for (const auto& t : catalog().sentences) {
    if (laid_out_only && !t.laid_out) continue;
    std::vector<std::string> values(t.names.size());
    int budget = 2000;
    if (!match(t, s, 0, 0, values, budget)) continue;
    std::string out = t.zh;
    for (size_t i = 0; i < t.names.size(); ++i) {
      const std::string key = "{" + t.names[i] + "}";
      const std::string value = localize_at(values[i], lang, depth + 1);
      for (size_t at = out.find(key); at != std::string::npos;
           at = out.find(key, at + value.size()))
        out.replace(at, key.size(), value);
    }
    return out;
  }
  return std::nullopt;
}

std::string localize_at(const std::string& s, Lang lang, int depth) {
  if (lang == Lang::en || depth > 4 || s.size() > 16384 || s.find(' ') == std::string::npos ||
      !has_letters(s))
    return s;
  if (s.find("; ") == std::string::npos) return whole_match(s, lang, depth).value_or(s);
  // The library joins reasons with "; ", and some sentences hold "; " themselves.
  std::vector<std::string> clauses;
  for (size_t at = 0;;) {
    const size_t end = s.find("; ", at);
    clauses.push_back(s.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 2;
  }
  if (clauses.size() > 256) return s;  // not a report's sentence
  // Clause by clause when every clause is a sentence of the catalog ...
  std::string out;
  bool all = true;
  for (size_t i = 0; i < clauses.size() && all; ++i) {
    const auto done = whole_match(clauses[i], lang, depth);
    all = done.has_value();
    if (all) out += (i ? "；" : "") + *done;
  }
  if (all) return out;
  // ... else the whole text as one sentence ...
  if (auto whole = whole_match(s, lang, depth)) return *whole;
  // ... else, from each clause on, the longest run of clauses (at most kRun, not all of them) that
  // one template matches, as one: a clause that no run starting at it matches stays as it is.
  constexpr size_t kRun = 12;
  out.clear();
  bool any = false;
  for (size_t i = 0; i < clauses.size();) {
    if (i > 0) out += "；";
    size_t next = i + 1;
    std::optional<std::string> done;
    for (size_t j = std::min(clauses.size() - (i == 0 ? 1 : 0), i + kRun); j > i && !done; --j) {
      std::string run = clauses[i];
      for (size_t k = i + 1; k < j; ++k) run += "; " + clauses[k];
      done = whole_match(run, lang, depth);
      if (done) next = j;
    }
    any = any || done.has_value();
    out += done ? *done : clauses[i];
    i = next;
  }
  return any ? out : s;
}

}  // namespace

std::string_view to_string(Lang lang) {
  return lang == Lang::zh ? "zh" : "en";
}

std::optional<Lang> parse_lang(std::string_view name) {
  const std::string n = to_lower(std::string(name));
  if (n == "zh" || n.rfind("zh_", 0) == 0 || n.rfind("zh-", 0) == 0 || n.rfind("zh.", 0) == 0)
    return Lang::zh;
  if (n == "en" || n.rfind("en_", 0) == 0 || n.rfind("en-", 0) == 0 || n == "c" ||
      n.rfind("c.", 0) == 0 || n == "posix")
    return Lang::en;
  return std::nullopt;
}

Lang lang_from_environment() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return parse_lang(v).value_or(Lang::en);
  }
  return Lang::en;
}

const Json& page_messages() {
  return catalog().page;
}

std::string localize(std::string_view sentence, Lang lang) {
  return localize_at(std::string(sentence), lang, 0);
}

std::string localize_lines(std::string_view text, Lang lang) {
  if (lang == Lang::en) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    const size_t indent = std::min(line.find_first_not_of(' '), line.size());
    out += line.substr(0, indent);
    const std::string body(line.substr(indent));
    // A line laid out in columns (two spaces inside: a table row or header, a label and its
    // value) keeps its cells as they are unless a template holds that layout (a label with its
    // padding), so no cell of ids and numbers is read as part of a sentence.
    if (body.find("  ") == std::string::npos || body.size() > 16384)
      out += localize(body, lang);
    else
      out += whole_match(body, lang, 0, true).value_or(body);
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

void localize_strings(Json& answer, Lang lang) {
  if (lang == Lang::en) return;
  if (answer.is_string()) {
    answer = localize(answer.get_ref<const std::string&>(), lang);
  } else if (answer.is_structured()) {
    for (auto& v : answer) localize_strings(v, lang);
  }
}

std::vector<std::string> sentence_templates() {
  std::vector<std::string> out;
  for (const auto& t : catalog().sentences) out.push_back(t.en);
  return out;
}

}  // namespace memwall::i18n
