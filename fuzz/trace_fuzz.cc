// Fuzzes the request-trace reader (CSV and JSON lines): any input must parse or raise InputError,
// never crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memwall/core/error.h"
#include "memwall/serve/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)memwall::serve::parse_trace(text, "fuzz.trace");
  } catch (const memwall::InputError&) {
  }
  return 0;
}
