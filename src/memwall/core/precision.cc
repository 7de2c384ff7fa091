#include "memwall/core/precision.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall {
namespace {

// Group scales: INT4 weight-only as in GPTQ/AWQ (Frantar et al. 2022; Lin et al. 2023) uses one
// fp16 scale per 128 weights; NVFP4 (NVIDIA Blackwell, "NVFP4" technical blog 2025) one fp8 e4m3
// scale per 16 values. FP8/INT8 with per-tensor or per-channel scales add a negligible share.
constexpr std::array<PrecisionInfo, 9> kInfo = {{
    {Precision::fp32, "fp32", 32, 0, 0, "fp32", "IEEE single precision"},
    {Precision::tf32, "tf32", 32, 0, 0, "tf32", "TensorFloat-32 (stored as fp32, 19-bit math)"},
    {Precision::bf16, "bf16", 16, 0, 0, "bf16", "bfloat16"},
    {Precision::fp16, "fp16", 16, 0, 0, "fp16", "IEEE half precision"},
    {Precision::fp8_e4m3, "fp8_e4m3", 8, 0, 0, "fp8", "FP8 E4M3 (per-tensor scale)"},
    {Precision::fp8_e5m2, "fp8_e5m2", 8, 0, 0, "fp8", "FP8 E5M2 (per-tensor scale)"},
    {Precision::int8, "int8", 8, 0, 0, "int8", "INT8 (per-channel scale)"},
    {Precision::int4, "int4", 4, 128, 16, "int4", "INT4, one fp16 scale per 128 elements"},
    {Precision::fp4, "fp4", 4, 16, 8, "fp4", "FP4 E2M1, one fp8 scale per 16 elements (NVFP4)"},
}};

}  // namespace

const PrecisionInfo& info(Precision p) { return kInfo[static_cast<size_t>(p)]; }
std::span<const PrecisionInfo> all_precisions() { return kInfo; }

double bytes_per_element(Precision p) {
  const auto& i = info(p);
  double b = i.bits / 8.0;
  if (i.group_size > 0) b += i.scale_bits / (8.0 * i.group_size);
  return b;
}

std::string_view to_string(Precision p) { return info(p).name; }

std::optional<Precision> parse_precision(std::string_view s) {
  const std::string v = to_lower(s);
  for (const auto& i : kInfo)
    if (v == i.name) return i.precision;
  if (v == "float32" || v == "float") return Precision::fp32;
  if (v == "bfloat16") return Precision::bf16;
  if (v == "float16" || v == "half") return Precision::fp16;
  if (v == "fp8" || v == "e4m3" || v == "float8_e4m3fn") return Precision::fp8_e4m3;
  if (v == "e5m2" || v == "float8_e5m2") return Precision::fp8_e5m2;
  if (v == "w8" || v == "w8a16") return Precision::int8;
  if (v == "w4" || v == "w4a16" || v == "q4") return Precision::int4;
  if (v == "nvfp4" || v == "mxfp4") return Precision::fp4;
  return std::nullopt;
}

Precision parse_precision_or_throw(std::string_view s, std::string_view field) {
  if (auto p = parse_precision(s)) return *p;
  std::vector<std::string> names;
  for (const auto& i : kInfo) names.emplace_back(i.name);
  throw InputError::unknown_name(std::string(field), std::string(s), names);
}

bool is_fp8(Precision p) { return p == Precision::fp8_e4m3 || p == Precision::fp8_e5m2; }

std::string_view to_string(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::tensorwise: return "tensorwise";
    case Fp8Recipe::blockwise: return "blockwise";
    case Fp8Recipe::mxfp8: return "mxfp8";
  }
  return "tensorwise";
}

Fp8Recipe parse_fp8_recipe(std::string_view s, std::string_view field) {
  // Per-channel weight and per-token activation scales are applied in the GEMM epilogue, as one
  // per tensor: the same kernels and rate.
  if (s == "tensorwise" || s == "delayed" || s == "channelwise") return Fp8Recipe::tensorwise;
  if (s == "blockwise" || s == "deepseek") return Fp8Recipe::blockwise;
  if (s == "mxfp8") return Fp8Recipe::mxfp8;
  throw InputError(std::string(field), std::string(s), "tensorwise, blockwise, mxfp8");
}

}  // namespace memwall
