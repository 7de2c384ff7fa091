// Achievable-ceiling parameters: how far below datasheet peaks real kernels run, and what fixed
// overheads an engine adds. Every number is a named parameter with its evidence, resolved per
// accelerator (by id, then architecture, then memory type, then a default) and overridable by a
// calibration file (JSON or YAML, `--calibration FILE`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/node.h"

namespace memwall::perf {

// A fraction looked up by the most specific key that matches: accelerator id, "arch/precision",
// arch, memory type, vendor, then `fallback`. Keys match case-insensitively as prefixes of the
// accelerator's field ("Ada Lovelace (AD102)" matches key "Ada Lovelace").
struct FractionTable {
  double fallback = 1.0;
  std::vector<std::pair<std::string, double>> entries;  // key -> fraction
  std::string evidence;

  double lookup(const Accelerator& a, Precision p) const;
  // True when an entry (not the fallback) matches: evidence exists for this family.
  bool has_entry(const Accelerator& a, Precision p) const;

 private:
  double matching(const Accelerator& a, Precision p) const;  // the matching entry's value, else -1
};

// The scheduler limits of a serving engine: what one iteration may hold (vLLM max_num_seqs and
// max_num_batched_tokens, SGLang max_running_requests and chunked_prefill_size, TensorRT-LLM
// max_batch_size and max_num_tokens). Devices below `small_device_bytes` get the small values
// where the engine picks its defaults by device memory (vLLM: 70 GiB).
struct EngineLimits {
  int max_num_seqs = 256;
  int64_t max_num_batched_tokens = 8192;
  bool chunked_prefill = true;  // prompts are split to fill the token budget next to decodes
  int small_max_num_seqs = 0;                 // 0: same as max_num_seqs
  int64_t small_max_num_batched_tokens = 0;   // 0: same as max_num_batched_tokens
  double small_device_bytes = 0;              // 0: one set of limits for every device
  std::vector<std::string> small_archs;       // architectures that get the small values anyway
  int cuda_graph_max_batch = 0;  // decode batches up to this replay a captured graph (0: none)
  std::vector<int> cuda_graph_batches;  // captured sizes (padded up to the next); empty: every size
  // KV admission: false, blocks for the prompt now (vLLM, SGLang: preempt when the cache runs
  // out); true, blocks for prompt + output reserved at admission, never preempted (TensorRT-LLM
  // GUARANTEED_NO_EVICT). Engine file: "kv_admission": "prompt" | "reserve_output".
  bool reserve_output_kv = false;
  // What the memory fraction (vLLM gpu_memory_utilization, SGLang mem_fraction_static,
  // TensorRT-LLM free_gpu_memory_fraction) is a fraction of: false, the device's total (weights,
  // activations and KV cache together stay under it); true, the memory still free once weights
  // and activations are in place, all of it for the KV cache (TensorRT-LLM). Engine file:
  // "memory_fraction_of": "total" | "free".
  bool memory_fraction_of_free = false;
  // The engine's default for that fraction when the user states none: `memory_fraction`, or the
  // entry of `memory_fraction_by_tp` with the largest tensor-parallel size at or below the
  // deployment's (SGLang sets mem_fraction_static by TP size). Engine file: "memory_fraction": a
  // number, or an object of TP size -> fraction. 0.9: vLLM's gpu_memory_utilization
  // (vllm/engine/arg_utils.py) and TensorRT-LLM's free_gpu_memory_fraction defaults.
  double memory_fraction = 0.9;
  std::vector<std::pair<int, double>> memory_fraction_by_tp;  // sorted by TP size
  double default_memory_fraction(int tp) const {
    double f = memory_fraction;
    for (const auto& [size, fraction] : memory_fraction_by_tp)
      if (size <= tp) f = fraction;
    return f;
  }
};

// The overheads of one serving engine (software stack), one version of it. A kernel gap is paid
// per launched kernel, a step overhead once per engine iteration: the host's scheduling, sampling
// and detokenisation, less the share an overlapped scheduler hides behind the GPU.
struct EngineProfile {
  std::string name;     // engine id: vllm, sglang, trtllm, mindie, vllm-ascend, lmdeploy, llama.cpp,
                        // tgi, or "default"
  std::string version;  // e.g. "0.11"; empty for the generic default
  std::string display;  // "vLLM 0.11 (V1 engine)"
  std::vector<std::string> aliases;  // other names that select this profile ("tensorrt-llm-0.6")
  // The GPU software platform these figures were measured on: "" for any (the CUDA builds the
  // profiles were calibrated on), "rocm" for the engine's ROCm build on AMD Instinct GPUs, whose
  // kernels (hipBLASLt, CK/Triton attention, HIP graphs) run at their own rates.
  std::string platform;
  // The newest release the figures hold for ("0.4.1": 0.4.1 and its .postN); a version above it
  // resolves to the next profile at or below it instead. Empty: up to the next listed version.
  std::string through;
  bool current = false;  // the version chosen when none is asked (one per platform)
  Seconds kernel_overhead;        // per kernel: launch + prologue/epilogue not covered by roofline
  Seconds step_overhead;          // per iteration on the host, after overlap
  Seconds host_scheduling, host_sampling, host_detokenization;  // its parts before overlap
  double host_overlap = 0;        // share of the host work hidden behind the GPU's iteration
  // Host work that grows with the running batch: the Python scheduler, input preparation and
  // output processing loop over every sequence of the iteration (WukLab, "Can Scheduling Overhead
  // Dominate LLM Inference Performance?", 2024: overhead scales with the number of sequences, not
  // tokens). Per sequence per iteration, before overlap; step_overhead_per_sequence after it.
  Seconds host_per_sequence;
  Seconds step_overhead_per_sequence;
  bool fused_elementwise = true;  // rotary, activation and residual adds fused into neighbours
  // Decode attention loads each KV head once for its whole query-head group (GQA-aware kernels:
  // FlashDecoding, TensorRT-LLM XQA from v0.7); false: once per query head (older MMHA kernels).
  bool gqa_shared_kv_loads = true;
  // Architectures (prefix of Accelerator::arch) where this engine's attention re-reads each KV
  // head per query head in iterations that mix prompt chunks with decodes, though its decode-only
  // iterations share the loads: FlashAttention-2's varlen kernel folds the query group into the
  // query rows only when every sequence has one new token (max_seqlen_q == 1).
  std::vector<std::string> mixed_step_gqa_unshared_archs;
  // Rate of this stack's FP8 GEMMs relative to today's cuBLAS (the MAMF figures): early FP8
  // kernels (2023) ran well below them.
  double fp8_gemm_rate_scale = 1.0;
  // Architectures the scale was measured on (prefix of Accelerator::arch, e.g. "CDNA 3"); empty:
  // any. On others it does not apply: a calibration on one generation says nothing of the next.
  std::vector<std::string> fp8_gemm_rate_scale_archs;
  // Rate of this stack's block-scaled FP8 GEMMs (1 x 128 activation groups, 128 x 128 weight
  // blocks: DeepSeek-V3 and Qwen3 FP8 releases) relative to its per-tensor FP8 GEMMs, on the
  // listed architectures (prefix of Accelerator::arch): Hopper's tensor cores accumulate each
  // 128-deep K block apart and CUDA cores apply the scales (DeepSeek-V3 report §3.3.2); Blackwell
  // applies block scales inside the MMA. Empty list: no architecture. The scale is the one
  // measured on a device whose FP8 tensor to FP32 CUDA-core peak ratio is
  // blockwise_fp8_reference_ratio; the promotion work runs on the CUDA cores, so on another device
  // the added time (1 / scale - 1) scales with that device's ratio (perf::resolve_ceilings).
  double blockwise_fp8_gemm_rate_scale = 1.0;
  std::vector<std::string> blockwise_fp8_gemm_rate_scale_archs;
  double blockwise_fp8_reference_ratio = 0;  // 0: apply the scale as measured
  // Share of the device's sustained (STREAM) bandwidth this stack's memory-bound kernels reach:
  // decode's thin GEMMs (cuBLAS/CUTLASS through PyTorch) and paged attention. 1: STREAM-level,
  // as TensorRT-LLM's TensorRT engines reach in their published tables.
  double memory_stream_fraction = 1.0;
  // Share of the sustained GEMM and prefill-attention rate this stack's compute-bound kernels reach
  // inside a whole iteration: cuBLAS/FlashAttention launched from a PyTorch runtime between
  // separate element-wise kernels (cold L2, clock dips), as the training estimator's
  // gemm_in_situ_fraction; 1: TensorRT engines (fused, tuned per shape), as their tables show.
  double compute_in_situ_fraction = 1.0;
  // The same share on the listed architectures (prefix of Accelerator::arch -> fraction), where
  // the engine's kernels on that generation reach a different share of the device ceilings than
  // on the one `compute_in_situ_fraction` was taken from; the first matching prefix wins.
  std::vector<std::pair<std::string, double>> compute_in_situ_fraction_by_arch;
  // FP8 linear layers of iterations with more tokens than this leave the engine's hand-written
  // skinny (split-K GEMV) kernel for the vendor GEMM library, whose small-M tiles stream the
  // weights at `fp8_library_gemm_stream_fraction` of what the skinny kernel reaches; -1: one
  // kernel path for every size. Applies on the fp8_gemm_rate_scale_archs, to every GEMM of the
  // FP8 deployment (the 16-bit LM head too: an approximation of ~3 % of a step's weights, whose
  // own unquantised skinny path is not modelled apart).
  int fp8_skinny_gemm_max_tokens = -1;
  double fp8_library_gemm_stream_fraction = 1.0;
  // FP8 (W8A8) GEMM inputs are quantised by a kernel of their own, one launch per GEMM.
  bool fp8_activation_quant_kernel = false;
  // Latency each MoE layer's routed-expert path adds beyond its modelled kernels (routing top-k
  // as framework ops, token-to-expert alignment, grouped-GEMM grids padded to every expert), per
  // step; a property of the engine version's MoE kernels, 0 where they are fused and tuned.
  Seconds moe_layer_overhead;
  // CPU time the OpenAI-compatible server spends on one chat request before the engine sees it
  // (HTTP, chat template, tokenisation, request set-up). A burst of N requests sent at once
  // reaches the engine only after about N x this (asyncio runs every handler's synchronous part
  // first); 0 where not measured.
  Seconds frontend_per_request;
  // One-shot / two-shot all-reduce over NVLink peer memory for messages up to this size (vLLM
  // custom_all_reduce, TensorRT-LLM AllReduce plugin, SGLang); 0: every all-reduce goes to NCCL.
  double custom_all_reduce_max_bytes = 0;
  EngineLimits limits;
  std::string date;      // when the figures were read
  std::string evidence;  // what the figures rest on
  std::vector<std::pair<std::string, std::string>> sources;  // figure -> source

