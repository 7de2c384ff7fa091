#include "memwall/train/request.h"

#include <memory>
#include <string>

#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"
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

Answer answer(const Catalog& catalog, const Request& r) {
  ModelSpec model = catalog.model(r.model);
  const Accelerator& gpu = catalog.accelerator(r.gpu);
  const Node& node = r.node ? catalog.node(*r.node) : default_node(catalog, gpu);
  const TrainConfig& c = r.config;
  if (c.flash_attention_version < 1 || c.flash_attention_version > 3)
    throw InputError("flash-attention-version", std::to_string(c.flash_attention_version),
                     "1, 2, 3");
  std::optional<Fabric> fabric;
  std::string fabric_id;
  if (c.gpus > node.devices || r.fabric) {
    fabric_id = r.fabric ? *r.fabric : default_fabric(gpu);
    fabric = catalog.fabric(fabric_id);
  }
  TrainParameters params;
  if (r.pue) params.pue = require_positive(*r.pue, "pue");
  std::shared_ptr<const perf::Efficiency> efficiency;
  if (r.calibration_file)
    efficiency = std::make_shared<const perf::Efficiency>(perf::load_calibration(*r.calibration_file));
  TrainSetup setup = make_setup(model, gpu, node, fabric, params, efficiency);
  TrainEstimate e = estimate_training(setup, c);
  std::optional<TrainRun> run;
  if (r.tokens) {
    run = train_run(setup, e, *r.tokens, r.price_per_gpu_hour);
  } else if (r.price_per_gpu_hour) {
    require_positive(*r.price_per_gpu_hour, "price-per-gpu-hour");
  }
  const ParameterCounts counts = count_parameters(setup.shape);
  return Answer{std::move(setup), fabric_id, c, std::move(e), run, counts};
}

namespace {

Json breakdown_json(const StepBreakdown& b) {
  return Json{{"compute_s", b.compute.value()},       {"recompute_s", b.recompute.value()},
              {"tp_comm_s", b.tp_comm.value()},       {"cp_comm_s", b.cp_comm.value()},
              {"ep_comm_s", b.ep_comm.value()},       {"pp_comm_s", b.pp_comm.value()},
              {"dp_comm_s", b.dp_comm.value()},       {"bubble_s", b.bubble.value()},
              {"optimizer_s", b.optimizer.value()},   {"host_overhead_s", b.host_overhead.value()}};
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
  j["model_flops_per_step"] = e.model_flops_per_step.value();
  j["hardware_flops_per_step"] = e.hardware_flops_per_step.value();
  j["bubble_fraction"] = e.bubble_fraction;
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
  j["intervals"] = intervals_json(a.setup, e.config, e);
  j["conventions"] = kConventions;
  j["notes"] = e.notes;
  return j;
}

}  // namespace memwall::train
