// Fuzzes the fleet planner's demand-curve readers (src/memwall/plan/fleet.h: the CSV and the
// --rates list): any text must give a curve of finite, non-negative rates over consecutive hours
// or raise InputError, never crash, hang or read out of bounds.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "memwall/core/error.h"
#include "memwall/plan/fleet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const memwall::plan::DemandCurve d = memwall::plan::parse_demand_csv(text, "fuzz.csv");
    for (const auto& h : d.hours)
      if (!std::isfinite(h.rate_per_s) || h.rate_per_s < 0 ||
          (h.input_tokens && *h.input_tokens < 1))
        std::abort();  // a value the reader promised to refuse
  } catch (const memwall::InputError&) {
  }
  try {  // the same text as `--rates`
    for (const auto& h : memwall::plan::demand_from_rates(text, "fuzz").hours)
      if (!std::isfinite(h.rate_per_s) || h.rate_per_s < 0) std::abort();
  } catch (const memwall::InputError&) {
  }
  return 0;
}
