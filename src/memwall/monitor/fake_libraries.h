// Test support: where the tests find the fake vendor libraries of tools/memwall/testdata
// (fake_nvml.cc, fake_amdsmi.cc, fake_dcmi.cc, fake_hlml.cc). Defined beside test_paths.h's
// functions in the file CMake generates (CMakeLists.txt), for memwall_tests only.
#pragma once

#include <string>

namespace memwall::test {

// The fake library of the source named `source` ("nvml", "amd", "ascend", "gaudi").
std::string fake_source_library(const std::string& source);

}  // namespace memwall::test
