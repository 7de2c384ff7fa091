// Small text helpers shared by the readers and name matchers (ids, case fields, user options).
#pragma once

#include <string>
#include <string_view>

namespace memwall {

// ASCII lower case (ids, vendor names and case texts are ASCII; other bytes pass unchanged).
std::string to_lower(std::string_view s);

}  // namespace memwall
