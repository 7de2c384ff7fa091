// A training question as a front end asks it (the CLI's `memwall train`, the Python module): the
// model, accelerator, node and fabric by name, one parallel configuration, and optionally the
// tokens to train with a price. `answer` resolves the names (default node and fabric included),
// runs the estimate and the training run; `to_json` gives the one JSON object both front ends
// return, so their keys cannot drift apart.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/train/config.h"
#include "memwall/train/counts.h"
#include "memwall/train/estimate.h"
#include "memwall/train/setup.h"

namespace memwall::train {

inline constexpr const char* kConventions =
    "Conventions: model FLOPs = forward + backward matmul FLOPs without recomputation, 6 x active\n"
    "parameters per token plus the attention term 12 x layers x seq x (heads x head_dim) per token\n"
    "(Narayanan et al. 2021 eq. 3, full s x s attention, no causal halving); hardware FLOPs add the\n"
    "recomputed forward (full: every layer; selective: the attention core). MFU / HFU = model /\n"
    "hardware FLOP/s per GPU / dense peak of the matmul precision (bf16, fp16 or fp8; no sparsity).\n"
    "Default node: the catalog node built from --gpu (e.g. hgx-a100 for A100 SXM, hgx-h100 for\n"
    "H100 SXM). Default fabric when the GPUs span nodes: ib-hdr for Ampere, ib-ndr for Hopper,\n"
    "ib-xdr for Blackwell, ib-ndr otherwise.\n"
    "Intervals: (low-high) after a value and \"intervals\" in --json are 80 % intervals fitted on\n"
    "the validation cases' errors, leaving each publication out (docs/validate.md).";

struct Request {
  std::string model;  // built-in id or a Hugging Face config.json
  std::string gpu;    // catalog id or alias
  std::optional<std::string> node;    // default: default_node
  std::optional<std::string> fabric;  // default when the GPUs span nodes: default_fabric
  std::optional<std::string> calibration_file;  // JSON/YAML over the default efficiency
  std::shared_ptr<const perf::Efficiency> efficiency;  // already loaded: over the file
  TrainConfig config;
  std::optional<double> tokens;              // tokens to train: adds time, energy, cost
  std::optional<double> price_per_gpu_hour;  // US $, for the cost
  std::optional<double> pue;                 // default TrainParameters::pue
  // Settings a framework user expects defaulted; when not given answer() decides them (Megatron-LM
  // / NeMo behaviour) and lists each as an assumption. When given they replace config's fields.
  std::optional<int> zero;                // default: 1 (distributed optimizer) when DP x CP > 1
  std::optional<bool> sequence_parallel;  // default: on when TP > 1
  std::optional<std::string> recompute;   // none | selective | full | auto; default auto
  // The training framework (framework.h); default megatron. Its kernels, overlaps and default
  // sharding apply to what the user did not give.
  std::optional<std::string> framework;
  std::optional<int> flash_attention_version;  // default: the framework's
  // false: estimate even when memory exceeds the GPU (the offload front end, train/offload_request.h,
  // judges memory after moving states off the GPU).
  bool require_fit = true;
};

struct Answer {
  TrainSetup setup;  // model, gpu, node, fabric, parameters
  std::string fabric_id;  // empty when no fabric
  TrainConfig config;     // as asked (dp may be 0: derived, see estimate.config)
  TrainEstimate estimate;
  std::optional<TrainRun> run;  // when tokens were asked
  ParameterCounts counts;
  std::vector<std::string> assumptions;  // every default answer() chose, in words
  std::string framework;                 // the framework id applied
  bool framework_defaulted = false;
  bool zero_defaulted = false, sequence_parallel_defaulted = false, recompute_chosen = false;
};

// The cheapest recomputation (none, then selective, then full) whose memory fits the GPU; full
// when none fits (the estimate then reports by how much).
Recompute cheapest_fitting_recompute(const TrainSetup& setup, const TrainConfig& c);

// The node whose devices are `gpu`, or one of the same family (a100-40gb -> hgx-a100).
const Node& default_node(const Catalog& catalog, const Accelerator& gpu);
// ib-hdr for Ampere, ib-xdr for Blackwell, ib-ndr otherwise.
std::string default_fabric(const Accelerator& gpu);

// InputError for bad input (field named), InfeasibleError for a configuration that cannot run.
Answer answer(const Catalog& catalog, const Request& request);

// The answer as `memwall train --json` prints it.
Json to_json(const Answer& a);

}  // namespace memwall::train
