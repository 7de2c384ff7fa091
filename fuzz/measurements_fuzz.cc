// Fuzzes the measurement-record reader (src/memwall/measure/record.h): any text, parsed as a
// document and read as measurement records, must give records or raise InputError, never crash,
// hang or read out of bounds. Prediction is not fuzzed here (a legal record may ask for a long
// simulation).
#include <cstddef>
#include <cstdint>
#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/measure/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const memwall::Json doc = memwall::parse_document(text, "fuzz.json");
    const auto records =
        memwall::measure::parse_measurements(doc, "fuzz.json", memwall::Catalog::builtin());
    (void)memwall::measure::to_json(records);
  } catch (const memwall::InputError&) {
  }
  return 0;
}
