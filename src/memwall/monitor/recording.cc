#include "memwall/monitor/recording.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "memwall/core/document.h"
#include "memwall/core/error.h"

namespace memwall::monitor {

void write_jsonl(std::ostream& out, const std::vector<GpuSample>& samples) {
  for (const auto& s : samples) out << to_json(s).dump() << '\n';
  out.flush();
}

std::vector<GpuSample> read_jsonl(std::istream& in, const std::string& origin) {
  std::vector<GpuSample> out;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    const std::string where = fmt::format("{}:{}", origin, number);
    if (line.size() > kMaxRecordingLineBytes)
      throw InputError(fmt::format("{}: line of {} bytes is longer than the {} byte limit", where,
                                   line.size(), kMaxRecordingLineBytes));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (out.size() == kMaxRecordingSamples)
      throw InputError(fmt::format("{}: more than {} samples", where, kMaxRecordingSamples));
    out.push_back(sample_from_json(parse_document(line, where), where));
  }
  std::stable_sort(out.begin(), out.end(), [](const GpuSample& a, const GpuSample& b) {
    return a.time_s != b.time_s ? a.time_s < b.time_s : a.index < b.index;
  });
  return out;
}

std::vector<GpuSample> read_jsonl_file(const std::string& path) {
  std::istringstream in(read_input_file(path, "--replay", kMaxRecordingBytes));
  auto samples = read_jsonl(in, path);
  if (samples.empty())
    throw InputError("--replay", path, "a recording with at least one sample (the file is empty)");
  return samples;
}

std::vector<std::vector<GpuSample>> frames(const std::vector<GpuSample>& samples) {
  std::vector<std::vector<GpuSample>> out;
  for (const auto& s : samples) {
    if (out.empty() || out.back().front().time_s != s.time_s) out.emplace_back();
    out.back().push_back(s);
  }
  return out;
}

}  // namespace memwall::monitor
