// Test support for the importers' tests: the hand-written fixtures in
// src/memwall/measure/testdata, by name.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "memwall/core/test_paths.h"

namespace memwall::measure::testdata {

inline std::string fixture(const std::string& name) {
  return memwall::test::source_dir() + "/src/memwall/measure/testdata/" + name;
}

inline std::string text_of(const std::string& name) {
  std::ifstream f(fixture(name));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace memwall::measure::testdata
