// Number formats a tensor can be stored or computed in, with the bytes each element costs
// including the per-group scale factors that block-quantised formats carry.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace memwall {

enum class Precision { fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, int8, int4, fp4 };

struct PrecisionInfo {
  Precision precision;
  std::string_view name;        // canonical CLI name
  double bits;                  // bits per stored element, before scales
  int group_size;               // elements sharing one scale (0: per-tensor or none)
  double scale_bits;            // bits of each group scale
  std::string_view peak_key;    // column of the accelerator's dense-peak table this runs on
  std::string_view description;
};

const PrecisionInfo& info(Precision p);
std::span<const PrecisionInfo> all_precisions();

// Bytes per element including group-scale overhead: bits/8 + scale_bits/(8*group_size).
double bytes_per_element(Precision p);

std::string_view to_string(Precision p);
// Accepts canonical names and common spellings (fp8 -> fp8_e4m3, float16, w4 ...).
std::optional<Precision> parse_precision(std::string_view s);
// As parse_precision, but throws InputError naming `field` and the allowed values.
Precision parse_precision_or_throw(std::string_view s, std::string_view field);

// fp8_e4m3 or fp8_e5m2.
bool is_fp8(Precision p);

// FP8 scaling recipe of the GEMM inputs: one scale per tensor or per channel / token (Transformer
// Engine delayed or current scaling; ModelOpt, FP8-dynamic checkpoints), 1 x 128 activation tiles
// and 128 x 128 weight blocks (DeepSeek-V3 §3.3.2; Qwen3 and DeepSeek FP8 releases), or MXFP8 (OCP
// microscaling: one E8M0 scale per 32 elements, native on Blackwell).
enum class Fp8Recipe { tensorwise, blockwise, mxfp8 };
std::string_view to_string(Fp8Recipe r);
// InputError naming `field` and the allowed values for anything else.
Fp8Recipe parse_fp8_recipe(std::string_view s, std::string_view field);

}  // namespace memwall
