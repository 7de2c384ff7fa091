// A serving question on a real deployment: the deployment and its memory plan come from the
// inference estimator (infer/deployment.h, infer/memory_plan.h), every iteration is timed by its
// step cost (infer/step.h), and the workload and engine settings drive the simulator. This is what
// `memwall simulate`, the validation runner and the planner call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/infer/deployment.h"
#include "memwall/offload/host_setup.h"
#include "memwall/serve/simulator.h"

namespace memwall::serve {

struct ServingOptions {
  infer::DeploymentOptions deployment;
  int replicas = 1;
  RouterPolicy router = RouterPolicy::round_robin;
  WorkloadSpec workload;
  std::optional<int64_t> max_len;  // longest sequence; default: the model's context
  const CancelFlag* cancel = nullptr;  // passed to the simulator (core/cancel.h)
  SchedulerConfig scheduler;       // policy continuous/chunked/static/dynamic
  bool disaggregated = false;
  int prefill_replicas = 1, decode_replicas = 1;
  std::optional<BytesPerSecond> link_bandwidth;  // default: the node's NIC (one per device)
  Seconds link_latency{10e-6};
  KvPolicy kv = KvPolicy::paged;
  int block_tokens = 16;
  double watermark = 0.01;
  double swap_space_gib = 4;  // host memory per device for swapped KV (vLLM swap_space default)
  std::optional<BytesPerSecond> swap_bandwidth;  // default: the host link, achievable share
  // Host-memory KV cache for prompt prefixes per replica (LMCache CPU backend, SGLang HiCache),
  // GiB; 0: none.
  double host_kv_cache_gib = 0;
  offload::HostOptions host;  // the CPU and DRAM beside the GPUs (swap and the host KV cache)
  std::optional<int64_t> kv_capacity_tokens;     // override the memory plan
  std::vector<SlaTerm> sla;
  // The deployment's engine limits replace the scheduler's max_batch and token_budget, and a
  // continuous or chunked policy follows the engine (chunked prefill or whole prompts), so the run
  // answers what `infer --batch max` answers at an infinite rate.
  bool engine_limits = false;
};

struct ServingRun {
  SimulationResult result;
  int64_t kv_capacity_tokens = 0;  // per replica
  Bytes kv_bytes_per_token_per_device{0};
  int devices_per_replica = 1;
  std::optional<offload::HostSetup> host;           // when swap or the host KV cache is used
  std::optional<offload::HostLinkModel> host_link;  // the link the copies were timed on
  std::string model, gpu;
  int tp = 1, pp = 1;
  std::vector<std::string> assumptions;
  Json intervals = Json::object();  // 80 % intervals of the figures (serve/intervals.h)
};

// Builds the deployment, sizes the KV cache from its memory plan and runs the simulation.
// InputError for bad options, InfeasibleError when the model does not fit.
ServingRun simulate_serving(const Catalog& catalog, const ServingOptions& options);

Json to_json(const ServingRun& run);
// The "host_kv" object: swap and prefix-reuse traffic (tokens, bytes, time), host-cache counters.
Json host_kv_json(const ServingRun& run);

}  // namespace memwall::serve
