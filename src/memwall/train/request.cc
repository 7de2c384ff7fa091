#include "memwall/train/request.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <string>

#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"
#include "memwall/train/framework.h"
#include "memwall/train/intervals.h"

namespace memwall::train {

const Node& default_node(const Catalog& catalog, const Accelerator& gpu) {
  for (const auto& n : catalog.nodes())
    if (n.accelerator == gpu.id) return n;
  const auto family = gpu.id.substr(0, gpu.id.find('-', gpu.id.find('-') + 1));
  for (const auto& n : catalog.nodes())
    if (n.accelerator.rfind(family, 0) == 0) return n;
  throw InputError("node: no catalog node is built from " + gpu.id + "; give a node");
}

std::string default_fabric(const Accelerator& gpu) {
  if (gpu.arch.rfind("Ampere", 0) == 0) return "ib-hdr";
  if (gpu.arch.rfind("Blackwell", 0) == 0) return "ib-xdr";
  return "ib-ndr";
}

Recompute cheapest_fitting_recompute(const TrainSetup& setup, const TrainConfig& config) {
  TrainConfig c = config;
  for (Recompute x : {Recompute::none, Recompute::selective}) {
    c.recompute = x;
    if (memory_per_gpu(setup, c).fits()) return x;
  }
  return Recompute::full;
}

Answer answer(const Catalog& catalog, const Request& r) {
  ModelSpec model = catalog.model(r.model);
  const Accelerator& gpu = catalog.accelerator(r.gpu);
  const Node& node = r.node ? catalog.node(*r.node) : default_node(catalog, gpu);
  TrainConfig c = r.config;
  std::vector<std::string> assumptions;
  bool zero_defaulted = false, sp_defaulted = false, recompute_chosen = false;
  const Framework& fw = training_framework(r.framework.value_or("megatron"));
  assumptions.push_back(fmt::format(
      "framework {}{}: {} element-wise kernels, {} optimizer, FlashAttention {}{}{}{}; efficiency: "
      "{}",
      fw.id,
      r.framework ? "" : " (default; --framework megatron|nemo|fsdp|fsdp-compiled|deepspeed|"
                         "nanotron|mindspeed)",
      fw.fused_elementwise ? "fused" : "eager (unfused)",
      fw.fused_optimizer ? "fused Adam" : "eager (op-by-op) Adam",
      r.flash_attention_version.value_or(fw.flash_attention_version),
      fw.overlap_tp_comm ? ", TP communication overlapped" : "",
      fw.zero3_collectives_per_layer > 1
          ? fmt::format(", ZeRO-3 fetches {} sub-modules per layer", fw.zero3_collectives_per_layer)
          : std::string(),
      fw.bf16_grad_accumulation_pass && c.precision == Precision::bf16
          ? ", bf16 gradients added into fp32 buffers by a pass after every micro-batch "
            "(BF16_Optimizer)"
          : "",
      fw.efficiency));
  c.fused_elementwise = c.fused_elementwise && fw.fused_elementwise;
  c.fused_optimizer = c.fused_optimizer && fw.fused_optimizer;
  c.fp32_grad_accumulation_pass = c.fp32_grad_accumulation_pass ||
                                  (fw.bf16_grad_accumulation_pass && c.precision == Precision::bf16);
  c.flash_attention_version = r.flash_attention_version.value_or(fw.flash_attention_version);
  c.overlap_grad_reduce = c.overlap_grad_reduce && fw.overlap_grad_reduce;
  c.overlap_param_gather = c.overlap_param_gather && fw.overlap_param_gather;
  c.overlap_tp_comm = c.overlap_tp_comm || fw.overlap_tp_comm;
  c.zero3_collectives_per_layer = fw.zero3_collectives_per_layer;
  const long long dp_cp = 1LL * c.data_parallel() * c.cp;
  if (r.zero) {
    c.zero = *r.zero;
  } else {
    zero_defaulted = true;
    c.zero = dp_cp > 1 ? (fw.fsdp ? 3 : fw.distributed_optimizer ? 1 : 0) : 0;
    if (c.zero == 1)
      assumptions.push_back(fmt::format(
          "ZeRO-1: the optimizer state is sharded over the DP x CP = {} ranks ({} distributed "
          "optimizer, its recipes' default); --zero 0 turns it off",
          dp_cp, fw.id));
    if (c.zero == 3)
      assumptions.push_back(fmt::format(
          "ZeRO-3: weights, gradients and optimizer state sharded over the DP x CP = {} ranks "
          "({} full shard); --zero sets another stage",
          dp_cp, fw.id));
  }
  if (r.sequence_parallel) {
    c.sequence_parallel = *r.sequence_parallel;
  } else {
    sp_defaulted = true;
    c.sequence_parallel = c.tp > 1 && fw.sequence_parallel_with_tp;
    if (c.sequence_parallel)
      assumptions.push_back(fmt::format(
          "sequence parallelism over the TP = {} ranks ({} default with TP > 1); "
          "--no-sequence-parallel turns it off",
          c.tp, fw.id));
  }
  const std::string recompute = r.recompute.value_or("auto");
  if (recompute != "auto") c.recompute = parse_recompute(recompute, "recompute");
  if (c.flash_attention_version < 1 || c.flash_attention_version > 3)
    throw InputError("flash-attention-version", std::to_string(c.flash_attention_version),
                     "1, 2, 3");
  std::optional<Fabric> fabric;
  std::string fabric_id;
  if (c.gpus > node.devices || r.fabric) {
    fabric_id = r.fabric ? *r.fabric : default_fabric(gpu);
    fabric = catalog.fabric(fabric_id);
  }
  if (!r.node)
    assumptions.push_back(fmt::format("node {}: the catalog node built from {} (--node to change)",
                                      node.id, gpu.id));
  if (fabric && !r.fabric)
    assumptions.push_back(fmt::format(
        "fabric {}: the InfiniBand generation shipped with {} nodes (--fabric to change)",
        fabric_id, gpu.arch.empty() ? gpu.id : gpu.arch));
  std::shared_ptr<const perf::Efficiency> efficiency = r.efficiency;
  if (!efficiency && r.calibration_file)
    efficiency = std::make_shared<const perf::Efficiency>(perf::load_calibration(*r.calibration_file));
  TrainParameters params = framework_parameters({}, efficiency.get(), fw.id);
  if (efficiency && efficiency->framework(fw.id))
    assumptions.push_back(fmt::format(
        "calibrated {}: compute share {:.3g}, overlap efficiency {:.3g}, host time per step {:.3g} "
        "ms (the calibration file's frameworks.{})",
        fw.id, params.gemm_in_situ_fraction, params.overlap_efficiency,
        params.step_overhead.value() * 1e3, fw.id));
  if (const perf::FrameworkCalibration* fc = efficiency ? efficiency->framework(fw.id) : nullptr;
      fc && !fc->fitted_accelerators.empty() &&
      std::find(fc->fitted_accelerators.begin(), fc->fitted_accelerators.end(), gpu.id) ==
          fc->fitted_accelerators.end())
    assumptions.push_back(
        fmt::format("the {} calibration was fitted on {}, not {}: a compute share measured on one "
                    "accelerator need not hold on another (measure this one to calibrate it)",
                    fw.id, fmt::join(fc->fitted_accelerators, ", "), gpu.id));
  if (r.pue) params.pue = require_positive(*r.pue, "pue");
  TrainSetup setup = make_setup(model, gpu, node, fabric, params, efficiency);
  if (recompute == "auto") {
    check_configuration(setup, c);
    recompute_chosen = true;
    c.recompute = cheapest_fitting_recompute(setup, c);
    assumptions.push_back(fmt::format(
        "recompute {}: the cheapest activation recomputation whose memory fits{} (--recompute "
        "auto, the default; give none, selective or full to fix it)",
        to_string(c.recompute),
        c.recompute == Recompute::none ? "" : " (less recomputation does not fit)"));
  }
  TrainEstimate e = estimate_training(setup, c, EstimateOptions{r.require_fit});
  if (setup.model.is_moe())
    assumptions.push_back(fmt::format(
        "dropless MoE routing: the busiest expert-parallel rank gets {:g}x the mean tokens "
        "(--moe-imbalance){}",
        c.moe_imbalance,
        c.moe_node_limit > 0
            ? fmt::format("; tokens reach at most {} nodes each (--moe-node-limit)", c.moe_node_limit)
            : "; plain all-to-all of every top-k copy (no node limit)"));
  if (c.pp > 1)
    assumptions.push_back(fmt::format("pipeline layers per stage {}: {}{}",
                                      fmt::join(e.stage_layers, "/"), e.pipeline_split,
                                      c.pp > 1 ? fmt::format("; stage {} is the slowest",
                                                             e.slowest_stage)
                                               : std::string()));
  std::optional<TrainRun> run;
  if (r.tokens) {
    // The bound plan train's --tokens has (plan/train_search.cc parse_token_count).
    if (!(*r.tokens > 0 && *r.tokens <= 1e16))
      throw InputError("tokens", fmt::format("{:g}", *r.tokens), "a positive count up to 1e16");
    run = train_run(setup, e, *r.tokens, r.price_per_gpu_hour);
  } else if (r.price_per_gpu_hour) {
    require_positive(*r.price_per_gpu_hour, "price-per-gpu-hour");
  }
  const ParameterCounts counts = count_parameters(setup.shape);
  return Answer{std::move(setup), fabric_id,      c,
                std::move(e),     run,            counts,
                std::move(assumptions), fw.id,  !r.framework.has_value(),
                zero_defaulted,   sp_defaulted,   recompute_chosen};
}

namespace {

Json breakdown_json(const StepBreakdown& b) {
  return Json{{"compute_s", b.compute.value()},       {"recompute_s", b.recompute.value()},
              {"tp_comm_s", b.tp_comm.value()},       {"cp_comm_s", b.cp_comm.value()},
              {"ep_comm_s", b.ep_comm.value()},       {"pp_comm_s", b.pp_comm.value()},
              {"dp_comm_s", b.dp_comm.value()},       {"bubble_s", b.bubble.value()},
              {"optimizer_s", b.optimizer.value()},   {"host_overhead_s", b.host_overhead.value()}};
}

Json per_stage(const MemoryBreakdown& m) {
  Json out = Json::array();
  for (Bytes b : m.per_stage) out.push_back(b.value());
  return out;
}

Json memory_json(const MemoryBreakdown& m) {
  return Json{{"weights_bytes", m.weights.value()},
              {"gradients_bytes", m.gradients.value()},
              {"optimizer_state_bytes", m.optimizer_state.value()},
              {"activations_bytes", m.activations.value()},
              {"comm_buffers_bytes", m.comm_buffers.value()},
              {"runtime_reserve_bytes", m.runtime_reserve.value()},
              {"total_bytes", m.total().value()},
              {"capacity_bytes", m.capacity.value()},
              {"most_loaded_stage", m.stage},
              {"per_stage_total_bytes", per_stage(m)},
              {"local_parameters", m.local_parameters}};
}

}  // namespace

Json to_json(const Answer& a) {
  const TrainConfig& c = a.config;
  const TrainEstimate& e = a.estimate;
  Json j;
  j["model"] = a.setup.model.id;
  j["gpu"] = a.setup.gpu.id;
  j["node"] = a.setup.node.id;
  j["fabric"] = a.setup.fabric ? Json(a.fabric_id) : Json(nullptr);
  j["config"] = Json{{"gpus", c.gpus},
                     {"tp", c.tp},
                     {"pp", c.pp},
                     {"cp", c.cp},
                     {"ep", c.ep},
                     {"dp", e.config.dp},
                     {"vpp", c.vpp},
                     {"schedule", std::string(to_string(c.schedule))},
                     {"fp8_recipe", std::string(to_string(c.fp8_recipe))},
                     {"moe_imbalance", c.moe_imbalance},
                     {"moe_node_limit", c.moe_node_limit},
                     {"mtp_layers", c.mtp_layers},
                     {"overlap_ep_comm", c.overlap_ep_comm},
                     {"first_stage_layers", c.first_stage_layers},
                     {"last_stage_layers", c.last_stage_layers},
                     {"account_for_embedding_in_pipeline_split", c.account_for_embedding},
                     {"account_for_loss_in_pipeline_split", c.account_for_loss},
                     {"micro_batch", c.micro_batch},
                     {"global_batch", c.global_batch},
                     {"micro_batches", e.micro_batches},
                     {"seq", c.seq},
                     {"precision", std::string(to_string(c.precision))},
                     {"recompute", std::string(to_string(c.recompute))},
                     {"sequence_parallel", c.sequence_parallel},
                     {"zero", c.zero},
                     {"flash_attention", c.flash_attention},
                     {"flash_attention_version", c.flash_attention_version},
                     {"fused_elementwise", c.fused_elementwise},
                     {"fused_optimizer", c.fused_optimizer},
                     {"fp32_grad_accumulation_pass", c.fp32_grad_accumulation_pass},
                     {"overlap_grad_reduce", c.overlap_grad_reduce},
                     {"overlap_param_gather", c.overlap_param_gather},
                     {"overlap_tp_comm", c.overlap_tp_comm}};
  j["parameters_total"] = a.counts.total;
  j["parameters_active"] = a.counts.active;
  j["step_time_s"] = e.step_time.value();
  j["tokens_per_s"] = e.tokens_per_s;
  j["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  j["model_tflops_per_gpu"] = e.model_tflops_per_gpu;
  j["hardware_tflops_per_gpu"] = e.hardware_tflops_per_gpu;
  j["peak_tflops_per_gpu"] = e.peak_per_gpu.value() / 1e12;
  j["mfu"] = e.mfu;
  j["hfu"] = e.hfu;
  {
    const perf::EfficiencyPrior prior =
        perf::efficiency_for(*a.setup.efficiency, a.setup.gpu, c.precision);
    j["efficiency"] = prior.calibrated ? "calibrated" : "uncalibrated";
    j["efficiency_source"] = prior.source;
  }
  j["model_flops_per_step"] = e.model_flops_per_step.value();
  j["hardware_flops_per_step"] = e.hardware_flops_per_step.value();
  j["bubble_fraction"] = e.bubble_fraction;
  j["pipeline"] = Json{{"layers_per_stage", e.stage_layers},
                       {"slowest_stage", e.slowest_stage},
                       {"most_loaded_stage", e.memory.stage},
                       {"split", e.pipeline_split}};
  j["framework"] = a.framework;
  j["defaults_applied"] = Json{{"framework", a.framework_defaulted},
                               {"zero", a.zero_defaulted},
                               {"sequence_parallel", a.sequence_parallel_defaulted},
                               {"recompute_auto", a.recompute_chosen}};
  j["assumptions"] = a.assumptions;
  j["memory_per_gpu_bytes"] = e.memory.total().value();
  j["memory_breakdown"] = memory_json(e.memory);
  j["breakdown"] = breakdown_json(e.breakdown);
  if (a.run) {
    const TrainRun& run = *a.run;
    Json t{{"tokens", run.tokens},
           {"steps", run.steps},
           {"time_s", run.time.value()},
           {"days", run.time.value() / 86400},
           {"gpu_hours", run.gpu_hours},
           {"average_power_per_gpu_w", run.average_power_per_gpu_w},
           {"pue", a.setup.params.pue}};
    t["energy_kwh"] = run.energy_kwh ? Json(*run.energy_kwh) : Json("unknown");
    t["cost_usd"] = run.cost ? Json(run.cost->value()) : Json(nullptr);
    j["train"] = t;
  }
  j["intervals"] = intervals_json(
      a.setup, e.config, e, a.setup.efficiency ? a.setup.efficiency->framework(a.framework) : nullptr);
  j["conventions"] = kConventions;
  j["notes"] = e.notes;
  return j;
}

}  // namespace memwall::train
