// Test fixtures: datasheet facts of the accelerators, nodes and fabrics the training tests use
// (NVIDIA A100/H100 datasheets; HGX A100/H100 NVSwitch; 200/400 Gb/s InfiniBand HDR/NDR), built
// directly so the estimator's tests do not depend on the catalog files.
#pragma once

#include "memwall/hw/accelerator.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"
#include "memwall/model/transformer.h"

namespace memwall::train::testing {

inline Accelerator a100_80gb() {
  Accelerator a;
  a.id = "nvidia-a100-80gb-sxm";
  a.memory = gib(80);  // the datasheet "80 GB" is 80 GiB
  a.memory_unit = "GiB";
  a.memory_bandwidth = BytesPerSecond(2039e9);
  a.dense_peak = {{"fp16", tflop_per_s(312)}, {"bf16", tflop_per_s(312)},
                  {"fp8", std::nullopt}, {"fp32", tflop_per_s(19.5)}};
  a.unsupported_precisions = {"fp8", "fp4"};
  a.tdp = Watts(400);
  a.compute_units = 108;
  return a;
}

inline Accelerator a100_40gb() {
  Accelerator a = a100_80gb();
  a.id = "nvidia-a100-40gb-sxm";
  a.memory = gib(40);
  a.memory_bandwidth = BytesPerSecond(1555e9);
  return a;
}

inline Accelerator h100_sxm() {
  Accelerator a;
  a.id = "nvidia-h100-sxm";
  a.memory = gib(80);  // the datasheet "80 GB" is 80 GiB
  a.memory_unit = "GiB";
  a.memory_bandwidth = BytesPerSecond(3350e9);
  a.dense_peak = {{"fp16", tflop_per_s(989.4)}, {"bf16", tflop_per_s(989.4)},
                  {"fp8", tflop_per_s(1978.9)}};
  a.unsupported_precisions = {"fp4"};
  a.tdp = Watts(700);
  a.compute_units = 132;
  return a;
}

inline Node hgx(const char* id, double link_gbps, double nic_gbps) {
  Node n;
  n.id = id;
  n.devices = 8;
  n.topology = IntraNodeTopology::nvswitch;
  n.device_link_bandwidth_per_direction = gb_per_s(link_gbps);
  n.device_link_latency = us(3);
  n.nics = 8;
  n.nic_bandwidth_per_direction = gb_per_s(nic_gbps);
  return n;
}
inline Node hgx_a100() { return hgx("hgx-a100", 300, 25); }
inline Node hgx_h100() { return hgx("hgx-h100", 450, 50); }

inline Fabric ib(const char* id, double port_gbps) {
  Fabric f;
  f.id = id;
  f.technology = "infiniband";
  f.port_bandwidth_per_direction = gb_per_s(port_gbps);
  f.switch_hop_latency = us(0.3);
  f.endpoint_latency = us(2);
  return f;
}

// A GPT-3 style model (MHA, LayerNorm, GELU MLP f = 4h, learned positions, tied embedding).
inline ModelSpec gpt(int layers, int64_t hidden, int heads, int64_t vocab = 51200,
                     int64_t positions = 2048) {
  ModelSpec m;
  m.id = "gpt-test";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = int(hidden / heads);
  m.ffn = 4 * hidden;
  m.vocab = vocab;
  m.max_context = positions;
  m.attention = AttentionKind::mha;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.position = PositionKind::learned;
  m.tied_embeddings = true;
  m.qkv_bias = m.out_bias = m.mlp_bias = true;
  return m;
}

}  // namespace memwall::train::testing
