// Files compiled into the binary by cmake/embed.cmake: data/**.json|yaml (memwall::data::embedded_files)
// and the validation cases (memwall::validate::embedded_case_files).
#pragma once

#include <string_view>
#include <vector>

namespace memwall::data {

struct EmbeddedFile {
  std::string_view path;     // relative to the embedded folder, e.g. "hw/accelerators.json" in data/
  std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace memwall::data
