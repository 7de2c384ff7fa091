// A recorded request trace to replay: CSV (header naming the columns) or JSON lines, one request
// per line with its arrival time, input tokens, output tokens and an optional shared-prefix id.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memwall/serve/workload.h"

namespace memwall::serve {

// Columns / keys: arrival_s (or arrival_time, timestamp), input_tokens (or input, prompt_tokens),
// output_tokens (or output), optional prefix_id (integer or string) and prefix_tokens (default:
// the whole prompt is the shared prefix). A CSV without a header has them in that order.
// Any malformed line raises InputError naming `origin` and the line number.
std::vector<Request> parse_trace(std::string_view text, const std::string& origin);
// A policy bound, not a format one: at about 16 bytes a row, 1 GiB of CSV is some 67 M requests.
inline constexpr size_t kMaxTraceBytes = size_t{1} << 30;
std::vector<Request> load_trace(const std::string& path);

}  // namespace memwall::serve
