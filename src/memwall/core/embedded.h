// The data files (data/**.json|yaml) compiled into the binary by cmake/embed.cmake.
#pragma once

#include <string_view>
#include <vector>

namespace memwall::data {

struct EmbeddedFile {
  std::string_view path;     // relative to data/, e.g. "hw/accelerators.json"
  std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace memwall::data
