// Small text helpers shared by the readers and name matchers (ids, case fields, user options).
#pragma once

#include <string>
#include <string_view>

namespace memwall {

// ASCII lower case (ids, vendor names and case texts are ASCII; other bytes pass unchanged).
std::string to_lower(std::string_view s);
// to_lower(a) == to_lower(b), and whether to_lower(s) starts with to_lower(prefix), without
// building either string (catalog and price lookups run thousands of times in a search).
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);

// Whether `s` is well-formed UTF-8 (RFC 3629 §4: no overlong forms, surrogates or code points above
// U+10FFFF).
bool is_valid_utf8(std::string_view s);
// `s` with each byte that does not start a well-formed UTF-8 sequence replaced by U+FFFD, so an
// error message that quotes a binary file can still cross into JSON or Python text.
std::string to_valid_utf8(std::string_view s);

}  // namespace memwall
