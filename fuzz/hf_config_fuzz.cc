// Fuzzes the Hugging Face config.json import and memwall's own model entries: any input must be
// imported or rejected with InputError, never crash, hang or overflow; whatever is accepted must
// count without non-finite results and survive a round trip through memwall's entry format.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/model/counts.h"
#include "memwall/model/zoo.h"

namespace {

void check_accepted(const memwall::ModelSpec& m) {
  const memwall::ParameterCounts c = memwall::count_parameters(m);
  const double kv = memwall::kv_cache_bytes_per_token(m, memwall::Precision::bf16).value();
  const double flops = memwall::forward_flops_per_token(m, 4096);
  if (!std::isfinite(c.total) || !(c.total > 0) || c.active > c.total || !std::isfinite(kv) ||
      !(kv > 0) || !std::isfinite(flops) || !(flops > 0))
    std::abort();
  // An accepted model must be expressible in memwall's own format with the same counts.
  const memwall::ModelSpec back = memwall::model_from_json(memwall::model_to_json(m), "roundtrip");
  if (memwall::count_parameters(back).total != c.total) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  memwall::Json doc;
  try {
    doc = memwall::parse_document(text, "fuzz/config.json");
  } catch (const memwall::InputError&) {
    return 0;
  }
  try {
    check_accepted(memwall::import_hf_config(doc, "fuzz/config.json"));
  } catch (const memwall::InputError&) {
  }
  try {
    check_accepted(memwall::model_from_json(doc, "fuzz.json"));
  } catch (const memwall::InputError&) {
  }
  return 0;
}
