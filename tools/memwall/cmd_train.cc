// memwall train: the training estimate for one configuration (memory per GPU, step time and its
// critical-path breakdown, throughput, MFU/HFU, time, energy and cost to train N tokens).
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"
#include "memwall/train/estimate.h"
#include "memwall/train/intervals.h"
#include "memwall/train/offload_request.h"
#include "memwall/train/request.h"
#include "memwall/uncertainty/model.h"

namespace memwall::cli {
namespace {

struct TrainOptions {
  std::string model, gpu, node, fabric, calibration;
  std::string precision = "bf16", schedule = "1f1b", fp8_recipe = "tensorwise";
  bool fp8_recipe_given = false;
  std::optional<std::string> recompute;  // not given: auto
  std::optional<int> zero;               // not given: ZeRO-1 when DP x CP > 1
  std::optional<std::string> framework;  // not given: megatron
  std::optional<int> flash_attention_version;  // not given: the framework's
  bool sequence_parallel = false, no_sequence_parallel = false;
  std::optional<double> tokens;
  double price = 0;    // 0: not given
  double pue = 0;      // 0: default
  bool explain = false;
  bool no_flash = false, no_overlap_grad = false, no_overlap_param = false, unfused = false,
       unfused_optimizer = false;
  std::string offload = "none", cpu, host_profile;
  double host_memory_gb = 0;
  std::optional<int> nvme_drives;
  bool delayed_update = false;
  train::TrainConfig config;
};

int run_train(const GlobalOptions& g, TrainOptions o) {
  const Catalog cat = Catalog::with_user_files(g.catalog_files);
  train::Request r;
  r.model = o.model;
  r.gpu = o.gpu;
  if (!o.node.empty()) r.node = o.node;
  if (!o.fabric.empty()) r.fabric = o.fabric;
  if (!o.calibration.empty()) r.calibration_file = o.calibration;
  r.config = o.config;
  train::TrainConfig& asked = r.config;
  asked.precision = parse_precision_or_throw(o.precision, "precision");
  r.recompute = o.recompute;
  r.zero = o.zero;
  r.framework = o.framework;
  r.flash_attention_version = o.flash_attention_version;
  if (o.sequence_parallel && o.no_sequence_parallel)
    throw InputError("--sequence-parallel and --no-sequence-parallel contradict each other");
  if (o.sequence_parallel) r.sequence_parallel = true;
  if (o.no_sequence_parallel) r.sequence_parallel = false;
  asked.schedule = train::parse_schedule(o.schedule, "schedule");
  asked.fp8_recipe = train::parse_fp8_recipe(o.fp8_recipe, "fp8-recipe");
  if (o.fp8_recipe_given && !is_fp8(asked.precision))
    throw InputError("--fp8-recipe", o.fp8_recipe,
                     "only with --precision fp8, not " + std::string(to_string(asked.precision)));
  asked.flash_attention = !o.no_flash;
  asked.fused_elementwise = !o.unfused;
  asked.fused_optimizer = !o.unfused_optimizer;
  asked.overlap_grad_reduce = !o.no_overlap_grad;
  asked.overlap_param_gather = !o.no_overlap_param;
  r.tokens = o.tokens;
  if (o.price != 0) r.price_per_gpu_hour = o.price;
  if (o.pue != 0) r.pue = o.pue;
  train::OffloadRequest req{r, train::parse_offload(o.offload), {}, o.nvme_drives};
  req.spec.delayed_update = o.delayed_update;
  if (o.delayed_update && !req.spec.any())
    throw InputError("--delayed-update needs an optimizer offload (--offload optimizer:cpu)");
  if (!o.cpu.empty()) req.host.cpu = o.cpu;
  if (o.host_memory_gb != 0) req.host.host_memory_gb = o.host_memory_gb;
  if (!o.host_profile.empty()) req.host.host_profile = o.host_profile;
  const train::OffloadAnswer oa = train::answer(cat, req);
  const train::Answer& a = oa.answer;
  if (g.json) {
    std::cout << train::to_json(oa).dump(2) << "\n";
    return 0;
  }
  const train::TrainEstimate& e = a.estimate;
  const train::TrainConfig& c = e.config;  // as evaluated, defaults filled in
  const train::TrainSetup& setup = a.setup;
  const ModelSpec& model = setup.model;
  const Accelerator& gpu = setup.gpu;
  const Node& node = setup.node;
  const auto& fabric = setup.fabric;
  const std::string& fabric_id = a.fabric_id;
  const std::optional<train::TrainRun>& run = a.run;

  std::cout << fmt::format(
      "{} on {} x {} ({}{}): TP {} x CP {} x PP {} x DP {}{}{}, micro-batch {}, global batch {}, "
      "seq {}, {}, recompute {}{}, ZeRO-{}\n",
      model.id, c.gpus, gpu.id, node.id, fabric ? ", " + fabric_id : std::string(), c.tp, c.cp,
      c.pp, e.config.dp, c.ep > 1 ? fmt::format(", EP {}", c.ep) : std::string(),
      c.vpp > 1 ? fmt::format(", V {}", c.vpp) : std::string(), c.micro_batch, c.global_batch,
      c.seq, to_string(c.precision), train::to_string(c.recompute),
      c.sequence_parallel ? ", sequence parallel" : "", c.zero);
  const perf::FrameworkCalibration* calibrated =
      setup.efficiency ? setup.efficiency->framework(a.framework) : nullptr;
  const Json iv = train::intervals_json(setup, e.config, e, calibrated);
  using uncertainty::range_text;
  std::cout << fmt::format("  step time            {:10.3f} s {} ({} micro-batches)\n",
                           e.step_time.value(), range_text(iv["step_time_s"], 1, 3),
                           e.micro_batches);
  std::cout << fmt::format("  tokens/s             {:10.0f} {} ({:.0f} per GPU {})\n",
                           e.tokens_per_s, range_text(iv["tokens_per_s"], 1, 0),
                           e.tokens_per_s_per_gpu, range_text(iv["tokens_per_s_per_gpu"], 1, 0));
  std::cout << fmt::format("  model TFLOP/s / GPU  {:10.1f}  MFU {:.1f} % {} (hardware {:.1f}, HFU "
                           "{:.1f} %; peak {:.1f})\n",
                           e.model_tflops_per_gpu, e.mfu * 100, range_text(iv["mfu"], 100, 1),
                           e.hardware_tflops_per_gpu, e.hfu * 100, e.peak_per_gpu.value() / 1e12);
  if (const auto prior = perf::efficiency_for(*setup.efficiency, gpu, c.precision); !prior.calibrated)
    std::cout << "  efficiency           UNCALIBRATED: " << prior.source << "\n";
  std::cout << fmt::format("  memory per GPU       {:10.1f} GiB of {:.1f} GiB{}\n",
                           e.memory.total().value() / kGiB, e.memory.capacity.value() / kGiB,
                           c.pp > 1 ? fmt::format(" (worst: pipeline stage {} of {})",
                                                  e.memory.stage, c.pp)
                                    : std::string());
  if (o.explain) {
    const auto& b = e.breakdown;
    const double t = e.step_time.value();
    auto row = [&](const char* name, Seconds s) {
      std::cout << fmt::format("    {:<22}{:10.4f} s {:6.1f} %\n", name, s.value(),
                               s.value() / t * 100);
    };
    std::cout << "  step breakdown (critical path, sums to the step time):\n";
    row("compute", b.compute);
    row("recompute", b.recompute);
    row("TP comm (exposed)", b.tp_comm);
    row("CP comm (exposed)", b.cp_comm);
    row("EP comm (exposed)", b.ep_comm);
    row("PP comm (exposed)", b.pp_comm);
    row("DP comm (exposed)", b.dp_comm);
    row("pipeline bubble", b.bubble);
    row("optimizer", b.optimizer);
    row("host overhead", b.host_overhead);
    const auto& m = e.memory;
    auto mrow = [&](const char* name, Bytes x) {
      std::cout << fmt::format("    {:<22}{:10.2f} GiB\n", name, x.value() / kGiB);
    };
    std::cout << fmt::format("  memory of the most loaded GPU (pipeline stage {}):\n", m.stage);
    mrow("weights", m.weights);
    mrow("gradients", m.gradients);
    mrow("optimizer state", m.optimizer_state);
    mrow("activations", m.activations);
    mrow("comm buffers", m.comm_buffers);
    mrow("runtime reserve", m.runtime_reserve);
  }
  if (run) {
    std::cout << fmt::format("  to train {:.3g} tokens: {:.1f} days, {:.3g} GPU-hours", run->tokens,
                             run->time.value() / 86400, run->gpu_hours);
    if (run->energy_kwh)
      std::cout << fmt::format(", {:.3g} kWh (PUE {})", *run->energy_kwh, setup.params.pue);
    else
      std::cout << ", energy unknown (TDP unknown)";
    if (run->cost) std::cout << fmt::format(", ${:.3g}", run->cost->value());
    std::cout << "\n";
  }
  if (oa.offload) {
    const train::OffloadEstimate& f = *oa.offload;
    std::cout << fmt::format(
        "  offload {}: host {:.1f} GiB per node of {:.1f} usable, NVMe {:.1f} GiB per node, "
        "{:.1f} GiB per GPU moved off\n"
        "  per iteration: PCIe {:.2f} s ({:.2f} GB down, {:.2f} GB up per GPU), CPU-Adam {:.2f} s, "
        "NVMe {:.2f} s; exposed: optimizer {:.2f} s, transfers {:.2f} s; the offload waits most "
        "on {}\n",
        train::to_string(f.spec), f.host_per_node.value() / kGiB, f.host_usable.value() / kGiB,
        f.nvme_per_node.value() / kGiB, f.gpu_saved_per_gpu.value() / kGiB, f.pcie_time.value(),
        f.pcie_to_host.value() / 1e9, f.pcie_to_gpu.value() / 1e9, f.cpu_step_time.value(),
        f.nvme_time.value(), f.optimizer_exposed.value(), f.transfer_exposed.value(), f.bound);
    for (const auto& n : f.notes) std::cout << "  note: " << n << "\n";
  }
  for (const auto& x : a.assumptions) std::cout << "  assumption: " << x << "\n";
  for (const auto& n : e.notes) std::cout << "  note: " << n << "\n";
  std::cout << uncertainty::interval_note(train::interval(setup, e.config, e, calibrated)) << "\n";
  return 0;
}

}  // namespace

void register_train(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto o = std::make_shared<TrainOptions>();
  auto* sub = app.add_subcommand(
      "train",
      std::string("Training estimate: memory per GPU, step time and its breakdown, tokens/s, "
                  "MFU/HFU, time/energy/cost to train.\n") +
          train::kConventions);
  add_global_options(*sub, g);
  auto& c = o->config;
  sub->add_option("--model", o->model, "Built-in model id or a Hugging Face config.json")
      ->required();
  sub->add_option("--gpu", o->gpu, "Accelerator id or alias (e.g. h100, a100)")->required();
  sub->add_option("--gpus", c.gpus, "Total GPUs")->required();
  sub->add_option("--tp", c.tp, "Tensor-parallel size (default 1)");
  sub->add_option("--pp", c.pp, "Pipeline-parallel size (default 1)");
  sub->add_option("--cp", c.cp, "Context-parallel size (default 1)");
  sub->add_option("--ep", c.ep, "Expert-parallel size, taken from the DP x CP ranks (default 1)");
  sub->add_option("--dp", c.dp, "Data-parallel size (default: gpus / (tp x cp x pp))");
  sub->add_option("--vpp", c.vpp, "Virtual pipeline stages per rank (interleaved 1F1B; default 1)");
  sub->add_option("--micro-batch", c.micro_batch, "Sequences per micro-batch")->required();
  sub->add_option("--global-batch", c.global_batch, "Sequences per optimizer step")->required();
  sub->add_option("--seq", c.seq, "Sequence length in tokens")->required();
  sub->add_option("--precision", o->precision, "bf16 | fp16 | fp8 (default bf16)");
  sub->add_option("--recompute", o->recompute,
                  "none | selective | full | auto (default auto: the cheapest that fits, stated)");
  sub->add_flag("--sequence-parallel", o->sequence_parallel,
                "Megatron sequence parallelism (default: on when TP > 1)");
  sub->add_flag("--no-sequence-parallel", o->no_sequence_parallel,
                "Turn off the default sequence parallelism");
  sub->add_option("--zero", o->zero,
                  "ZeRO stage 0 | 1 | 2 | 3 (3 = FSDP full shard; default 1, the distributed "
                  "optimizer, when DP x CP > 1, else 0)");
  sub->add_option("--decoder-first-pipeline-num-layers", c.first_stage_layers,
                  "Transformer layers on the first pipeline stage (default: even split, or one "
                  "fewer on the first and last stages when the layers do not divide)");
  sub->add_option("--decoder-last-pipeline-num-layers", c.last_stage_layers,
                  "Transformer layers on the last pipeline stage");
  sub->add_flag("--account-for-embedding-in-pipeline-split", c.account_for_embedding,
                "Count the embedding as one layer of the first stage when splitting");
  sub->add_flag("--account-for-loss-in-pipeline-split", c.account_for_loss,
                "Count the loss (LM head) as one layer of the last stage when splitting");
  sub->add_option("--node", o->node, "Node id (default: the catalog node of --gpu)");
  sub->add_option("--fabric", o->fabric, "Fabric id (default by GPU generation, see above)");
  sub->add_option("--tokens", o->tokens, "Tokens to train: adds time, GPU-hours, energy, cost");
  sub->add_option("--price-per-gpu-hour", o->price, "US dollars per GPU-hour, for the cost");
  sub->add_option("--pue", o->pue, "Data-centre power usage effectiveness (default 1.2)");
  sub->add_option("--calibration", o->calibration,
                  "Calibration file (JSON/YAML) overriding the achievable-ceiling parameters "
                  "(GEMM and bandwidth fractions, see docs/infer.md)")
      ->check(CLI::ExistingFile);
  sub->add_flag("--no-flash-attention", o->no_flash,
                "Unfused attention that materialises the s x s scores");
  sub->add_option("--flash-attention-version", o->flash_attention_version,
                  "1 (FA1/Triton), 2 (FA2) or 3 (FA3/cuDNN, Hopper-native; default: the "
                  "framework's, 3 for megatron/nemo)");
  sub->add_option("--framework", o->framework,
                  "Training framework: megatron (default) | nemo | fsdp | fsdp-compiled | "
                  "deepspeed | nanotron | mindspeed; sets kernels, overlaps and default sharding "
                  "(data/frameworks/training.json)");
  sub->add_flag("--unfused-elementwise", o->unfused,
                "Element-wise ops run one by one (eager PyTorch, FSDP) instead of fused kernels");
  sub->add_flag("--unfused-optimizer", o->unfused_optimizer,
                "Adam runs op by op (eager PyTorch: Composer DecoupledAdamW, torch.optim.AdamW "
                "for-each) instead of one fused kernel: 104 instead of 32 bytes per parameter");
  sub->add_flag("--dropout", c.dropout, "The model trains with dropout layers");
  sub->add_flag("--fp32-grad-accumulation", c.fp32_grad_accumulation,
                "Gradients accumulated and reduced in fp32 (Megatron main_grad)");
  sub->add_flag("--overlap-tp-comm", c.overlap_tp_comm,
                "Overlap TP collectives with GEMMs (Transformer Engine userbuffers)");
  sub->add_flag("--no-overlap-grad-reduce", o->no_overlap_grad,
                "Reduce DP gradients after the backward pass instead of during it");
  sub->add_flag("--no-overlap-param-gather", o->no_overlap_param,
                "Gather ZeRO-sharded parameters without prefetching");
  sub->add_option("--schedule", o->schedule,
                  "Pipeline schedule: 1f1b (interleaved when --vpp > 1; default) | dualpipe "
                  "(DeepSeek-V3: all-to-all and pipeline transfers overlapped, 2 parameter copies)");
  auto* fp8_recipe_opt = sub->add_option(
      "--fp8-recipe", o->fp8_recipe,
      "FP8 scaling with --precision fp8: tensorwise (default) | blockwise (DeepSeek "
      "1x128 / 128x128, fp8 dispatch) | mxfp8 (Blackwell)");
  sub->add_option("--moe-imbalance", c.moe_imbalance,
                  "Tokens of the busiest expert-parallel rank / the mean (dropless routing; "
                  "default 1 = balanced)");
  sub->add_option("--moe-node-limit", c.moe_node_limit,
                  "Node-limited routing: each token reaches experts on at most this many nodes and "
                  "crosses the network once per node (DeepSeek-V3: 4; default 0 = no limit)");
  sub->add_option("--mtp-layers", c.mtp_layers,
                  "Multi-token-prediction modules on the last stage (DeepSeek-V3: 1; default 0)");
  sub->add_flag("--overlap-ep-comm", c.overlap_ep_comm,
                "Hide the expert all-to-all behind another micro-batch's compute");
  sub->add_option("--offload", o->offload,
                  "none | optimizer:cpu | optimizer:nvme | params:cpu | params:nvme, comma-joined "
                  "(e.g. optimizer:nvme,params:nvme): DeepSpeed ZeRO-Offload / ZeRO-Infinity "
                  "(offload_optimizer.device, offload_param.device; docs/offload.md)");
  sub->add_option("--cpu", o->cpu,
                  "Host CPU for --offload: catalog id or alias, NxID for N sockets (default: the "
                  "CPU the node's datasheet names, else the offload default for the GPU; a server "
                  "CPU with the node's sockets)");
  sub->add_option("--host-memory", o->host_memory_gb,
                  "Host DRAM per node in GiB for --offload (default: the host entry's)");
  sub->add_option("--host-profile", o->host_profile,
                  "memwall probe profile: its measured STREAM triad and host-to-device copy "
                  "replace the datasheet DRAM and link bandwidth")
      ->check(CLI::ExistingFile);
  sub->add_option("--nvme-drives", o->nvme_drives,
                  "NVMe drives per node for an nvme offload (default one per two GPUs)");
  sub->add_flag("--delayed-update", o->delayed_update,
                "ZeRO-Offload's one-step delayed parameter update: the CPU step overlaps the next "
                "step's forward and backward");
  sub->add_flag("--explain", o->explain, "Print the step-time and memory breakdowns");
  sub->callback([&run, &g, o, fp8_recipe_opt] {
    o->fp8_recipe_given = fp8_recipe_opt->count() > 0;
    run = [&g, o] { return run_train(g, *o); };
  });
}

}  // namespace memwall::cli
