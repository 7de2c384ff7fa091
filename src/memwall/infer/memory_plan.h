// Where one device's memory goes in a deployment: its shard of the weights, transient activations
// and workspace, the engine's runtime reserve, and the KV cache that fills the rest; and from that,
// how many tokens of context a replica can hold, the largest batch for a context and the largest
// context for a batch.
#pragma once

#include <cstdint>

#include "memwall/core/units.h"
#include "memwall/infer/deployment.h"

namespace memwall::infer {

// Engines size transient activations for their largest step; prefill beyond this many tokens is
// processed in chunks (vLLM V1 max_num_batched_tokens default 8192 for generation servers).
inline constexpr int64_t kActivationChunkTokens = 8192;
// cuBLAS/cuBLASLt workspaces, CUDA-graph pools and sampler buffers outside the model tensors
// (vLLM reports ~0.3-1 GiB of non-torch memory per GPU at start-up): 0.5 GiB.
inline constexpr double kWorkspaceGiB = 0.5;
// Paged KV block size in tokens (vLLM default block_size 16); a sequence occupies whole blocks.
inline constexpr int64_t kKvBlockTokens = 16;

// Device memory in bytes an engine can size against: the driver-reported total where the catalog
// cites one (an H100's 81559 MiB), else the datasheet figure in the unit the vendor means (an
// "80 GB" part is 80 GiB); no second conversion here. 0 when unknown.
Bytes device_capacity(const Accelerator& a);

struct MemoryPlan {
  Bytes capacity;             // device memory (catalog GB read as GiB)
  Bytes runtime_reserve;      // (1 - memory_utilization) x capacity: context, allocator slack, NCCL
  Bytes weights;              // this device's shard (largest pipeline stage)
  Bytes activations;          // peak transient activations + workspace at the largest step
  Bytes kv_budget;            // the rest, given to the KV cache
  Bytes kv_bytes_per_token;   // per device per token of context (its layers and KV heads)
  int64_t kv_capacity_tokens = 0;  // tokens of context one replica can hold
  Bytes kv_used;              // for the workload planned (batch x context), 0 if none
  Bytes used() const { return runtime_reserve + weights + activations + kv_used; }
};

// Weight bytes on the device that holds the most (embedding and LM head stay 16-bit for
// quantised weights, as GPTQ/AWQ/FP8 checkpoints keep them).
Bytes weight_bytes_per_device(const Deployment& d);
// KV bytes one device stores per token of context: its KV heads x its pipeline stage's layers.
Bytes kv_bytes_per_token_per_device(const Deployment& d);
// Transient activations for a step of `step_tokens` tokens producing `logit_rows` logits.
Bytes activation_bytes_per_device(const Deployment& d, int64_t step_tokens, int64_t logit_rows);

// The plan for `batch` sequences of `context_tokens` each (batch 0: capacity only).
// InfeasibleError when the weights and activations alone exceed the usable memory, or when the
// batch's KV cache does not fit, saying by how many GiB.
MemoryPlan plan_memory(const Deployment& d, int64_t batch, int64_t context_tokens,
                       int64_t prompt_tokens);

// The plan an engine makes at start-up for continuous batching: it profiles its largest step
// (max_num_batched_tokens tokens, logits for up to max_num_seqs rows) and gives the KV cache only
// what that peak leaves (vLLM gpu_model_runner profile_run + the sampler's dummy run).
MemoryPlan plan_engine_memory(const Deployment& d);

// Largest batch of sequences of `context_tokens` tokens (0 if not even one fits).
int64_t max_batch(const Deployment& d, int64_t context_tokens, int64_t prompt_tokens);
// Largest context (tokens per sequence) for `batch` sequences (0 if none).
int64_t max_context(const Deployment& d, int64_t batch);

}  // namespace memwall::infer
