// The physical efficiencies and overheads the training estimator uses, each a named parameter with
// its evidence. Calibrated once from microbenchmarks and papers, never per validation case.
#pragma once

#include "memwall/core/units.h"

namespace memwall::train {

struct TrainParameters {
  // --- Compute -------------------------------------------------------------------------------
  // GEMM throughput inside a full training step relative to the isolated best-shape microbenchmark
  // (MAMF): clocks drop under sustained full-chip power with memory-bound kernels and NCCL
  // interleaved, and L2 is cold after each element-wise kernel. Calibrated on the per-layer
  // timings of Korthikanti et al. 2022 Table 4 (GPT 22B layer, TP 8, A100): forward 7.7 ms
  // implies ~0.87 of the MAMF-based GEMM rate once communication and element-wise work are
  // accounted for.
  double gemm_in_situ_fraction = 0.87;
  // FlashAttention throughput as a fraction of the dense matmul peak (forward, backward).
  // FA2 on Ampere: Dao 2023 (arXiv 2307.08691) Fig. 4-6, ~60 % forward and ~50 % backward at
  // head dim 64-128, s >= 2k on A100. FA2 on Hopper is not Hopper-native: ~350 and ~280 of 989
  // TFLOP/s (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608 Fig. 1-2). FA3 / cuDNN on
  // Hopper: ~600 forward, ~450 backward of 989 (same figures).
  // FA1-class kernels (FlashAttention v1, the Triton FlashAttention of 2022-23): about 0.38 and
  // 0.30 of A100 peak (the "FlashAttention" bars of Dao 2023 Fig. 4-6); on Hopper such
  // Ampere-style kernels run ~1.8x their A100 rate (FA2: ~350 vs ~195 TFLOP/s), i.e. ~0.21/0.17.
  double flash1_forward_fraction = 0.38, flash1_backward_fraction = 0.30;
  double flash1_hopper_forward_fraction = 0.21, flash1_hopper_backward_fraction = 0.17;
  double flash2_forward_fraction = 0.60, flash2_backward_fraction = 0.50;
  double flash2_hopper_forward_fraction = 0.35, flash2_hopper_backward_fraction = 0.28;
  double flash3_forward_fraction = 0.60, flash3_backward_fraction = 0.45;
  // Element-wise HBM traffic of eager (unfused) frameworks relative to fused kernels: a bias add
  // then GeLU, or a residual add then LayerNorm, each read and write the tensor once more than
  // the fused kernel (Megatron-LM fused kernels; PyTorch eager op-by-op execution).
  double unfused_elementwise_factor = 2.0;
  // Fixed cost per kernel launch and per stream synchronisation (CUDA launch + framework dispatch,
  // ~4-6 us measured for PyTorch eager ops; PyTorch profiler docs and Megatron traces).
  Seconds kernel_overhead = us(5);
  // Per-step host work not hidden behind the GPU (data loader, logging, loss-scale and gradient
  // norm checks, optimizer launch): Megatron traces show tens of ms per iteration.
  Seconds step_overhead = ms(30);

  // DeepSpeed ZeRO-3 (2021) collective efficiency relative to NCCL on the same fabric: Narayanan
  // et al. 2021 Table 2 measured ZeRO-3 at 768 and 1536 A100s (batch 1536) with the same ~67 s
  // step, i.e. communication bound: 3 x 2 Psi = 1.05 TB per GPU per step, ~16 GB/s per GPU,
  // against ~150 GB/s bus bandwidth of NCCL ring all-gather on 8 x HDR per node (nccl-tests
  // class). The per-module, uncoalesced fetches of that implementation reach ~0.12 of it.
  double deepspeed_2021_zero3_bandwidth_fraction = 0.12;

  // --- Optimizer ------------------------------------------------------------------------------
  // Adam step (fused, fp32 state): reads fp32 master, m, v and the gradient, writes master, m, v
  // and the 16-bit weight copy; plus the gradient-norm pass and gradient zeroing. Bytes per local
  // parameter with 16-bit gradients: 4x3 + 2 (read) + 4x3 + 2 (write) + 2 (norm) + 2 (zero) = 32.
  double optimizer_bytes_per_param = 32.0;
  // Adam op by op (eager PyTorch: Composer DecoupledAdamW's per-parameter loop, torch.optim.AdamW
  // for-each): every op is its own pass over fp32 tensors. Decoupled decay p *= (1 - wd) (2
  // accesses), m *= b1 (2), m += (1 - b1) g (3), v *= b2 (2), v += (1 - b2) g g (4), sqrt(v) (2),
  // / sqrt(bc2) (2), + eps (2), p -= lr m / denom (4): 23 x 4 B = 92 B; plus the gradient-norm
  // clip (read 4 B, scale 8 B) = 104 B per local parameter (composer/optim/
  // decoupled_weight_decay.py DecoupledAdamW.adamw; torch.nn.utils.clip_grad_norm_).
  double unfused_optimizer_bytes_per_param = 104.0;
  // DeepSpeed BF16_Optimizer gradient accumulation, per micro-batch and local parameter: read the
  // bf16 gradient (2 B), write and read its fp32 cast (4 + 4), read and write the fp32 buffer
  // (4 + 4), zero the bf16 gradient (2) = 20 B (deepspeed/runtime/bf16_optimizer.py
  // update_hp_grads: hp_grad.add_(lp.grad.to(fp32)); clear_lp_grads; called after each backward
  // micro-step by deepspeed/runtime/pipe/engine.py _exec_backward_pass).
  double grad_accumulation_pass_bytes_per_param = 20.0;

  // --- Communication overlap --------------------------------------------------------------------
  // Fraction of an overlappable window that actually hides communication (SM and memory
  // contention between NCCL kernels and GEMMs; Calculon's `processor_usage` is the same idea).
  double overlap_efficiency = 0.85;

  // --- Memory -----------------------------------------------------------------------------------
  // CUDA context, cuBLAS/cuDNN workspaces and NCCL internal buffers per GPU: ~0.5-1 GB context
  // (Megatron-LM issue #525, DeepSpeed #4527 discussions) + NCCL channels.
  Bytes runtime_reserve = gib(1.5);
  // Caching-allocator fragmentation on activations (Megatron's theoretical_memory_usage adds 5 %).
  double activation_fragmentation = 0.05;
  // DDP gradient bucket (Megatron default max(40M, 1M x dp) parameters) for ZeRO 0-2.
  double grad_bucket_params = 40e6;

  // --- Energy -----------------------------------------------------------------------------------
  // Power-usage effectiveness of the data centre (assumed; hyperscale 1.1-1.2, industry average
  // ~1.5 per Uptime Institute 2023).
  double pue = 1.2;
  // GPU power while waiting on communication / bubbles, as a fraction of TDP (H100 idle ~70-100 W
  // of 700 W, but a GPU waiting inside NCCL spins at a higher draw).
  double waiting_power_fraction = 0.35;
};

}  // namespace memwall::train
