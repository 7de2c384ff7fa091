// The message catalog: every user-facing sentence of the tool in English and Simplified Chinese,
// one file (data/messages/messages.json, compiled in). It holds the web page's strings by key and
// the sentence templates the library speaks in (errors, binding walls, bottlenecks), so a face
// (the CLI with --lang / LANG, the HTTP API with ?lang=, the page's selector) localises what the
// library said without the library knowing about languages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memwall/core/document.h"

namespace memwall::i18n {

enum class Lang { en, zh };

std::string_view to_string(Lang lang);

// "en", "zh", and locale names such as "zh_CN.UTF-8", "zh-Hans", "en_US", "C" (English);
// nullopt for anything else.
std::optional<Lang> parse_lang(std::string_view name);

// The language of LC_ALL, LC_MESSAGES or LANG (the first set), English when none names one.
Lang lang_from_environment();

// The page's strings: {"en": {key: text}, "zh": {key: text}}.
const Json& page_messages();

// `sentence` in `lang`: clause by clause ("; "-separated) when each clause matches a catalog
// template, else a whole match of one, its {placeholders} localised in turn; else unchanged.
// English is returned as is.
std::string localize(std::string_view sentence, Lang lang);

// A text report localised line by line: each line's indentation kept and the rest localised as
// one sentence (a line that matches no template stays as it is). A line laid out in columns (two
// spaces inside: a table row or header, a label padded to its value) is matched only by a
// template that holds such a run of spaces itself, so table cells stay as they are. What the
// CLI's reports print under --lang zh.
std::string localize_lines(std::string_view text, Lang lang);

// Every string value of `answer` localised in place (ids and numbers match no template and stay).
void localize_strings(Json& answer, Lang lang);

// The catalog's sentence templates (English form), for tests.
std::vector<std::string> sentence_templates();

}  // namespace memwall::i18n
