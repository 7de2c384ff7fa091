// Hand-built models and devices for the perf and infer tests (published shapes and datasheets),
// so the tests do not depend on the catalog files.
#pragma once

#include "memwall/hw/accelerator.h"
#include "memwall/model/transformer.h"

namespace memwall::perf::testing {

// Llama-3.1-70B (meta-llama/Llama-3.1-70B config.json).
inline ModelSpec llama31_70b() {
  ModelSpec m;
  m.id = "llama-3.1-70b";
  m.layers = 80; m.hidden = 8192; m.heads = 64; m.kv_heads = 8; m.head_dim = 128;
  m.ffn = 28672; m.vocab = 128256; m.max_context = 131072;
  return m;
}

// Llama-2-7B (meta-llama/Llama-2-7b-hf config.json): MHA.
inline ModelSpec llama2_7b() {
  ModelSpec m;
  m.id = "llama-2-7b";
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 32; m.head_dim = 128;
  m.ffn = 11008; m.vocab = 32000; m.max_context = 4096; m.attention = AttentionKind::mha;
  return m;
}

// Mixtral-8x7B (mistralai/Mixtral-8x7B-v0.1 config.json).
inline ModelSpec mixtral_8x7b() {
  ModelSpec m;
  m.id = "mixtral-8x7b";
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 8; m.head_dim = 128;
  m.ffn = 14336; m.vocab = 32000; m.max_context = 32768;
  m.moe.experts = 8; m.moe.top_k = 2; m.moe.expert_ffn = 14336;
  return m;
}

// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): MLA + MoE.
inline ModelSpec deepseek_v3() {
  ModelSpec m;
  m.id = "deepseek-v3";
  m.layers = 61; m.hidden = 7168; m.heads = 128; m.kv_heads = 128; m.head_dim = 128;
  m.ffn = 18432; m.vocab = 129280; m.max_context = 163840; m.attention = AttentionKind::mla;
  m.mla = {1536, 512, 64, 128, 128};
  m.moe.experts = 256; m.moe.top_k = 8; m.moe.shared_experts = 1; m.moe.expert_ffn = 2048;
  m.moe.shared_expert_ffn = 2048; m.moe.first_dense_layers = 3;
  return m;
}

// NVIDIA H100 SXM5 80GB datasheet: 3.35 TB/s, 989.4 dense bf16 TFLOP/s, 1978.9 fp8, 132 SMs.
inline Accelerator h100_sxm() {
  Accelerator a;
  a.id = "nvidia-h100-sxm"; a.vendor = "NVIDIA"; a.arch = "Hopper"; a.memory_type = "HBM3";
  a.memory = gib(80); a.memory_unit = "GiB"; a.memory_bandwidth = gb_per_s(3350);
  a.dense_peak = {{"bf16", tflop_per_s(989.4)}, {"fp16", tflop_per_s(989.4)},
                  {"fp8", tflop_per_s(1978.9)}, {"fp32", tflop_per_s(67)}};
  a.compute_units = 132;
  return a;
}

// NVIDIA A100 SXM4 80GB datasheet: 2039 GB/s, 312 dense bf16 TFLOP/s, no fp8, 108 SMs.
inline Accelerator a100_80() {
  Accelerator a;
  a.id = "nvidia-a100-80gb-sxm"; a.vendor = "NVIDIA"; a.arch = "Ampere"; a.memory_type = "HBM2e";
  a.memory = gib(80); a.memory_unit = "GiB"; a.memory_bandwidth = gb_per_s(2039);
  a.dense_peak = {{"bf16", tflop_per_s(312)}, {"fp16", tflop_per_s(312)},
                  {"fp32", tflop_per_s(19.5)}, {"int8", tflop_per_s(624)}};
  a.unsupported_precisions = {"fp8", "fp4"};
  a.compute_units = 108;
  return a;
}

}  // namespace memwall::perf::testing
