// The physical efficiencies and overheads the training estimator uses, each a named parameter with
// its evidence. Calibrated once from microbenchmarks and papers, never per validation case.
#pragma once

#include "memwall/core/units.h"

namespace memwall::train {

struct TrainParameters {
  // --- Compute -------------------------------------------------------------------------------
  // Fused attention (FlashAttention-2) backward throughput as a fraction of the dense matmul peak
  // (the forward uses perf's attention_compute_fraction): Dao 2023 (arXiv 2307.08691) Fig. 4-6
  // report 40-60 % of A100 peak backward for head dim 64-128 at s >= 2k.
  double flash_backward_fraction = 0.50;
  // Fixed cost per kernel launch and per stream synchronisation (CUDA launch + framework dispatch,
  // ~4-6 us measured for PyTorch eager ops; PyTorch profiler docs and Megatron traces).
  Seconds kernel_overhead = us(5);
  // Per-step host work not hidden behind the GPU (data loader, logging, loss-scale and gradient
  // norm checks, optimizer launch): Megatron traces show tens of ms per iteration.
  Seconds step_overhead = ms(30);

  // --- Optimizer ------------------------------------------------------------------------------
  // Adam step (fused, fp32 state): reads fp32 master, m, v and the gradient, writes master, m, v
  // and the 16-bit weight copy; plus the gradient-norm pass and gradient zeroing. Bytes per local
  // parameter with 16-bit gradients: 4x3 + 2 (read) + 4x3 + 2 (write) + 2 (norm) + 2 (zero) = 32.
  double optimizer_bytes_per_param = 32.0;

  // --- Communication overlap --------------------------------------------------------------------
  // Fraction of an overlappable window that actually hides communication (SM and memory
  // contention between NCCL kernels and GEMMs; Calculon's `processor_usage` is the same idea).
  double overlap_efficiency = 0.85;
  // Compute slowdown while a collective runs concurrently (NCCL uses SMs; Calculon models 15 %
  // for NVLink, 2 % for IB).
  double overlap_compute_slowdown = 0.05;

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
