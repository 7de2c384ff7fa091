// memwall's version (CMake's project version) and the commit it was built from, as written into
// the build by cmake/version_script.cmake ("unknown" when neither git nor an archive tells).
#pragma once

#include <string_view>

namespace memwall {

std::string_view version();
std::string_view build_commit();

}  // namespace memwall
