// Fuzzes engine profiles (data/engines/*.json format) and calibration files' "engines" section:
// arbitrary bytes, read as JSON and as YAML. Any input must be read or raise InputError, never
// crash or hang; accepted profiles must be looked up and serialised without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* origin : {"fuzz/engine.json", "fuzz/engine.yaml"}) {
    memwall::Json doc;
    try {
      doc = memwall::parse_document(text, origin);
    } catch (const memwall::InputError&) {
      continue;
    }
    try {
      memwall::perf::Efficiency e = memwall::perf::default_efficiency();
      for (auto& p : memwall::perf::read_engine_profiles(doc, origin)) e.engines.push_back(p);
      for (const auto& p : e.engines) {
        (void)e.engine(p.key());  // found, or InputError (a key shadowed by an alias)
        (void)e.engine(p.key(), p.platform);
        (void)memwall::perf::to_json(p).dump();
      }
    } catch (const memwall::InputError&) {
    }
    try {
      const auto e =
          memwall::perf::apply_calibration(memwall::perf::default_efficiency(), doc, origin);
      (void)memwall::perf::to_json(e).dump();
    } catch (const memwall::InputError&) {
    }
  }
  return 0;
}