  std::string key() const {
    return (version.empty() ? name : name + "@" + version) + (platform.empty() ? "" : "/" + platform);
  }
  // Set when a `memwall calibrate` profile fitted this engine (its fitted_on.groups entry): how
  // far the user's own records scatter around the fitted model, which the intervals of every
  // answer on that stack then come from (uncertainty::calibrated_interval).
  struct CalibratedSpread {
    int records = 0;             // measurements the fit used
    int fitted_parameters = 0;   // parameters it identified
    double residual_sd_log = 0;  // sd of ln(predicted / measured) after the fit, dof-corrected
    std::vector<std::string> accelerators;  // the accelerators the records ran on
  };
  std::optional<CalibratedSpread> calibrated_spread;
};

// The training-framework parameters a calibration sets (train/parameters.h), for one framework of
// data/frameworks/training.json; what is empty keeps the built-in value.
struct FrameworkCalibration {
  std::string framework;                           // framework id ("megatron")
  std::optional<double> compute_in_situ_fraction;  // TrainParameters::gemm_in_situ_fraction
  std::optional<double> overlap_efficiency;        // TrainParameters::overlap_efficiency
  std::optional<double> step_overhead_ms;          // TrainParameters::step_overhead
  // The accelerators the fit ran on (the profile's fitted_on), so a job elsewhere can say so.
  std::vector<std::string> fitted_accelerators;
  // The records' spread around the fit (fitted_on.groups."framework ID"), for the intervals of
  // the answers on this framework and those accelerators (uncertainty::calibrated_interval).
  std::optional<EngineProfile::CalibratedSpread> calibrated_spread;
};

struct Efficiency {
  // Sustained / datasheet HBM (or GDDR) bandwidth for streaming kernels: STREAM triad results.
  FractionTable memory_bandwidth_fraction;
  // Sustained / dense peak of the best-shaped large GEMM (MAMF finder) per architecture.
  FractionTable gemm_peak_fraction;
  // Share of the best-shape (burst) matmul rate a device keeps under sustained full-chip load:
  // the board power limit pulls the SM clock below the one the short benchmarks ran at. Applies
  // to the compute-bound kernels (GEMMs, prefill attention) of `infer`, `simulate` and `train`,
  // not to the MAMF microbenchmarks, which measure the burst. 1: not power-limited (no evidence).
  FractionTable sustained_compute_fraction;
  // FlashAttention-style prefill kernels: fraction of the dense peak on long sequences.
  double attention_compute_fraction = 0.60;
  // Decode attention (paged KV gather): fraction of the sustained streaming bandwidth.
  double attention_bandwidth_fraction = 1.0;

