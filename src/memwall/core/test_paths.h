// Test support: where the test binary finds the checkout, the built memwall binary and the fake
// NVIDIA driver library. Defined only in memwall_tests, by one file CMake generates
// (CMakeLists.txt), so no other test file's compile command names an absolute path and every
// clone of the repository shares ccache entries.
#pragma once

#include <string>

namespace memwall::test {

std::string source_dir();         // the checkout, e.g. "/home/me/memwall" (no trailing slash)
std::string memwall_binary();     // build/memwall
std::string fake_nvml_library();  // the fake driver library of tools/memwall/testdata/fake_nvml.cc

}  // namespace memwall::test
