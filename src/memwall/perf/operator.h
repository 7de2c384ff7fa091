// One operator of a forward pass on one device: what it computes (FLOPs, GEMM shape), what it
// reads (weights, activations, KV cache) and writes, in which element type, and how many times a
// step runs it (once per layer of its kind). Printable, as ggml nodes are.
#pragma once

#include <string>
#include <string_view>

#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/perf/roofline.h"

namespace memwall::perf {

// Which collective a communication operator stands for; the inference estimator times it with
// comm::estimate on the deployment's node and fabric.
enum class CommPattern { none, tp_all_reduce, tp_all_gather, pp_send_recv };
std::string_view to_string(CommPattern c);

struct Operator {
  std::string_view name;  // a static label: "qkv_proj", "attention_decode", "mlp_down" ...
  OpCost cost;            // bytes_read = weight_bytes + activation_bytes + kv_bytes
  Bytes weight_bytes;
  Bytes activation_bytes;
  Bytes kv_bytes;
  Precision element = Precision::bf16;  // type of the main operand (weights for GEMMs)
  double repeat = 1;      // executions per step (layers of its kind; fractional for averages)
  CommPattern comm = CommPattern::none;
  Bytes message_bytes;    // per-rank buffer of the collective (nccl-tests convention)

  // "m x n x k" for GEMMs, else a short description of the sizes.
  std::string shape() const;
  // Arithmetic intensity: FLOPs per byte moved (0 when nothing moves).
  double intensity() const;
};

// What limits the op in the --explain table: "communication", "overhead" (a fixed latency that
// moves no bytes), "compute" or "memory".
std::string_view bound_of(const Operator& op, const OpTime& t);

}  // namespace memwall::perf
