// The local monitoring sources by name (`memwall monitor --source nvml|amd|ascend|gaudi`): each
// vendor's driver library, where it is usually installed and the package that installs it, and
// the one call that opens it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "memwall/monitor/source.h"

namespace memwall::monitor {

enum class SourceKind { nvml, amd, ascend, gaudi };

struct SourceInfo {
  SourceKind kind;
  const char* name;                // the --source value, and "source" in the JSON
  const char* api;                 // the vendor's library, in words
  std::vector<std::string> paths;  // tried in order when no --library is given
  const char* provided_by;         // the package or installer that puts it there
};

const std::vector<SourceInfo>& source_infos();
const SourceInfo& source_info(SourceKind kind);
// The kind named `text`; InputError naming `flag`, the value and the names allowed otherwise.
SourceKind parse_source_kind(const std::string& text, const std::string& flag);
// "no <api> found: <why>; <library> is installed by <package> ...": the message of a library
// that would not open.
std::string no_library_message(SourceKind kind, const std::string& why);
// Opens the source's library (`library`, or the usual paths when empty) and its devices;
// InfeasibleError (exit 3) with the reason when there is no such library or device.
std::unique_ptr<Source> open_source(SourceKind kind, const std::string& library = "");

}  // namespace memwall::monitor
