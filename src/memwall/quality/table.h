// Published quality results of reduced-precision formats (data/quality/*.json): per format,
// method and model, the benchmarks a source reports with each one's recovery against the same
// model in bf16. docs/plan.md "Model quality".
#pragma once

#include <string>
#include <vector>

#include "memwall/core/document.h"

namespace memwall::quality {

struct BenchmarkResult {
  std::string name;
  double recovery_pct = 0;  // quantized score / bf16 score x 100 (or 100 - loss error bound)
};

struct QualityResult {
  std::string format;  // w8a8-fp8, w8a8-int8, w8a16-int8, w4a16-int4, w4a4-fp4, kv-fp8, train-fp8
  std::string method;  // per-tensor, per-channel, blockwise, gptq, awq, ...
  std::string use;     // inference | training
  std::string family;  // llama-3.1, qwen2.5, deepseek-v3, ...
  std::vector<std::string> models;  // catalog ids the source measured
  std::vector<BenchmarkResult> benchmarks;
  std::string source;  // paper with section/table, or model card with its date
  std::string tag;     // a few words for a table cell
  double worst_recovery_pct() const;
};

class QualityTable {
 public:
  // Adds the "quality" key of one document; InputError naming the file and field when malformed.
  void load(const Json& doc, const std::string& origin);
  static const QualityTable& builtin();  // data/quality/*.json
  const std::vector<QualityResult>& results() const { return results_; }

 private:
  std::vector<QualityResult> results_;
};

}  // namespace memwall::quality
