// One training configuration: how a model is split over GPUs (TP x CP x PP x DP, EP inside DP x CP,
// virtual pipeline stages), the batch, the precision recipe, recomputation, ZeRO sharding and which
// communications overlap with compute. The hardware and model live in TrainSetup (setup.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "memwall/core/precision.h"

namespace memwall::train {

// Activation recomputation (Korthikanti et al. 2022 §4): none; selective = the attention core
// (QK^T, softmax, dropout, AV) is recomputed in backward; full = each layer's forward is rerun from
// its stored input.
enum class Recompute { none, selective, full };

std::string_view to_string(Recompute r);

// Pipeline schedule: 1F1B (interleaved when vpp > 1; Narayanan et al. 2021), or DualPipe
// (DeepSeek-V3 report §3.2.1): micro-batches fed from both pipeline ends, each forward chunk
// overlapped with a backward chunk so the expert all-to-all and pipeline transfers hide behind
// compute; bubble (PP/2 - 1)(F&B + B - 3W); two copies of the parameters (Table 2).
enum class Schedule { one_f_one_b, dualpipe };
std::string_view to_string(Schedule s);
Schedule parse_schedule(std::string_view s, std::string_view field);

// FP8 scaling recipe (core/precision.h), shared with inference.
using ::memwall::Fp8Recipe;
using ::memwall::parse_fp8_recipe;
// "none" | "selective" | "full"; InputError naming `field` otherwise.
Recompute parse_recompute(std::string_view s, std::string_view field);

struct TrainConfig {
  // Parallel sizes. gpus = tp x cp x pp x dp. EP ranks are taken from the DP x CP ranks (Megatron
  // Core convention); experts are additionally split by TP (expert tensor parallel = tp).
  int gpus = 1;
  int tp = 1;
  int pp = 1;
  int dp = 0;   // 0: derived as gpus / (tp x cp x pp)
  int cp = 1;   // context parallel (ring attention over the sequence)
  int ep = 1;   // expert parallel
  int vpp = 1;  // virtual pipeline stages per PP rank (interleaved 1F1B when > 1)
  // Uneven pipeline stages (Megatron-LM names): transformer layers on the first / last pipeline
  // stage (0: chosen, see pipeline_split.h); the embedding / the loss counted as one layer of the
  // first / last stage when the layers are split.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  bool account_for_embedding = false;
  bool account_for_loss = false;

  // Mixture of experts (dropless routing: every token reaches its top-k experts).
  // The busiest expert-parallel rank receives moe_imbalance x the mean tokens (1 = balanced);
  // it sets the pace of the expert GEMMs and of the all-to-all.
  double moe_imbalance = 1.0;
  // Node-limited routing: each token goes to experts on at most this many nodes and crosses the
  // network once per node, the copies for experts on the same node forwarded over NVLink
  // (DeepSeek-V3 §3.2.2: 4 nodes; DeepEP). 0: a plain all-to-all of all top-k copies.
  int moe_node_limit = 0;
  // Multi-token-prediction modules (DeepSeek-V3 §2.2: depth 1) on the last stage: one more MoE
  // layer and LM head pass each; their work is not counted in model FLOPs (Narayanan eq. 3).
  int mtp_layers = 0;
  Schedule schedule = Schedule::one_f_one_b;
  Fp8Recipe fp8_recipe = Fp8Recipe::tensorwise;
  bool overlap_ep_comm = false;  // expert all-to-all hidden behind another micro-batch's compute

  int64_t micro_batch = 1;   // sequences per micro-batch per DP replica
  int64_t global_batch = 1;  // sequences per optimizer step, all replicas
  int64_t seq = 2048;        // tokens per sequence

  // Matmul precision: bf16 / fp16 = mixed precision with fp32 master weights and Adam moments;
  // fp8 = fp8 GEMMs (Transformer Engine style) with bf16 weights and fp32 state.
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
  bool sequence_parallel = false;  // Megatron SP: norms/dropout sharded over TP, AG/RS instead of AR
  int zero = 0;                    // 0 none, 1 optimizer, 2 +gradients, 3 +parameters (= FSDP)

  bool flash_attention = true;  // fused attention, never materialises the s x s scores
  // FlashAttention generation: 1 (FA1 / Triton FlashAttention, Dao et al. 2022), 2 (FA2, Dao
  // 2023: not Hopper-native) or 3 (FA3 / cuDNN fused attention using Hopper TMA + wgmma, Shah et
  // al. 2024). On pre-Hopper GPUs 3 runs as FA2.
  int flash_attention_version = 3;
  // Element-wise kernels fused (Megatron/Transformer Engine: bias-GeLU, bias-dropout-add, fused
  // LayerNorm, fused cross-entropy) or run op by op as in eager PyTorch (FSDP/Composer).
  bool fused_elementwise = true;
  bool dropout = false;         // dropout layers present (GPT-2/3 era models: true)
  bool fp32_grad_accumulation = false;  // Megatron "main_grad": gradients kept in fp32 (4 B/param)
  // Adam as one fused kernel (Apex/Megatron FusedAdam, torch fused=True) or op by op in eager
  // PyTorch (Composer DecoupledAdamW, torch.optim.AdamW for-each): see TrainParameters.
  bool fused_optimizer = true;
  // DeepSpeed's BF16_Optimizer under its pipeline engine: after every micro-batch's backward the
  // bf16 gradients are cast and added into fp32 gradient buffers, then zeroed (update_hp_grads /
  // clear_lp_grads), a pass over the stage's parameters per micro-batch. See TrainParameters.
  bool fp32_grad_accumulation_pass = false;
  // ZeRO-3 gathers and reduces parameters in units: PyTorch FSDP wraps one transformer block per
  // unit (1 collective per layer and pass); DeepSpeed ZeRO-3 fetches every parameterised
  // sub-module separately (QKV, output projection, two MLP matrices, two norms: 6 per layer).
  int zero3_collectives_per_layer = 1;
  // Achieved / modelled (NCCL) bandwidth of the ZeRO-3 parameter and gradient collectives of the
  // framework: 1 for PyTorch FSDP; DeepSpeed ZeRO-3 of 2021 reached far less (see
  // TrainParameters::deepspeed_2021_zero3_bandwidth_fraction).
  double zero3_bandwidth_fraction = 1.0;

  bool overlap_tp_comm = false;       // TP collectives hidden behind GEMMs (TE userbuffers)
  bool overlap_grad_reduce = true;    // DP gradient reduction overlapped with the last backward
  bool overlap_param_gather = true;   // ZeRO parameter all-gather overlapped with compute (prefetch)
  bool overlap_cp_comm = true;        // ring-attention K/V exchange overlapped with attention
  bool overlap_p2p = false;           // pipeline send/recv hidden behind compute

  // The derived DP size (dp if set, else gpus / (tp x cp x pp)).
  int data_parallel() const;
  // Micro-batches per DP replica per step: global_batch / (micro_batch x dp).
  int64_t micro_batches() const;
};

}  // namespace memwall::train
