// Fuzzes the monitor's JSON-lines recording reader and what is built from a recording (Prometheus
// text, summary, advice): any input must parse or raise InputError, never crash, hang or read out
// of bounds.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "memwall/core/error.h"
#include "memwall/monitor/advisor.h"
#include "memwall/monitor/prometheus.h"
#include "memwall/monitor/recording.h"
#include "memwall/monitor/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto samples = memwall::monitor::read_jsonl(in, "fuzz.jsonl");
    (void)memwall::monitor::prometheus_text(samples);
    (void)memwall::monitor::summarise(samples);
    (void)memwall::monitor::format_advice(memwall::monitor::advise(samples, std::nullopt));
  } catch (const memwall::InputError&) {
  }
  return 0;
}
