// memwall infer: latency, throughput, utilisation and memory of a model on a deployment, from the
// operator-level roofline with achievable ceilings (src/memwall/infer). Parses, calls, prints.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/intervals.h"
#include "memwall/infer/request.h"
#include "memwall/offload/request.h"
#include "memwall/uncertainty/model.h"

namespace memwall::cli {
namespace {

struct InferOptions {
  infer::DeploymentOptions d;
  std::string batch = "1";
  int64_t input = 0, output = 0;
  std::string weight_precision, activation_precision, kv_precision, fp8_recipe, node, fabric,
      calibration;
  bool explain = false;
  std::string offload = "none", cpu, host_profile;
  double host_memory_gb = 0;
};

constexpr const char* kDefinitions =
    "Definitions: TTFT = arrival to first output token (the batch's prefill pass); TPOT = mean\n"
    "time between output tokens after the first (excludes TTFT); end-to-end = TTFT + (output - 1)\n"
    "x TPOT; throughput = generated tokens per second of the whole deployment (dp replicas), also\n"
    "per device; MFU = model FLOP/s per device / dense peak of the matmul precision, model FLOPs =\n"
    "2 x active parameters per token + attention over the full sequence (Narayanan et al. 2021\n"
    "eq. 3, forward only, as train); MBU = bytes\n"
    "moved per second per device / datasheet memory bandwidth (decode phase). --batch N: a static\n"
    "batch, all requests arrive together, are prefilled in one pass, then decode together. --batch\n"
    "max: continuous batching at saturation under the engine's limits (max sequences, max batched\n"
    "tokens, chunked prefill; --engine), as `simulate` at an infinite rate. Ceilings are\n"
    "achievable, not peak: STREAM-measured bandwidth fractions, MAMF-measured matmul fractions\n"
    "times the sustained clock of power-limited parts (0.88 on the 700 W Hopper SXM) and the\n"
    "engine's in-situ share (0.87 for PyTorch-runtime engines; 0.62 on Hopper, calibrated on\n"
    "the validation cases), GEMM tile/wave quantisation, kernel and per-step overheads\n"
    "(docs/infer.md lists each with its evidence; --calibration FILE overrides them).\n"
    "Intervals: (low-high) after a value and \"intervals\" in --json are 80 % intervals fitted on\n"
    "the validation cases' errors, leaving each publication out (docs/validate.md); widened outside\n"
    "the validated hardware/precision/engine/scale, narrowed by a probe profile of the device.";

std::string gib_str(Bytes b) { return fmt::format("{:.2f} GiB", b.value() / kGiB); }

void print_estimate(const infer::Estimate& e, const infer::Deployment& d) {
  fmt::print("{} on {} x{} ({}; tp {} pp {} ep {} dp {}), weights {} / activations {} / KV {}, "
             "engine {}\n",
             d.model.id, d.gpu.id, d.devices(), d.node.id, d.tp, d.pp, d.ep, d.dp,
             to_string(d.weight), to_string(d.activation), to_string(d.kv), d.engine);
  if (e.continuous)
    fmt::print("continuous batching at saturation: ~{:.0f} sequences per replica ({} binds), input "
               "{} + output {} tokens\n",
               e.continuous->concurrency, e.continuous->binding, e.workload.input_tokens,
               e.workload.output_tokens);
  else
    fmt::print("batch {} x (input {} + output {} tokens)\n", e.workload.batch,
               e.workload.input_tokens, e.workload.output_tokens);
  const Json iv = infer::intervals_json(d, e);
  using uncertainty::range_text;
  fmt::print("  TTFT             {:10.2f} ms {}\n", e.ttft.value() * 1e3,
             range_text(iv["ttft_s"], 1e3, 2));
  fmt::print("  TPOT             {:10.2f} ms {}   ({:.1f} tokens/s per sequence)\n",
             e.tpot.value() * 1e3, range_text(iv["tpot_s"], 1e3, 2),
             e.tpot.value() > 0 ? 1 / e.tpot.value() : 0.0);
  fmt::print("  end-to-end       {:10.3f} s {}\n", e.e2e.value(), range_text(iv["e2e_s"], 1, 3));
  fmt::print("  throughput       {:10.1f} generated tokens/s {} ({:.1f} per device, {:.3f} req/s)\n",
             e.throughput_tokens_per_s, range_text(iv["throughput_tokens_per_s"], 1, 1),
             e.throughput_tokens_per_s_per_device, e.requests_per_s);
  fmt::print("  MFU {:.1f} %  (prefill {:.1f} %, decode {:.1f} %)   MBU {:.1f} % (decode)\n",
             e.mfu * 100, e.prefill.mfu * 100, e.decode.mfu * 100, e.mbu * 100);
  fmt::print("  bound            {} (prefill: {}, decode: {})\n", e.bound, e.prefill.bound,
             e.decode.bound.empty() ? "-" : e.decode.bound);
  if (!d.ceilings.calibrated)
    fmt::print("  efficiency       UNCALIBRATED: {}\n", d.ceilings.efficiency_source);
  const auto& m = e.memory;
  fmt::print("memory per device: {} used of {}: weights {}, KV cache {}, activations+workspace {}, "
             "runtime reserve {}\n",
             gib_str(m.used()), gib_str(m.capacity), gib_str(m.weights), gib_str(m.kv_used),
             gib_str(m.activations), gib_str(m.runtime_reserve));
  fmt::print("  KV {:.0f} B/token/device, capacity {} tokens per replica; max batch at {} tokens: "
             "{}\n",
             m.kv_bytes_per_token.value(), m.kv_capacity_tokens,
             e.workload.input_tokens + e.workload.output_tokens, e.max_batch);
  fmt::print("overlap: {}\n", e.overlap);
  for (const auto& a : e.assumptions) fmt::print("assumption: {}\n", a);
  fmt::print("{}\n", uncertainty::interval_note(infer::interval(d, e, infer::Phase::whole)));
}

void print_operators(const char* title, const infer::StepCost& c) {
  fmt::print("\n{} step: {:.3f} ms (compute-bound {:.3f}, memory-bound {:.3f}, communication "
             "{:.3f}, overheads {:.3f})\n",
             title, c.total.value() * 1e3, c.compute_bound.value() * 1e3,
             c.memory_bound.value() * 1e3, c.communication.value() * 1e3,
             c.overhead.value() * 1e3);
  fmt::print("{:<22} {:<34} {:>6} {:>11} {:>11} {:>9} {:<13} {:>10} {:>6}\n", "operator", "shape",
             "x", "GFLOP", "MB moved", "FLOP/B", "bound", "time us", "share");
  for (const auto& t : c.ops) {
    const double time = t.time.time.value() * t.op.repeat;
    fmt::print("{:<22} {:<34} {:>6.4g} {:>11.4g} {:>11.4g} {:>9.1f} {:<13} {:>10.1f} {:>5.1f}%\n",
               t.op.name, t.op.shape(), t.op.repeat, t.op.cost.flops.value() * t.op.repeat / 1e9,
               t.op.cost.kind == perf::OpKind::communication
                   ? t.op.message_bytes.value() * t.op.repeat / 1e6
                   : t.op.cost.bytes_moved().value() * t.op.repeat / 1e6,
               t.op.intensity(), perf::bound_of(t.op, t.time),
               time * 1e6, c.total.value() > 0 ? time / c.total.value() * 100 : 0.0);
  }
}

void print_split(const char* title, const offload::StepSplit& s) {
  fmt::print("  {:<14} {:9.2f} ms = GPU {:.2f} + CPU {:.2f} + transfer {:.2f} ({:.1f} MB) + NVMe "
             "{:.2f} + overhead {:.2f}; bound: {}\n",
             title, s.total.value() * 1e3, s.gpu.value() * 1e3, s.cpu.value() * 1e3,
             s.transfer.value() * 1e3, s.transfer_bytes.value() / 1e6, s.disk.value() * 1e3,
             s.overhead.value() * 1e3, s.bound);
}

void print_offload(const offload::Answer& a) {
  const offload::HostSetup& h = *a.host;
  for (const auto& e : a.estimates) {
    const offload::Placement& p = e.placement;
    fmt::print("offload {}: {} layers of {} on the GPU; host {} x{} ({:.0f} GiB DRAM at {:.0f} "
               "GB/s{}), link {}\n",
               offload::to_string(p.strategy), p.gpu_layers, p.layers, h.host.id, h.host.sockets,
               h.memory.value() / kGiB, h.dram_peak.value() / kGiga,
               h.dram_measured ? " measured" : " peak", h.link);
    print_estimate(e.infer, a.deployment);
    fmt::print("memory: GPU {} of {} usable, host {} of {} usable, NVMe {}\n",
               gib_str(p.gpu_used), gib_str(p.gpu_usable), gib_str(p.host_used),
               gib_str(p.host_usable), gib_str(p.disk_used));
    fmt::print("{:<16} {:>12} {:>12} {:>12}  {}\n", "tensor class", "GPU", "host", "NVMe",
               "computed on");
    for (const auto& t : p.classes)
      fmt::print("{:<16} {:>12} {:>12} {:>12}  {}\n", t.name, gib_str(t.gpu), gib_str(t.host),
                 gib_str(t.disk), t.compute);
    print_split("prefill", e.prefill);
    if (e.infer.workload.output_tokens > 1) print_split("decode step", e.decode);
  }
}

int run_infer(InferOptions o, const GlobalOptions& g) {
  const Catalog catalog = Catalog::with_user_files(g.catalog_files);
  if (!o.weight_precision.empty())
    o.d.weight_precision = parse_precision_or_throw(o.weight_precision, "--weight-precision");
  if (!o.activation_precision.empty())
    o.d.activation_precision =
        parse_precision_or_throw(o.activation_precision, "--activation-precision");
  if (!o.kv_precision.empty())
    o.d.kv_precision = parse_precision_or_throw(o.kv_precision, "--kv-precision");
  if (!o.fp8_recipe.empty()) o.d.fp8_recipe = parse_fp8_recipe(o.fp8_recipe, "--fp8-recipe");
  if (!o.node.empty()) o.d.node = o.node;
  if (!o.fabric.empty()) o.d.fabric = o.fabric;
  if (!o.calibration.empty()) o.d.calibration_file = o.calibration;
  offload::Request request{{o.d, infer::parse_batch_spec(o.batch, "--batch"), o.input, o.output},
                           offload::parse_strategy(o.offload),
                           {}};
  if (!o.cpu.empty()) request.host.cpu = o.cpu;
  if (o.host_memory_gb != 0) request.host.host_memory_gb = o.host_memory_gb;
  if (!o.host_profile.empty()) request.host.host_profile = o.host_profile;
  const offload::Answer oa = offload::answer(catalog, request);
  if (g.json) {
    std::cout << offload::to_json(oa, o.explain).dump(2) << "\n";
    return 0;
  }
  if (!oa.gpu_only) {
    print_offload(oa);
    return 0;
  }
  const infer::Answer& a = *oa.gpu_only;
  const infer::Deployment& d = a.deployment;
  if (!a.sweep()) {
    const infer::Estimate& e = a.estimates.front();
    print_estimate(e, d);
    if (o.explain) {
      print_operators("prefill", e.prefill.step);
      if (o.output > 1) print_operators("decode (mean context)", e.decode.step);
    }
    return 0;
  }
  fmt::print("{} on {} x{} (tp {} pp {} ep {} dp {}), input {} output {} tokens, max batch {}\n",
             d.model.id, d.gpu.id, d.devices(), d.tp, d.pp, d.ep, d.dp, o.input, o.output,
             a.max_batch);
  fmt::print("{:>7} {:>10} {:>10} {:>10} {:>14} {:>12} {:>7} {:>7} {:<10} {}\n", "batch",
             "TTFT ms", "TPOT ms", "e2e s", "tokens/s", "tok/s/dev", "MFU %", "MBU %", "bound",
             "TPOT 80 % ms");
  for (const auto& e : a.estimates)
    fmt::print("{:>7} {:>10.2f} {:>10.2f} {:>10.3f} {:>14.1f} {:>12.1f} {:>7.1f} {:>7.1f} {:<10} {}\n",
               e.workload.batch, e.ttft.value() * 1e3, e.tpot.value() * 1e3, e.e2e.value(),
               e.throughput_tokens_per_s, e.throughput_tokens_per_s_per_device, e.mfu * 100,
               e.mbu * 100, e.bound,
               uncertainty::range_text(infer::intervals_json(d, e)["tpot_s"], 1e3, 2));
  for (int64_t b : a.batches)
    if (b > a.max_batch) fmt::print("batch {} does not fit (max {})\n", b, a.max_batch);
  return 0;
}

}  // namespace

void register_infer(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand(
      "infer",
      "Inference latency, throughput, utilisation and memory of a model on a deployment.");
  sub->footer(kDefinitions);
  add_global_options(*sub, g);
  auto o = std::make_shared<InferOptions>();
  sub->add_option("--model", o->d.model, "Built-in model id or path to a Hugging Face config.json")
      ->required();
  sub->add_option("--gpu", o->d.gpu, "Accelerator id or alias (h100, a100, mi300x ...)")->required();
  sub->add_option("--tp", o->d.tp, "Tensor-parallel size")->capture_default_str();
  sub->add_option("--pp", o->d.pp, "Pipeline-parallel size")->capture_default_str();
  sub->add_option("--ep", o->d.ep, "Expert-parallel size (divides tp: expert-TP = tp/ep)")
      ->capture_default_str();
  sub->add_option("--dp", o->d.dp, "Data-parallel replicas")->capture_default_str();
  sub->add_option("--node", o->node, "Node id (default: the catalog's node of the accelerator)");
  sub->add_option("--fabric", o->fabric, "Fabric id, needed when a replica spans nodes");
  sub->add_option("--batch", o->batch, "Sequences per replica: N, max, or a sweep 1,2,4,...")
      ->capture_default_str();
  sub->add_option("--input", o->input, "Input (prompt) tokens per sequence")->required();
  sub->add_option("--output", o->output, "Output tokens per sequence (the first included)")
      ->required();
  sub->add_option("--weight-precision", o->weight_precision,
                  "fp32 bf16 fp16 fp8 int8 int4 fp4 (default bf16; int8/int4 are weight-only)");
  sub->add_option("--activation-precision", o->activation_precision,
                  "Precision GEMMs run in (default: the weights', bf16 for weight-only formats)");
  sub->add_option("--kv-precision", o->kv_precision, "KV-cache precision (default: activations')");
  sub->add_option("--fp8-recipe", o->fp8_recipe,
                  "Scaling of fp8 weights/activations: tensorwise (per tensor or channel), blockwise "
                  "(128 x 128 weight blocks, 1 x 128 activation groups: DeepSeek-V3, Qwen3-FP8), "
                  "mxfp8 (default: the model's FP8 checkpoint, else tensorwise)");
  sub->add_option("--weight-group-size", o->d.weight_group_size,
                  "Elements per scale of int4/fp4 weights (default 128 / 16; GGUF Q4_0: 32)");
  sub->add_option("--engine", o->d.engine,
                  "Serving engine profile (data/engines): default, vllm, sglang, trtllm, mindie, "
                  "vllm-ascend, lmdeploy, llama.cpp, tgi")
      ->capture_default_str();
  sub->add_option("--engine-version", o->d.engine_version,
                  "Version of the engine's profile (default: its current one, e.g. vllm 0.11)");
  sub->add_option("--scheduler-steps", o->d.scheduler_steps,
                  "Iterations per scheduler call (vLLM 0.6 --num-scheduler-steps): the engine's "
                  "host work per iteration and per sequence is divided by it (1 to 1024; default 1)");
  sub->add_option("--memory-utilization", o->d.memory_utilization,
                  "Engine memory fraction: of the device total (vLLM gpu_memory_utilization, "
                  "SGLang mem_fraction_static) or, for TensorRT-LLM, of the memory free after "
                  "weights and activations (free_gpu_memory_fraction); default: the engine's, 0.9 "
                  "(SGLang 0.88/0.87/0.85/0.81/0.79 at TP 1/2/4/8/16)");
  sub->add_option("--calibration", o->calibration,
                  "Calibration file (JSON/YAML) overriding efficiency parameters")
      ->check(CLI::ExistingFile);
  sub->add_option("--offload", o->offload,
                  "none | auto | layers:N | experts | kv | weights-stream | cpu: place weights, "
                  "experts or KV in host memory (docs/offload.md)")
      ->capture_default_str();
  sub->add_option("--cpu", o->cpu,
                  "Host CPU for --offload: catalog id or alias, NxID for N sockets (default: a "
                  "DDR5 desktop for consumer cards, an EPYC Genoa server otherwise, Grace for GH200)");
  sub->add_option("--host-memory", o->host_memory_gb,
                  "Host DRAM in GiB for --offload (default: the host entry's installed memory)");
  sub->add_option("--host-profile", o->host_profile,
                  "A 'memwall probe' calibration profile: its measured STREAM bandwidth replaces "
                  "the host's datasheet DRAM bandwidth")
      ->check(CLI::ExistingFile);
  sub->add_flag("--explain", o->explain,
                "Per-operator table: FLOPs, bytes, intensity, bound, time, share");
  sub->callback([&run, &g, o] { run = [&g, o] { return run_infer(*o, g); }; });
}

}  // namespace memwall::cli
