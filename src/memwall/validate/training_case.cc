// Translating a published training case into a TrainConfig and a model shape: the model from the
// case's shape fields (or, where the source gives only a parameter count, the published shape of
// that model), unstated settings from stated defaults. Nothing here is fitted to the answers.
#include "memwall/validate/training_case.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/train/counts.h"
#include "memwall/train/estimate.h"
#include "memwall/train/layer_cost.h"
#include "memwall/validate/case.h"

namespace memwall::validate {
namespace {


std::string str(const Json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::optional<double> num(const Json& o, const char* k) {
  auto it = o.find(k);
  if (it != o.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

// A GPT-2/3 style model as Megatron-LM trains it: MHA, LayerNorm, GELU MLP, biases, learned
// positions, tied input/output embedding.
ModelSpec gpt_model(const std::string& name, int layers, int64_t hidden, int heads, int64_t ffn,
                    int64_t vocab, int64_t positions) {
  ModelSpec m;
  m.id = to_lower(name);
  m.name = name;
  m.family = "gpt";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = int(hidden / heads);
  m.ffn = ffn;
  m.vocab = vocab;
  m.max_context = positions;
  m.attention = AttentionKind::mha;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.position = PositionKind::learned;
  m.tied_embeddings = true;
  m.qkv_bias = m.out_bias = m.mlp_bias = true;
  return m;
}

// Published shapes for cases that give only a parameter count.
// Megatron GPT of Narayanan et al. 2021 Table 1 / GPT-3 (Brown et al. 2020 Table 2.1).
struct Shape {
  double params_b;
  int layers;
  int64_t hidden;
  int heads;
};
constexpr Shape kMegatronShapes[] = {
    {174.6, 96, 12288, 96},   // GPT-3 175B
    {529.6, 105, 20480, 128}, // Megatron-Turing NLG 530B
};
// MosaicML llm-foundry benchmark models (scripts/train/yamls/pretrain/mpt-*.yaml: d_model,
// n_heads, n_layers; expansion ratio 4, vocabulary 50368, learned positions, biases, tied head).
constexpr Shape kMptShapes[] = {
    {0.125, 12, 768, 12},  {0.350, 24, 1024, 16}, {0.760, 24, 1536, 12}, {1.3, 24, 2048, 16},
    {2.7, 32, 2560, 20},   {6.7, 32, 4096, 32},   {13, 40, 5120, 40},    {30, 48, 7168, 64},
    {65, 80, 8192, 64},
};

double parse_params_b(const std::string& s) {
  // "174.6B", "1T", "22B"
  if (s.empty()) return 0;
  const double v = std::atof(s.c_str());
  const char unit = char(std::toupper(static_cast<unsigned char>(s.back())));
  return unit == 'T' ? v * 1000 : unit == 'M' ? v / 1000 : v;
}

template <size_t N>
const Shape* nearest(const Shape (&table)[N], double params_b, double tolerance) {
  const Shape* best = nullptr;
  double err = tolerance;
  for (const auto& s : table) {
    const double e = std::fabs(s.params_b - params_b) / params_b;
    if (e < err) err = e, best = &s;
  }
  return best;
}

// A run of a current framework (Megatron-Core, DeepSeek's HAI-LLM) with a built-in model and its
// configuration stated field by field; nothing unstated is inferred from the era of the paper.
TrainingCase translate_modern_case(const Json& c, TrainingCase tc, std::string assumptions) {
  const std::string id = str(c, "id");
  const Json& model = c.at("model");
  const Json& cfg = c.at("config");
  auto assume = [&](const std::string& a) {
    if (!assumptions.empty()) assumptions += "; ";
    assumptions += a;
  };
  tc.zoo_model = str(model, "zoo_id");
  const std::string stack = to_lower(str(cfg, "framework"));
  tc.framework = has(stack, "ascend") || has(stack, "mindspeed") ? "mindspeed"
                 : has(stack, "deepspeed")                       ? "deepspeed"
                                                                 : "megatron";
  train::TrainConfig& t = tc.config;
  t.gpus = int(num(c.at("hardware"), "count").value_or(0));
  auto int_of = [&](const char* k, int fallback) { return int(num(cfg, k).value_or(fallback)); };
  t.tp = int_of("tp", 1);
  t.pp = int_of("pp", 1);
  t.cp = int_of("cp", 1);
  t.ep = int_of("ep", 1);
  t.vpp = int_of("interleave_stages", 1);
  t.zero = int_of("zero", 1);
  t.seq = int64_t(num(cfg, "seq_len").value_or(4096));
  t.micro_batch = int64_t(num(cfg, "micro_batch").value_or(1));
  t.global_batch = int64_t(num(cfg, "global_batch").value_or(0));
  t.moe_node_limit = int_of("moe_node_limit", 0);
  t.mtp_layers = int_of("mtp_layers", 0);
  t.moe_imbalance = num(cfg, "moe_imbalance").value_or(1.0);
  const std::string prec = to_lower(str(cfg, "precision"));
  t.precision = has(prec, "fp8") ? Precision::fp8_e4m3 : Precision::bf16;
  if (has(prec, "1x128") || has(prec, "block")) t.fp8_recipe = train::Fp8Recipe::blockwise;
  if (has(prec, "mxfp8")) t.fp8_recipe = train::Fp8Recipe::mxfp8;
  const std::string recompute = to_lower(str(cfg, "recompute"));
  t.recompute = has(recompute, "full")        ? train::Recompute::full
                : has(recompute, "selective") ? train::Recompute::selective
                                              : train::Recompute::none;
  t.sequence_parallel = t.tp > 1;
  if (has(to_lower(str(cfg, "schedule")), "dualpipe")) t.schedule = train::Schedule::dualpipe;
  t.overlap_grad_reduce = true;
  t.overlap_param_gather = true;
  t.dp = t.gpus / std::max(1, t.tp * t.pp * t.cp);
  if (t.global_batch <= 0) throw InputError(id + ": config.global_batch missing");
  const std::string unit = to_lower(str(c, "unit"));
  if (has(unit, "gpu-hour")) {
    tc.metric = TrainingMetric::gpu_hours;
    tc.tokens = num(cfg, "tokens").value_or(0);
    if (tc.tokens <= 0) throw InputError(id + ": config.tokens missing for a GPU-hours metric");
  } else if (has(unit, "tokens/s")) {
    tc.metric = TrainingMetric::tokens_per_s_per_gpu;
  } else {
    throw InputError(id + ": unit '" + str(c, "unit") + "' has no training metric here");
  }
  assume(fmt::format("modern stack: FlashAttention-class fused attention, fused kernels, "
                     "gradient reduce and parameter gather overlapped; {}{}",
                     t.sequence_parallel ? "sequence parallel with TP; " : "",
                     t.fp8_recipe == train::Fp8Recipe::blockwise ? "block-scaled fp8" : "as stated"));
  tc.assumptions = assumptions;
  return tc;
}

}  // namespace

TrainingCase translate_training_case(const Json& c) {
  TrainingCase tc;
  const std::string id = str(c, "id");
  const Json& hw = require_field(c, "hardware", id);
  const Json& model = require_field(c, "model", id);
  const Json& cfg = require_field(c, "config", id);
  const std::string gpu = to_lower(str(hw, "gpu"));
  const std::string net = to_lower(str(hw, "interconnect"));
  std::string assumptions;
  auto assume = [&](const std::string& a) {
    if (!assumptions.empty()) assumptions += "; ";
    assumptions += a;
  };

  // --- Hardware
  if (has(gpu, "a100")) {
    tc.gpu = has(gpu, "40gb") ? "nvidia-a100-40gb-sxm" : "nvidia-a100-80gb-sxm";
    tc.node = "hgx-a100";
  } else if (has(gpu, "h100")) {
    tc.gpu = "nvidia-h100-sxm";
    tc.node = "hgx-h100";
  } else if (has(gpu, "h800")) {
    tc.gpu = "nvidia-h800-sxm";
    tc.node = "hgx-h800";
  } else if (has(gpu, "v100")) {
    tc.gpu = "nvidia-v100-sxm2-32gb";
    tc.node = has(gpu, "dgx-2") ? "dgx2-v100" : "dgx1-v100";
  } else if (has(gpu, "ascend 910b")) {
    // Published Ascend runs rarely name the 910B variant: the family row (commonly cited
    // 910B3-class figures) in an Atlas 800T A2-class node is the stated reading.
    tc.gpu = "huawei-ascend-910b";
    tc.node = "ascend-910b-8";
    if (!has(gpu, "910b1") && !has(gpu, "910b2") && !has(gpu, "910b3") && !has(gpu, "910b4"))
      assume("Ascend 910B variant not stated: the 910B family row");
  } else {
    throw InputError(id + ": GPU '" + str(hw, "gpu") + "' has no training mapping");
  }
  if (has(net, "hdr")) {
    tc.fabric = "ib-hdr";
  } else if (has(net, "edr")) {
    tc.fabric = "roce-100";  // EDR InfiniBand 100 Gb/s modelled as 100 Gb/s NICs
    assume("EDR InfiniBand (100 Gb/s) modelled as the 100 Gb/s RoCE-class fabric");
  } else if (has(net, "omni-path")) {
    tc.fabric = "roce-100";  // Omni-Path 100 Gb/s links modelled as 100 Gb/s RoCE-class NICs
    assume("Omni-Path modelled as 100 Gb/s RoCE-class NICs, one per GPU of the node");
  } else if (has(net, "ndr") || (has(net, "infiniband") && has(net, "400"))) {
    tc.fabric = "ib-ndr";
  } else if (has(net, "roce")) {
    tc.fabric = "roce-200";  // 1600 Gbps per node = 8 x 200 Gb/s RoCE NICs
  } else {
    tc.fabric = "ib-ndr";
    assume("interconnect not stated: 8 x 400 Gb/s NDR InfiniBand per node");
  }
  const int gpus = int(num(hw, "count").value_or(0));
  if (gpus <= 0) throw InputError(id + ": hardware.count missing");

  if (!str(model, "zoo_id").empty()) return translate_modern_case(c, std::move(tc), assumptions);

  // --- Model
  const std::string family = has(to_lower(id), "mpt") ? "mpt" : "megatron";
  const int64_t seq = int64_t(num(cfg, "seq_len").value_or(2048));
  const int64_t vocab = int64_t(num(model, "vocab").value_or(family == "mpt" ? 50368 : 51200));
  if (num(model, "layers") && num(model, "hidden") && num(model, "heads")) {
    const int64_t h = int64_t(*num(model, "hidden"));
    tc.model = gpt_model(str(model, "name"), int(*num(model, "layers")), h,
                         int(*num(model, "heads")), int64_t(num(model, "ffn").value_or(4.0 * double(h))),
                         vocab, seq);
  } else {
    double params_b = 0;
    if (auto p = num(model, "params")) params_b = *p / 1e9;
    else params_b = parse_params_b(str(model, "params"));
    const Shape* shape = family == "mpt" ? nearest(kMptShapes, params_b, 0.08)
                                         : nearest(kMegatronShapes, params_b, 0.02);
    if (!shape) throw InputError(fmt::format("{}: no published shape for {} B parameters", id,
                                             params_b));
    tc.model = gpt_model(str(model, "name"), shape->layers, shape->hidden, shape->heads,
                         4 * shape->hidden, vocab, seq);
    assume(fmt::format("shape from the published config: {} layers, hidden {}, {} heads",
                       shape->layers, shape->hidden, shape->heads));
  }

  // --- Configuration
  train::TrainConfig& t = tc.config;
  t.gpus = gpus;
  t.seq = seq;
  const std::string prec = to_lower(str(cfg, "precision"));
  t.precision = has(prec, "fp8") ? Precision::fp8_e4m3
                : has(prec, "bf16") ? Precision::bf16
                                    : Precision::fp16;
  const std::string recompute = to_lower(str(cfg, "recompute"));
  const std::string scheme = to_lower(str(cfg, "scheme") + " " + str(cfg, "parallelism"));
  // The calibrated stack: llm-foundry's PyTorch FSDP, DeepSpeed (its ZeRO-3 baseline, the
  // Megatron-DeepSpeed and GPT-NeoX runs, ZeRO-Offload), or Megatron-LM.
  tc.framework = family == "mpt" ? "fsdp"
                 : has(scheme, "zero-3") || has(scheme, "deepspeed") ||
                         has(to_lower(str(cfg, "framework")), "deepspeed")
                     ? "deepspeed"
                     : "megatron";
  if (family == "mpt") {
    // llm-foundry: PyTorch FSDP FULL_SHARD (= ZeRO-3) with prefetching, FlashAttention, no
    // dropout; "activation checkpointing" = full recomputation of every block.
    t.tp = t.pp = 1;
    t.zero = 3;
    t.flash_attention = true;
    t.flash_attention_version = 1;  // 2023 llm-foundry benchmarks: Triton / v1 FlashAttention
    t.fused_elementwise = false;    // eager PyTorch modules
    t.dropout = false;
    t.recompute = has(recompute, "checkpoint") ? train::Recompute::full : train::Recompute::none;
    t.overlap_param_gather = true;
    t.fused_optimizer = false;  // Composer DecoupledAdamW: a per-parameter loop of eager ops
    // Composer FSDP mixed precision 'DEFAULT' (the tables' MP Mode column): bf16 parameters,
    // gradients reduced and kept in fp32; 'PURE': bf16 throughout.
    if (to_lower(str(cfg, "mp_mode")) == "default") t.fp32_grad_accumulation = true;
    tc.metric = TrainingMetric::tokens_per_s_per_gpu;
    assume("llm-foundry 2023 stack: FSDP full shard, FlashAttention v1-class kernel, unfused "
           "element-wise PyTorch ops");
  } else {
    // Megatron-LM 2021-22 (Narayanan et al. 2021, Korthikanti et al. 2022): unfused softmax
    // attention with dropout, no overlap of TP or DP communication (Korthikanti §6.3 states the
    // DP all-reduce is not overlapped), 16-bit gradient reduction.
    t.flash_attention = false;
    t.dropout = true;
    t.overlap_grad_reduce = false;
    t.overlap_param_gather = false;
    t.overlap_tp_comm = false;
    // Megatron-DeepSpeed with DeepSpeed's BF16_Optimizer (BLOOM): fp32 gradient accumulation by
    // a separate pass after every micro-batch's backward.
    if (has(scheme, "bf16optimizer") && t.precision == Precision::bf16) {
      t.fp32_grad_accumulation_pass = true;
      assume("DeepSpeed BF16_Optimizer: bf16 gradients added into fp32 buffers after every "
             "micro-batch");
    }
    if (has(scheme, "zero-3")) {
      // DeepSpeed ZeRO-3 baseline of Narayanan Table 2: no model parallelism, prefetching on,
      // activation checkpointing.
      t.tp = t.pp = 1;
      t.zero = 3;
      t.overlap_param_gather = true;
      t.recompute = train::Recompute::full;
      t.zero3_collectives_per_layer = 6;  // DeepSpeed fetches each parameterised sub-module
      t.zero3_bandwidth_fraction = train::TrainParameters{}.deepspeed_2021_zero3_bandwidth_fraction;
      assume("DeepSpeed ZeRO-3 (2021) with activation checkpointing, parameter prefetch, one "
             "collective per sub-module (6 per layer) at its measured collective efficiency");
    } else if (num(cfg, "tp")) {
      t.tp = int(*num(cfg, "tp"));
      t.pp = int(num(cfg, "pp").value_or(1));
    } else {
      // Narayanan Table 2 gives only the model-parallel size: 96 = TP 8 x PP 12, 280 = TP 8 x PP 35.
      const int mp = std::atoi(str(cfg, "model_parallel_size").c_str());
      if (mp <= 0 || mp % 8 != 0) throw InputError(id + ": model-parallel size not understood");
      t.tp = 8;
      t.pp = mp / 8;
      assume(fmt::format("model-parallel {} split as TP 8 x PP {}", mp, t.pp));
    }
    if (!has(scheme, "zero-3")) {
      if (has(recompute, "selective")) {
        t.recompute = train::Recompute::selective;
      } else if (has(recompute, "full") || has(recompute, "recomput")) {
        t.recompute = train::Recompute::full;
      } else if (recompute.empty()) {
        // Narayanan et al. 2021 §5: the large runs use activation recomputation.
        t.recompute = train::Recompute::full;
        assume("recomputation not stated: full (Narayanan et al. 2021 §5)");
      } else {
        t.recompute = train::Recompute::none;
      }
      t.sequence_parallel = (has(recompute, "sequence") && !has(recompute, "no sequence"));
    }
    tc.metric = has(to_lower(str(c, "unit")), "tflop") ? TrainingMetric::narayanan_tflops_per_gpu
                                                     : TrainingMetric::step_time_s;
  }
  if (auto mb = num(cfg, "micro_batch")) {
    t.micro_batch = int64_t(*mb);
  } else {
    t.micro_batch = 1;
    assume("micro-batch not stated: 1");
  }
  if (auto v = num(cfg, "interleave_stages")) {
    t.vpp = int(*v);
  } else if (t.pp > 1) {
    t.vpp = 1;
    assume("pipeline interleaving not stated: non-interleaved 1F1B");
  }
  t.dp = num(cfg, "dp") ? int(*num(cfg, "dp")) : gpus / (t.tp * t.pp);
  if (auto z = num(cfg, "zero")) t.zero = int(*z);  // e.g. ZeRO-1 under Megatron-DeepSpeed
  if (auto g = num(cfg, "global_batch")) t.global_batch = int64_t(*g);
  else t.global_batch = t.micro_batch * t.dp;

  if (to_lower(str(c, "unit")) == "ms") {
    // Korthikanti Table 4: one layer, forward + backward, TP 8 inside one node.
    tc.metric = TrainingMetric::layer_time_ms;
    t.gpus = t.tp;
    t.pp = 1;
    t.dp = 1;
    t.global_batch = t.micro_batch;
    if (has(recompute, "full")) t.recompute = train::Recompute::full;
    else if (has(recompute, "selective")) t.recompute = train::Recompute::selective;
    else t.recompute = train::Recompute::none;
    t.sequence_parallel = (has(recompute, "sequence") && !has(recompute, "no sequence"));
  }
  tc.assumptions = assumptions;
  return tc;
}

double predict_training_metric(const TrainingCase& tc, const train::TrainSetup& setup) {
  const train::TrainConfig& c = tc.config;
  if (tc.metric == TrainingMetric::layer_time_ms) {
    const train::DeviceRates rates =
        train::device_rates(setup.ceilings(c.precision), setup.params.kernel_overhead.value(),
                            setup.params.gemm_in_situ_fraction);
    const train::LayerCost lc =
        train::layer_cost(setup, c, rates, train::cluster_for(setup, c), false);
    const train::PassCost* passes[] = {&lc.forward, &lc.backward, &lc.recompute};
    double s = 0;
    for (const auto* p : passes) s += p->compute_s + p->tp_comm_s + p->cp_comm_s + p->ep_comm_s;
    return s * 1e3;
  }
  train::EstimateOptions opt;
  opt.require_fit = false;  // the runs happened; memory is checked separately
  return training_metric(tc, setup, train::estimate_training(setup, c, opt));
}

double training_metric(const TrainingCase& tc, const train::TrainSetup& setup,
                       const train::TrainEstimate& e) {
  const train::TrainConfig& c = tc.config;
  switch (tc.metric) {
    case TrainingMetric::narayanan_tflops_per_gpu: {
      // Narayanan et al. count every layer's forward once more (full recomputation) whatever the
      // run did: F = 96 B s L h^2 (1 + s/6h + V/16Lh).
      const double per_token =
          train::model_flops_per_token(setup.shape, c.seq) +
          train::recompute_flops_per_token(setup.shape, c.seq, train::Recompute::full);
      return per_token * e.tokens_per_step / e.step_time.value() / c.gpus / 1e12;
    }
    case TrainingMetric::step_time_s: return e.step_time.value();
    case TrainingMetric::tokens_per_s_per_gpu: return e.tokens_per_s_per_gpu;
    case TrainingMetric::gpu_hours: return tc.tokens / e.tokens_per_s * c.gpus / 3600.0;
    case TrainingMetric::layer_time_ms: break;
  }
  return 0;
}

}  // namespace memwall::validate
