// A deployment: one model on one kind of accelerator, cut by tensor/pipeline/expert parallelism
// into replicas (data parallelism), with element types for weights, activations and KV cache, the
// node and fabric its devices talk over, and the achievable-ceiling parameters. Built and checked
// once; estimators and the serving simulator then evaluate steps on it cheaply.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/precision.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/fabric.h"
#include "memwall/hw/node.h"
#include "memwall/model/transformer.h"
#include "memwall/perf/efficiency.h"
#include "memwall/perf/graph.h"
#include "memwall/perf/roofline.h"

namespace memwall::infer {

struct DeploymentOptions {
  std::string model;                  // built-in id or path to a Hugging Face config.json
  std::string gpu;                    // catalog id or alias
  std::optional<std::string> node;    // default: the catalog node built from `gpu`, if any
  std::optional<std::string> fabric;  // needed when a replica spans more than one node
  int tp = 1, pp = 1, ep = 1, dp = 1;
  std::optional<Precision> weight_precision;      // default bf16
  std::optional<int> weight_group_size;           // elements per scale for int4/fp4 (GGUF Q4_0: 32)
  std::optional<Precision> activation_precision;  // default: see make_deployment
  std::optional<Precision> kv_precision;          // default: the activation precision (>= 8 bit)
  // Scaling of FP8 weights and activations; default: the model's FP8 checkpoint (block-scaled for
  // DeepSeek-V3/R1), else per-tensor.
  std::optional<Fp8Recipe> fp8_recipe;
  std::string engine = "default";                 // engine profile id (data/engines/*.json)
  std::optional<std::string> engine_version;      // default: the engine's current version
  std::optional<std::string> calibration_file;    // JSON/YAML over the default efficiency
  // Parameters already loaded (a calibration being fitted, measure/calibrate.h): over the file.
  std::shared_ptr<const perf::Efficiency> efficiency;
  // The engine's memory fraction (vLLM gpu_memory_utilization, SGLang mem_fraction_static,
  // TensorRT-LLM free_gpu_memory_fraction); unset: the engine profile's default for the TP size.
  std::optional<double> memory_utilization;
  // Decode iterations per scheduler call (vLLM 0.6's --num-scheduler-steps, multi-step
  // scheduling): the host's scheduling and input preparation run once per that many iterations.
  int scheduler_steps = 1;
};

// Communication time of one collective pattern as a function of message size, tabulated from
// comm::estimate at deployment time (log2-spaced sizes, linear interpolation between them).
struct CommTable {
  double min_log2_bytes = 6;  // 64 B
  std::vector<double> seconds;
  Seconds time(Bytes bytes) const;
};

// Collective-time tables already computed, by cluster and collective, for make_deployment: a
// planner's search builds thousands of deployments on a few hundred (node, fabric, group)
// combinations, and tabulating one collective takes 31 comm::estimate calls. The tables are keyed
// by the node's, accelerator's and fabric's ids, so one cache serves the deployments of one
// catalog, one fabric and one set of efficiency parameters (plan::estimator_factory keeps one per
// factory). Not for concurrent use.
class CommTableCache {
 public:
  const CommTable* find(const std::string& key) const {
    const auto it = tables_.find(key);
    return it == tables_.end() ? nullptr : &it->second;
  }
  const CommTable& insert(std::string key, CommTable t) {
    return tables_.insert_or_assign(std::move(key), std::move(t)).first->second;
  }

 private:
  std::unordered_map<std::string, CommTable> tables_;
};

struct Deployment {
  ModelSpec model;
  Accelerator gpu;
  Node node;                    // the node a replica sits in
  bool node_assumed = false;    // true: a single-device node built because the catalog had none
  std::optional<Fabric> fabric;
  int tp = 1, pp = 1, ep = 1, dp = 1;
  Precision weight = Precision::bf16, activation = Precision::bf16, kv = Precision::bf16;
  double weight_bytes_per_element = 2;  // with group-scale overhead
  double head_bytes_per_element = 2;    // embedding and LM head
  Precision matmul = Precision::bf16;  // the precision GEMMs run in (tensor-core peak used)
  Fp8Recipe fp8_recipe = Fp8Recipe::tensorwise;  // the FP8 GEMMs' scaling (when matmul is fp8)
  std::string engine = "default";  // engine id
  const perf::EngineProfile* engine_profile = nullptr;  // inside *efficiency (kept alive by it)
  double memory_utilization = perf::EngineLimits{}.memory_fraction;  // set by make_deployment
  std::shared_ptr<const perf::Efficiency> efficiency;
  perf::Ceilings ceilings;     // resolved from gpu x matmul x efficiency x engine
  perf::ShardPlan shard;
  std::array<CommTable, 4> comm;  // indexed by perf::CommPattern
  std::vector<std::string> assumptions;

  int devices_per_replica() const { return tp * pp; }
  // The engine's scheduler limits for this device (small-device values where the engine has them).
  int max_num_seqs() const;
  int64_t max_num_batched_tokens() const;
  int devices() const { return tp * pp * dp; }
  int nodes_per_replica() const;
};

// Validates and resolves everything. InputError (exit 2): unknown names, non-positive sizes,
// bad precisions. InfeasibleError (exit 3): TP that does not divide the attention heads, the KV
// heads (unless tp is a multiple of them: KV heads are then replicated) or the FFN width; PP
// larger than the layer count; EP that does not divide the experts or TP; a precision the device
// has no path for; a replica larger than its node without a fabric.
Deployment make_deployment(const Catalog& catalog, const DeploymentOptions& o);

// The same from resolved parts (tests, planner): `node` empty means the catalog had none.
Deployment make_deployment(const ModelSpec& model, const Accelerator& gpu,
                           const std::optional<Node>& node, const std::optional<Fabric>& fabric,
                           const DeploymentOptions& o,
                           std::shared_ptr<const perf::Efficiency> efficiency = nullptr,
                           CommTableCache* comm_cache = nullptr);

}  // namespace memwall::infer
