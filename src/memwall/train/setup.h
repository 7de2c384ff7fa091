// What stays fixed while a planner searches training configurations: the model, the accelerator,
// the node and fabric, and the estimator's physical parameters; with the model's per-layer shape
// facts precomputed once so each configuration evaluates in microseconds.
#pragma once

#include <memory>
#include <optional>

#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"
#include "memwall/model/transformer.h"
#include "memwall/perf/roofline.h"
#include "memwall/train/collective_cache.h"
#include "memwall/train/parameters.h"

namespace memwall::train {

// Shapes of one decoder layer and the model ends, from ModelSpec (parameter counts in elements).
struct LayerShape {
  double hidden = 0;       // h
  double heads = 0;        // a
  double kv_heads = 0;     // g
  double head_dim = 0;     // d
  double q_width = 0;      // a x d
  double kv_width = 0;     // g x d
  double v_width = 0;      // attention output width: a x d (MLA: a x v_head_dim)
  double ffn = 0;          // dense MLP intermediate f
  double mlp_matrices = 2; // 3 for gated (SwiGLU), 2 for plain
  // MoE (zero for dense models)
  double experts = 0, top_k = 0, expert_ffn = 0, shared_ffn = 0;  // shared_ffn = all shared experts
  double vocab = 0;
  double attention_params = 0;   // QKV + output projections (+ biases, q/k norms), per layer
  double attention_matmul_params = 0;  // the same without biases and norms (FLOP counting)
  double dense_mlp_params = 0;   // dense MLP per dense layer
  double expert_params = 0;      // one routed expert
  double shared_mlp_params = 0;  // all shared experts of one MoE layer
  // MLA (zero otherwise): compressed query / key-value widths per token (q_lora_rank and
  // kv_lora_rank + the rope key), and the per-head up-projections' output widths.
  double mla_latent = 0;       // q_lora + kv_lora + rope elements kept per token
  double mla_q_rank = 0, mla_kv_rank = 0;
  double mla_q_up = 0;         // a x (nope + rope)
  double mla_kv_up = 0;        // a x (nope + v)
  double router_params = 0;
  double norm_params = 0;        // per layer (replicated over TP)
  double embedding_params = 0;   // token (+ learned position) embedding
  double lm_head_params = 0;     // 0 when tied and on the same stage
  bool tied = false;
  int layers = 0;
  int moe_layers = 0;
};

LayerShape layer_shape(const ModelSpec& m);

struct TrainSetup {
  ModelSpec model;
  Accelerator gpu;
  Node node;
  std::optional<Fabric> fabric;  // none: a single node
  TrainParameters params;
  std::shared_ptr<const perf::Efficiency> efficiency;  // achievable ceilings (perf/)
  LayerShape shape;  // filled by make_setup
  // Ceilings resolved once per matmul precision the accelerator supports (bf16, fp16, fp8).
  std::optional<perf::Ceilings> bf16, fp16, fp8;
  // Collective times already asked of the network model (filled lazily, shared by copies).
  std::shared_ptr<CollectiveCache> collectives = std::make_shared<CollectiveCache>();
  // The ceilings for `p`; InfeasibleError when the accelerator cannot run it.
  const perf::Ceilings& ceilings(Precision p) const;
};

// Checks the facts the estimator needs (peak FLOP/s, memory size and bandwidth known; model shape
// complete) and precomputes the layer shape. InputError names what is missing.
TrainSetup make_setup(ModelSpec model, Accelerator gpu, Node node, std::optional<Fabric> fabric,
                      TrainParameters params = {},
                      std::shared_ptr<const perf::Efficiency> efficiency = nullptr);

}  // namespace memwall::train