  // GEMM tiling for tile and wave quantisation: the CTA tiles a library chooses between (cuBLAS
  // heuristics / CUTLASS configurations), each with its rate relative to the largest tile.
  struct GemmTile {
    int m, n;
    double relative_rate;
  };
  std::vector<GemmTile> gemm_tiles = {{128, 256, 1.0}, {128, 128, 1.0}, {64, 128, 0.85},
                                      {64, 64, 0.7}};
  int gemm_min_tile_m = 16;       // small-M (decode) kernels shrink the M tile down to this
  double gemm_k_overhead = 64;    // mainloop fill + epilogue, in K elements per tile
  int gemm_min_k_per_split = 256; // split-K below this K slice is not worthwhile
  // Stream-K / persistent kernels (Osama et al. 2023, "Stream-K"; cuBLAS 12, CUTLASS 3) spread the
  // last partial wave's K-loop over idle SMs: grids of at least one wave lose no SMs. Off by
  // default: the training estimator is calibrated with classic wave quantisation; on, the MAMF
  // cases' p90 error drops from 11.7 % to 7.8 % (H200 fp8 best shape: -19.6 % -> -2.5 %).
  bool gemm_stream_k = false;

  // Blend of compute and memory time for one kernel: t = (c^p + m^p)^(1/p). p -> infinity is the
  // ideal roofline max(c, m); a finite p models imperfect overlap near the ridge point.
  double overlap_exponent = 3.0;

