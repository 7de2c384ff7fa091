// Fuzzes the JSON and YAML readers every loader goes through: any input must parse or raise
// InputError, never crash, hang or exhaust the stack.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memwall/core/document.h"
#include "memwall/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* origin : {"fuzz.json", "fuzz.yaml"}) {
    try {
      (void)memwall::parse_document(text, origin);
    } catch (const memwall::InputError&) {
    }
  }
  return 0;
}
