// A recording: GPU samples as JSON lines, one object per GPU per sampling pass (the keys of
// sample.h's to_json), so a live session can be replayed, diffed, shared and advised on later.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "memwall/monitor/sample.h"

namespace memwall::monitor {

// Bounds against corrupt or hostile files: a line longer than this, or more samples, is refused.
inline constexpr size_t kMaxRecordingLineBytes = 64 * 1024;
inline constexpr size_t kMaxRecordingSamples = 1'000'000;
// Room for the sample limit at the about 550 bytes a sample that `monitor --record` writes.
inline constexpr size_t kMaxRecordingBytes = size_t{1} << 30;

// Writes one line per sample and flushes, so a recording cut short stays readable.
void write_jsonl(std::ostream& out, const std::vector<GpuSample>& samples);

// Reads every non-blank line; InputError naming `origin`, the line number, the field and value.
// Samples come back ordered by time, then device index.
std::vector<GpuSample> read_jsonl(std::istream& in, const std::string& origin);
// The same from a file; also InputError when it holds no sample.
std::vector<GpuSample> read_jsonl_file(const std::string& path);

// Consecutive samples with the same time: one sampling pass over all devices.
std::vector<std::vector<GpuSample>> frames(const std::vector<GpuSample>& samples);

}  // namespace memwall::monitor
