// Message sizes as people write them for collective benchmarks: "64K", "1.5M", "8G" (binary
// prefixes, as nccl-tests uses), ranges "1K..8G" (doubling, like nccl-tests -f 2) and lists "1M,1G".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memwall/core/units.h"

namespace memwall::comm {

inline constexpr size_t kMaxSizes = 64;
inline constexpr double kMaxMessageBytes = 1024.0 * kGiB;  // 1 TiB

// One size: a number > 0 with an optional K/M/G/T (binary) and optional B/iB suffix.
Bytes parse_size(std::string_view text, const std::string& field);
// A list or a doubling range; InputError naming `field` for anything else.
std::vector<Bytes> parse_sizes(std::string_view text, const std::string& field);
// "1K", "256M", "1.5G", "12345" (the shortest exact binary form, else bytes).
std::string format_size(Bytes b);

}  // namespace memwall::comm
