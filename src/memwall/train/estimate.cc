#include "memwall/train/estimate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/train/counts.h"
#include "memwall/train/layer_cost.h"
#include "memwall/train/pipeline_split.h"

namespace memwall::train {
namespace {

void require_at_least(long long v, long long lo, const char* field) {
  if (v < lo)
    throw InputError(field, std::to_string(v), fmt::format("an integer >= {}", lo));
}



// Communication `comm` overlapped with `window` of compute: the part that stays exposed.
double exposed(double comm, double window, double efficiency) {
  return std::max(comm * (1.0 - efficiency), comm - efficiency * window);
}

}  // namespace

void check_configuration(const TrainSetup& setup, const TrainConfig& c) {
  require_at_least(c.gpus, 1, "gpus");
  require_at_least(c.tp, 1, "tp");
  require_at_least(c.pp, 1, "pp");
  require_at_least(c.cp, 1, "cp");
  require_at_least(c.ep, 1, "ep");
  require_at_least(c.vpp, 1, "vpp");
  require_at_least(c.dp, 0, "dp");
  require_at_least(c.micro_batch, 1, "micro-batch");
  require_at_least(c.global_batch, 1, "global-batch");
  require_at_least(c.seq, 1, "seq");
  if (c.zero < 0 || c.zero > 3) throw InputError("zero", std::to_string(c.zero), "0, 1, 2, 3");
  // Beyond any real cluster or batch: 16M GPUs, 64M-token sequences, 2^40 sequences.
  constexpr long long kHuge = 1LL << 40;
  if (c.gpus > (1 << 24))
    throw InputError("gpus", std::to_string(c.gpus), "1 to 16777216 (beyond any real cluster)");
  if (c.seq > (1LL << 26)) throw InputError("seq", std::to_string(c.seq), "1 to 67108864 tokens");
  if (c.global_batch > kHuge)
    throw InputError("global-batch", std::to_string(c.global_batch), "1 to 2^40 sequences");
  if (c.micro_batch > kHuge)
    throw InputError("micro-batch", std::to_string(c.micro_batch), "1 to 2^40 sequences");
  if (c.precision != Precision::bf16 && c.precision != Precision::fp16 &&
      c.precision != Precision::fp8_e4m3 && c.precision != Precision::fp8_e5m2)
    throw InputError("precision", std::string(to_string(c.precision)), "bf16, fp16, fp8");
  setup.ceilings(c.precision);  // InfeasibleError when the accelerator has no such matmul path
  const ModelSpec& m = setup.model;
  const long long mp = 1LL * c.tp * c.cp * c.pp;
  const int dp = c.data_parallel();
  if (c.dp == 0 && c.gpus % mp != 0)
    throw InfeasibleError(fmt::format(
        "TP x CP x PP = {} x {} x {} = {} does not divide the {} GPUs (DP would be {} / {})", c.tp,
        c.cp, c.pp, mp, c.gpus, c.gpus, mp));
  if (dp < 1 || mp * dp != c.gpus)
    throw InfeasibleError(fmt::format(
        "TP x CP x PP x DP = {} x {} x {} x {} = {} does not equal the {} GPUs", c.tp, c.cp, c.pp,
        c.dp > 0 ? c.dp : c.gpus / std::max(1LL, mp), mp * std::max(dp, 1), c.gpus));
  if (m.heads % c.tp != 0)
    throw InfeasibleError(fmt::format("{} attention heads are not divisible by TP = {}", m.heads,
                                      c.tp));
  const int kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  if (kv % c.tp != 0 && c.tp % kv != 0)
    throw InfeasibleError(fmt::format(
        "{} KV heads neither divide nor are divisible by TP = {}", kv, c.tp));
  if (!(c.moe_imbalance >= 1.0 && c.moe_imbalance <= 64.0))
    throw InputError("moe-imbalance", fmt::format("{}", c.moe_imbalance),
                     "a ratio from 1 (balanced) to 64");
  if (c.moe_node_limit < 0)
    throw InputError("moe-node-limit", std::to_string(c.moe_node_limit), "0 (none) or more");
  if (c.mtp_layers < 0 || c.mtp_layers > 8)
    throw InputError("mtp-layers", std::to_string(c.mtp_layers), "0 to 8");
  if (c.mtp_layers > 0 && !m.is_moe())
    throw InputError("mtp-layers: multi-token-prediction modules are modelled as MoE layers; " +
                     m.id + " is dense");
  if (c.schedule == Schedule::dualpipe && (c.pp < 2 || c.pp % 2 != 0 || c.vpp != 1))
    throw InfeasibleError(fmt::format(
        "DualPipe needs an even PP >= 2 without virtual stages (PP = {}, V = {})", c.pp, c.vpp));
  if (c.precision != Precision::bf16 && c.precision != Precision::fp16 &&
      c.fp8_recipe == Fp8Recipe::mxfp8 && setup.gpu.arch.rfind("Blackwell", 0) != 0)
    throw InfeasibleError(setup.gpu.id + " (" + setup.gpu.arch +
                          ") has no MXFP8 tensor cores; MXFP8 needs Blackwell");
  if (c.vpp > 1 && c.pp == 1)
    throw InfeasibleError(fmt::format("V = {} virtual stages need PP > 1", c.vpp));
  split_layers(setup.shape.layers, setup.shape.moe_layers, c);  // InfeasibleError when none
  if (c.global_batch % (c.micro_batch * dp) != 0)
    throw InfeasibleError(fmt::format(
        "global batch {} is not divisible by micro-batch x DP = {} x {} = {}", c.global_batch,
        c.micro_batch, dp, c.micro_batch * dp));
  if (c.cp > 1 && c.seq % (2 * c.cp) != 0)
    throw InfeasibleError(fmt::format(
        "sequence {} is not divisible by 2 x CP = {} (load-balanced ring attention)", c.seq,
        2 * c.cp));
  if (c.ep > 1) {
    if (!m.is_moe())
      throw InfeasibleError(fmt::format("EP = {} needs a mixture-of-experts model; {} is dense",
                                        c.ep, m.id));
    if (m.moe.experts % c.ep != 0)
      throw InfeasibleError(fmt::format("{} experts are not divisible by EP = {}", m.moe.experts,
                                        c.ep));
    if ((dp * c.cp) % c.ep != 0)
      throw InfeasibleError(fmt::format("EP = {} must divide DP x CP = {} x {} = {}", c.ep, dp,
                                        c.cp, dp * c.cp));
  }
  if (c.gpus > setup.node.devices && !setup.fabric)
    throw InputError(fmt::format("{} GPUs span {} nodes of {} but no fabric was given", c.gpus,
                                 (c.gpus + setup.node.devices - 1) / setup.node.devices,
                                 setup.node.devices));
}

TrainEstimate estimate_training(const TrainSetup& setup, const TrainConfig& config,
                                const EstimateOptions& options) {
  check_configuration(setup, config);
  auto collective = [&](const comm::Cluster& cl_, comm::Collective op, double bytes,
                        comm::Group g) { return setup.collectives->seconds(cl_, op, bytes, g); };
  TrainConfig c = config;
  c.dp = c.data_parallel();
  const LayerShape& s = setup.shape;
  const TrainParameters& prm = setup.params;
  const DeviceRates rates =
      device_rates(setup.ceilings(c.precision), prm.kernel_overhead.value(),
                   prm.gemm_in_situ_fraction);
  const comm::Cluster cluster = cluster_for(setup, c);

  TrainEstimate e;
  e.config = c;
  e.micro_batches = c.micro_batches();
  const double m = double(e.micro_batches);
  const double v = c.vpp;
  const PipelineSplit split = split_layers(s.layers, s.moe_layers, c);
  e.memory = memory_per_gpu(setup, c, split);
  if (options.require_fit && !e.memory.fits())
    throw InfeasibleError(fmt::format(
        "needs {:.1f} GiB per GPU on pipeline stage {} of {} (weights {:.1f}, gradients {:.1f}, "
        "optimizer {:.1f}, activations {:.1f}, buffers {:.1f}, reserve {:.1f}) but {} has {:.1f} "
        "GiB",
        e.memory.total().value() / kGiB, e.memory.stage, c.pp, e.memory.weights.value() / kGiB,
        e.memory.gradients.value() / kGiB, e.memory.optimizer_state.value() / kGiB,
        e.memory.activations.value() / kGiB, e.memory.comm_buffers.value() / kGiB,
        e.memory.runtime_reserve.value() / kGiB, setup.gpu.id, e.memory.capacity.value() / kGiB));

  // --- One layer of each kind and the model ends, one micro-batch.
  const LayerCost dense_layer = s.moe_layers < s.layers
                                    ? layer_cost(setup, c, rates, cluster, false)
                                    : LayerCost{};
  const LayerCost moe_layer =
      s.moe_layers > 0 ? layer_cost(setup, c, rates, cluster, true) : LayerCost{};
  const EdgeCost edges = edge_cost(setup, c, rates, cluster);

  const double eff = prm.overlap_efficiency;
  auto tp_exposed = [&](const PassCost& pc) {
    return c.overlap_tp_comm ? exposed(pc.tp_comm_s, pc.gemm_s, eff) : pc.tp_comm_s;
  };
  auto cp_exposed = [&](const PassCost& pc) {
    return c.overlap_cp_comm ? exposed(pc.cp_comm_s, pc.attention_s, eff) : pc.cp_comm_s;
  };
  struct StageTime {
    double compute = 0, recompute = 0, tp = 0, cp = 0, ep = 0;
    double forward_compute = 0, backward_compute = 0;  // kernels, incl. recompute in backward
    double total() const { return compute + recompute + tp + cp + ep; }
  };
  // DeepSpeed BF16_Optimizer: a pass over the stage's parameters after each micro-batch backward.
  const double accumulation_pass_s =
      c.fp32_grad_accumulation_pass
          ? memory_seconds(rates, prm.grad_accumulation_pass_bytes_per_param *
                                      e.memory.local_parameters)
          : 0.0;
  const bool dualpipe = c.schedule == Schedule::dualpipe;
  const bool overlap_ep = c.overlap_ep_comm || dualpipe;
  // One stage, one micro-batch: its layers plus the embedding (first) or head (last).
  auto stage_time = [&](const StageLayers& sl, bool first, bool last) {
    PassCost f = dense_layer.forward.scaled(sl.dense), b = dense_layer.backward.scaled(sl.dense);
    PassCost r = dense_layer.recompute.scaled(sl.dense);
    f += moe_layer.forward.scaled(sl.moe);
    b += moe_layer.backward.scaled(sl.moe);
    r += moe_layer.recompute.scaled(sl.moe);
    if (first) {
      f += edges.embedding_forward;
      b += edges.embedding_backward;
    }
    if (last) {
      // MTP modules: one more MoE layer and LM-head pass each (DeepSeek-V3 §2.2).
      const double heads = 1.0 + c.mtp_layers;
      f += edges.head_forward.scaled(heads);
      b += edges.head_backward.scaled(heads);
      f += moe_layer.forward.scaled(c.mtp_layers);
      b += moe_layer.backward.scaled(c.mtp_layers);
      r += moe_layer.recompute.scaled(c.mtp_layers);
    }
    StageTime st;
    st.compute = f.compute_s + b.compute_s + accumulation_pass_s;
    st.recompute = r.compute_s;
    st.tp = tp_exposed(f) + tp_exposed(b) + tp_exposed(r);
    st.cp = cp_exposed(f) + cp_exposed(b) + cp_exposed(r);
    st.ep = f.ep_comm_s + b.ep_comm_s + r.ep_comm_s;
    // DualPipe / overlapped dispatch: another micro-batch's compute runs under the all-to-all.
    if (overlap_ep) st.ep = exposed(st.ep, st.compute + st.recompute, eff);
    st.forward_compute = f.compute_s;
    st.backward_compute = b.compute_s + r.compute_s;
    return st;
  };
  // The slowest stage sets the steady state; the others fill and drain the pipeline. Under
  // DualPipe rank s runs stage s for half of the micro-batches and stage p - 1 - s for the other
  // half (DeepSeek-V3 §3.2.1): its time per micro-batch is the mean of the two.
  std::vector<StageTime> times;
  times.reserve(static_cast<size_t>(c.pp));
  for (int st = 0; st < c.pp; ++st)
    times.push_back(stage_time(split.stages[static_cast<size_t>(st)], st == 0, st == c.pp - 1));
  StageTime stage;
  double stages_sum = 0;
  e.slowest_stage = 0;
  for (int st = 0; st < c.pp; ++st) {
    StageTime t = times[static_cast<size_t>(st)];
    if (dualpipe) {
      const StageTime& o = times[static_cast<size_t>(c.pp - 1 - st)];
      t.compute = 0.5 * (t.compute + o.compute);
      t.recompute = 0.5 * (t.recompute + o.recompute);
      t.tp = 0.5 * (t.tp + o.tp);
      t.cp = 0.5 * (t.cp + o.cp);
      t.ep = 0.5 * (t.ep + o.ep);
      t.forward_compute = 0.5 * (t.forward_compute + o.forward_compute);
      t.backward_compute = 0.5 * (t.backward_compute + o.backward_compute);
    }
    stages_sum += t.total();
    if (st == 0 || t.total() > stage.total()) {
      stage = t;
      e.slowest_stage = st;
    }
  }
  const double per_microbatch = stage.total();
  e.stage_layers.reserve(split.stages.size());
  for (const StageLayers& sl : split.stages) e.stage_layers.push_back(sl.layers);
  e.pipeline_split = split.rule;

  // --- Pipeline: 1F1B bubble (p-1) x (t_f + t_b); interleaved (p-1)/v (Narayanan et al. 2021
  // §2.2.1-2.2.2); with unequal stages the fill and drain pass through every stage but the
  // slowest once: (sum of stage times - slowest) / v. Activations cross each stage boundary forward and their gradients backward,
  // v times per micro-batch with interleaving, split over TP (scatter/gather optimisation §4.1).
  StepBreakdown& bd = e.breakdown;
  bd.compute = Seconds(m * stage.compute);
  bd.recompute = Seconds(m * stage.recompute);
  bd.tp_comm = Seconds(m * stage.tp);
  bd.cp_comm = Seconds(m * stage.cp);
  bd.ep_comm = Seconds(m * stage.ep);
  bd.bubble = Seconds((stages_sum - per_microbatch) / v);
  if (dualpipe) {
    // DeepSeek-V3 Table 2: (PP/2 - 1)(F&B + B - 3W), with F&B ~ F + B (one forward and one
    // backward chunk overlapped) and W, the weight-gradient part, ~ half of B: (PP/2 - 1)(F + B/2).
    bd.bubble = Seconds((c.pp / 2.0 - 1.0) * (stage.forward_compute + 0.5 * stage.backward_compute +
                                             stage.tp + stage.cp + stage.ep));
  }
  const double tokens_local = double(c.micro_batch) * double(c.seq) / c.cp;
  if (c.pp > 1 && !c.overlap_p2p && !dualpipe) {
    const double p2p_bytes = 2 * tokens_local * s.hidden / c.tp;
    const double hop = collective(cluster, comm::Collective::send_recv, p2p_bytes,
                                  comm::Group{2, c.tp * c.cp * c.dp, 0});
    bd.pp_comm = Seconds(m * 2 * v * hop);
  }

  // --- Data parallel (Rajbhandari et al. 2020 §7: ZeRO-1/2 move 2 Psi like an all-reduce, ZeRO-3
  // 3 Psi). Dense parameters reduce over DP x CP; routed experts over the expert-DP ranks.
  const StateBytes sb = state_bytes(c);
  const StageLayers& heavy = split.stages[static_cast<size_t>(e.memory.stage)];
  const double stage_layers = heavy.layers;
  const double stage_experts = heavy.moe * s.experts * s.expert_params / (double(c.ep) * c.tp);
  const double stage_dense = std::max(0.0, e.memory.local_parameters - stage_experts);
  const comm::Group dp_group{c.dp * c.cp, c.tp, 0};
  const comm::Group edp_group{c.dp * c.cp / c.ep, c.tp * c.ep, 0};
  // The stage's parameters move as `messages` equal collectives (gradient buckets, FSDP units),
  // so the network model sees the real message size and pays its latency per message.
  auto both = [&](comm::Collective op, double bytes_per_param, double messages) {
    messages = std::max(1.0, std::ceil(messages));
    return messages *
           (collective(cluster, op, stage_dense * bytes_per_param / messages, dp_group) +
            collective(cluster, op, stage_experts * bytes_per_param / messages, edp_group));
  };
  double dp_exposed = 0;
  if (c.zero <= 2) {
    // Megatron DDP buckets of max(40M, 1M x dp) parameters.
    const double bucket_share =
        std::min(1.0, std::max(prm.grad_bucket_params, 1e6 * c.dp) /
                          std::max(1.0, e.memory.local_parameters));
    const double grad = both(c.zero == 0 ? comm::Collective::all_reduce
                                         : comm::Collective::reduce_scatter,
                             sb.gradients, 1.0 / bucket_share);
    const double gather =
        c.zero == 0 ? 0.0 : both(comm::Collective::all_gather, 2.0, 1.0 / bucket_share);
    // Buckets reduce while the last micro-batch's backward runs; the last bucket stays exposed.
    dp_exposed += c.overlap_grad_reduce
                      ? std::max(grad * bucket_share, grad - eff * stage.backward_compute)
                      : grad;
    // Updated parameters are gathered while the next step's first forward runs (ZeRO-1/2).
    dp_exposed += c.overlap_param_gather
                      ? std::max(gather * bucket_share, gather - eff * stage.forward_compute)
                      : gather;
  } else {
    // ZeRO-3 / FSDP: every micro-batch gathers the weights for forward and again for backward
    // and reduce-scatters the gradients; prefetching hides them behind the previous layer.
    // One collective per layer (the FSDP wrapping unit / DeepSpeed per-layer fetch).
    const double units = stage_layers * std::max(1, c.zero3_collectives_per_layer);
    const double slow = 1.0 / std::clamp(c.zero3_bandwidth_fraction, 1e-3, 1.0);
    const double gather = slow * both(comm::Collective::all_gather, sb.weights, units);
    const double reduce = slow * both(comm::Collective::reduce_scatter, sb.gradients, units);
    const double first_layer = 1.0 / std::max(1.0, stage_layers);
    double per_mb = 0;
    if (c.overlap_param_gather) {
      per_mb += std::max(gather * first_layer, gather - eff * stage.forward_compute);
      per_mb += std::max((gather + reduce) * first_layer,
                         gather + reduce - eff * stage.backward_compute);
    } else {
      per_mb = 2 * gather + reduce;
    }
    dp_exposed = m * per_mb;
  }
  bd.dp_comm = Seconds(dp_exposed);

  // --- Optimizer: memory-bound Adam over this GPU's shard of the parameters.
  const double opt_shard = c.zero >= 1 ? 1.0 / (double(c.dp) * c.cp) : 1.0;
  const double optimizer_bytes = c.fused_optimizer ? prm.optimizer_bytes_per_param
                                                   : prm.unfused_optimizer_bytes_per_param;
  bd.optimizer =
      Seconds(memory_seconds(rates, optimizer_bytes * e.memory.local_parameters * opt_shard));
  bd.host_overhead = prm.step_overhead;

  e.step_time = bd.total();
  const double step = e.step_time.value();
  e.tokens_per_step = double(c.global_batch) * double(c.seq);
  e.tokens_per_s = e.tokens_per_step / step;
  e.tokens_per_s_per_gpu = e.tokens_per_s / c.gpus;
  e.model_flops_per_step = Flops(model_flops_per_token(s, c.seq) * e.tokens_per_step);
  e.hardware_flops_per_step =
      e.model_flops_per_step +
      Flops(recompute_flops_per_token(s, c.seq, c.recompute) * e.tokens_per_step);
  e.peak_per_gpu = setup.ceilings(c.precision).matmul_peak;
  e.model_tflops_per_gpu = e.model_flops_per_step.value() / step / c.gpus / 1e12;
  e.hardware_tflops_per_gpu = e.hardware_flops_per_step.value() / step / c.gpus / 1e12;
  e.mfu = e.model_tflops_per_gpu * 1e12 / e.peak_per_gpu.value();
  e.hfu = e.hardware_tflops_per_gpu * 1e12 / e.peak_per_gpu.value();
  e.bubble_fraction = bd.bubble.value() / step;
  e.busy_fraction = (bd.compute + bd.recompute + bd.optimizer).value() / step;
  if (!c.flash_attention)
    // string_view: GCC 12 -O3 reports a false -Warray-bounds on push_back of a literal.
    e.notes.emplace_back(
        std::string_view("attention without a fused kernel: the s x s scores are materialised"));
  return e;
}

TrainRun train_run(const TrainSetup& setup, const TrainEstimate& e, double tokens,
                   std::optional<double> price_per_gpu_hour) {
  TrainRun r;
  r.tokens = require_positive(tokens, "tokens");
  r.steps = tokens / e.tokens_per_step;
  r.time = Seconds(r.steps * e.step_time.value());
  r.gpu_hours = r.time.value() * e.config.gpus / 3600.0;
  if (setup.gpu.tdp) {
    // Average board power: TDP while computing, a waiting fraction of it during exposed
    // communication and bubbles; times the data centre's PUE.
    const double busy = e.busy_fraction;
    r.average_power_per_gpu_w =
        setup.gpu.tdp->value() * (busy + setup.params.waiting_power_fraction * (1.0 - busy));
    r.energy_kwh = r.average_power_per_gpu_w * e.config.gpus * r.time.value() *
                   setup.params.pue / 3.6e6;
  }
  if (price_per_gpu_hour)
    r.cost = Dollars(require_positive(*price_per_gpu_hour, "price-per-gpu-hour") * r.gpu_hours);
  return r;
}

}  // namespace memwall::train
