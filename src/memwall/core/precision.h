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

}  // namespace memwall
