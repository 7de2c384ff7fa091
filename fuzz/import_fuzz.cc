// Fuzzes the benchmark importers (src/memwall/measure/import.h): any text, read as each format,
// must import to records or raise InputError, never crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/measure/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& format : memwall::measure::import_formats()) {
    memwall::measure::ImportOptions o;
    o.format = format;
    o.accelerator = "h100";
    const bool training = format.size() > 4 && format.compare(format.size() - 4, 4, "-log") == 0;
    if (format != "llama-bench" && !training) o.engine = "vllm";
    if (training) {  // a training log: the job's sizes the lines do not print
      o.devices = 8;
      o.tp = o.pp = 1;
      if (format != "nanotron-log") {  // nanotron's start line prints the batch and length
        o.micro_batch = 1;
        o.seq_len = 4096;
      }
      if (format == "torchtitan-log") {
        o.framework = "fsdp";
        o.global_batch = 8;
      }
    }
    // Only what each format takes: a flag a format refuses (--batch beside a serve file,
    // --input beside SGLang's stated random lengths) would end every input at that check.
    if (format.rfind("vllm-", 0) == 0) {
      o.input = "1024";
      o.output = "128";
    }
    if (format == "vllm-latency") o.batch = 8;
    // The summarising formats (GuideLLM, genai-perf, aiperf): lengths that vary read as fixed, so
    // an input gets past its lengths to its metrics.
    if (format == "guidellm" || format == "genai-perf" || format == "aiperf" ||
        format == "inference-perf") {
      o.input = "fixed";
      o.output = "fixed";
    }
    if (format != "vllm-serve") o.model = "llama-3.1-8b";
    // A rate stage gets past its load (llm-d-report's corpus entry is one).
    if (format == "inference-perf" || format == "llm-d-report") o.load_type = "poisson";
    std::vector<std::string> notes;
    try {
      (void)memwall::measure::import_text(text, "fuzz.json", o, memwall::Catalog::builtin(), notes);
    } catch (const memwall::InputError&) {
    }
  }
  return 0;
}