  // Engines whose decode attention is not GQA-aware re-read each KV head for every query head of
  // its group; this share of the re-reads reaches DRAM (the rest hit L2).
  double gqa_reread_dram_share = 0.43;

  // Fraction of tensor-parallel communication hidden behind compute (0: none, the default for
  // inference engines, which run the all-reduce between dependent GEMMs).
  double tp_comm_overlap = 0.0;

  std::vector<EngineProfile> engines;  // the first one is the default
  // Training frameworks calibrated by a file (`memwall calibrate` over training records); none
  // built in: the training estimator's parameters are TrainParameters' unless listed here.
  std::vector<FrameworkCalibration> frameworks;
  // The entry of `framework`, null when the file calibrates none.
  const FrameworkCalibration* framework(std::string_view framework) const;

  // "id", "id@version" or an alias; the id alone picks its current version. InputError for an
  // unknown name or version (naming the known ones). With a platform ("rocm"), that platform's
  // profile of the engine where one exists at or below the version asked, else the generic one.
  const EngineProfile& engine(std::string_view name, std::string_view platform = {}) const;
  std::vector<std::string> engine_names() const;  // ids, each once, in catalog order
};

// The software platform of an accelerator's engine builds: "rocm" for AMD GPUs, "" otherwise.
std::string engine_platform(const Accelerator& a);

// The built-in parameters with their evidence (see efficiency.cc and docs/infer.md).
const Efficiency& default_efficiency();

// The achievable fractions applied to one accelerator and matmul precision, and where they come
// from. Families with evidence (an explicit table entry, NVIDIA parts, whose fallbacks the dev set
// calibrates, or a calibration file) are "calibrated"; every other family gets its vendor's
// conservative prior (docs/infer.md "Uncalibrated families"), below what published runs on that
// family reached, and is marked "uncalibrated" in every estimate and plan.
struct EfficiencyPrior {
  double gemm_peak_fraction = 1;          // best-shape GEMM / dense peak
  double memory_bandwidth_fraction = 1;   // streaming / datasheet bandwidth
  double attention_compute_fraction = 1;  // FlashAttention-class prefill / dense peak
  double communication_fraction = 1;      // collective copy rate / nominal scale-up link
  bool calibrated = true;
  std::string source;  // the evidence, or the vendor prior's name and reasoning
};
EfficiencyPrior efficiency_for(const Efficiency& e, const Accelerator& a, Precision p);

// The node with its scale-up links derated by the communication prior when the accelerator is
// uncalibrated and the node states no measured achievable bandwidth; unchanged otherwise.
Node with_communication_prior(Node node, const Accelerator& a, const Efficiency& e);

// Applies a calibration document over `base`. Keys: memory_bandwidth_fraction,
// gemm_peak_fraction (number, or object of key -> fraction with optional "default"),
// attention_compute_fraction, attention_bandwidth_fraction, overlap_exponent, tp_comm_overlap,
// gqa_reread_dram_share, gemm_min_tile_m, gemm_k_overhead, gemm_stream_k, engines: {name or
// name@version: {kernel_overhead_us, step_overhead_us, fused_elementwise, ...}}, frameworks:
// {training framework id: {compute_in_situ_fraction, overlap_efficiency, step_overhead_ms}}, probe (the measurements `memwall probe` records; read
// and ignored). Unknown keys and out-of-range values raise InputError.
Efficiency apply_calibration(const Efficiency& base, const Json& doc, const std::string& where);
Efficiency load_calibration(const std::string& path);  // default_efficiency() + the file
Json to_json(const Efficiency& e);
Json to_json(const EngineProfile& p);  // the profile as data/engines/*.json states it

// The engine profiles of data/engines/*.json (one file per engine, each with its versions).
// InputError naming the file and field for a malformed one.
std::vector<EngineProfile> read_engine_profiles(const Json& doc, const std::string& origin);

}  // namespace memwall::perf
