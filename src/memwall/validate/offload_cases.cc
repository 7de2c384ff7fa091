// Predictions for the "offload" cases: a model on one GPU with weights, experts or KV in host
// memory (KTransformers, llama.cpp partial/CPU-only), from the offload placement model.
//   - decode speed: batch / TPOT (tokens/s of one sequence at batch 1);
//   - prefill speed: prompt tokens / TTFT.
// GGUF formats are read as their bits per weight: Q8_0 = 32 int8 + one fp16 scale = 8.5 bits;
// Q4_K_M = 4.82 bits (DeepSeek-V3/R1 Q4_K_M: 376.65 GiB for 671.03 B parameters, llama-bench's
// size column in ik_llama.cpp PR #259), int4 storage with a larger scale share.
#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/infer/deployment.h"
#include "memwall/offload/placement.h"
#include "memwall/validate/case.h"
#include "memwall/validate/names.h"

namespace memwall::validate {
namespace {

// Bits per weight of a GGUF format and the memwall precision its GEMMs run from.
struct GgufFormat {
  Precision storage;
  double bits_per_weight;
};

GgufFormat gguf_format(const std::string& text) {
  const std::string t = to_lower(text);
  if (has(t, "q8_0")) return {Precision::int8, 8.5};
  if (has(t, "q4_k_m")) return {Precision::int4, 376.65 * kGiB * 8 / 671.03e9};
  if (has(t, "q4_0")) return {Precision::int4, 4.5};
  throw InputError("config.precision", text, "a GGUF format: Q4_K_M, Q4_0 or Q8_0");
}

std::string engine_of(const std::string& framework) {
  return has(to_lower(framework), "llama.cpp") ? "llama.cpp" : "default";
}

}  // namespace

CaseResult predict_offload_case(const Json& c, const Catalog& catalog) {
  CaseResult r = start_result(c);
  try {
    const Json& hw = c.at("hardware");
    const Json& cfg = c.at("config");
    std::string note;
    infer::DeploymentOptions o;
    o.gpu = hardware_id(str_field(hw, "gpu"), catalog, note);
    o.model = model_id(str_field(c.at("model"), "name"), catalog, note);
    const GgufFormat f = gguf_format(str_field(cfg, "precision"));
    o.weight_precision = f.storage;
    o.kv_precision = Precision::fp16;
    o.engine = engine_of(str_field(cfg, "framework"));
    infer::Deployment d = infer::make_deployment(catalog, o);
    d.weight_bytes_per_element = f.bits_per_weight / 8;
    d.shard.weight_bytes_per_element = d.weight_bytes_per_element;

    offload::HostOptions ho;
    const int64_t sockets = int_field(hw, "sockets").value_or(1);
    ho.cpu = fmt::format("{}x{}", sockets, str_field(hw, "cpu"));
    if (auto gb = int_field(hw, "host_memory_gb")) ho.host_memory_gb = double(*gb);
    const offload::HostSetup h = offload::resolve_host(catalog, d.gpu, ho);
    const offload::StrategySpec s =
        offload::parse_strategy(str_field(cfg, "offload"), "config.offload");
    const int64_t batch = int_field(cfg, "batch_size").value_or(1);
    const auto input = int_field(cfg, "input_len");
    const auto output = int_field(cfg, "output_len");
    if (!input || !output) throw InputError("config: input_len and output_len are required");
    const offload::Estimate e = offload::estimate(d, h, s, {batch, *input, *output});
    const std::string metric = to_lower(r.metric);
    if (has(metric, "prefill") || has(metric, "prompt")) {
      r.predicted = double(batch * *input) / e.infer.ttft.value();
    } else if (has(metric, "decode")) {
      r.predicted = double(batch) / e.infer.tpot.value();
    } else {
      r.skipped_reason = "metric '" + r.metric + "' is not an offload metric memwall predicts";
      return r;
    }
    note += fmt::format("Placement {} ({} bound in decode). ",
                        offload::to_string(e.placement.strategy), e.decode.bound);
    r.assumptions = note;
  } catch (...) {
    r.skipped_reason = skipped_because(std::current_exception());
  }
  return r;
}

}  // namespace memwall::validate
