#include "memwall/infer/deployment.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memwall/comm/collective.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall::infer {
namespace {

constexpr int kMaxParallel = 1 << 16;
constexpr double kCommMaxLog2 = 36;  // 64 GiB messages

int check_size(int v, const char* field) {
  if (v < 1 || v > kMaxParallel)
    throw InputError(field, std::to_string(v), fmt::format("an integer in [1, {}]", kMaxParallel));
  return v;
}

bool is_float16_or_wider(Precision p) {
  return p == Precision::fp32 || p == Precision::tf32 || p == Precision::bf16 ||
         p == Precision::fp16;
}

// A stand-in for a replica of one device when the catalog has no node for the accelerator.
Node single_device_node(const Accelerator& a) {
  Node n;
  n.id = "single-" + a.id;
  n.name = "one " + a.name + " (no node in the catalog)";
  n.accelerator = a.id;
  n.devices = 1;
  n.scaleup_domain = 1;
  n.nics = 0;
  return n;
}

CommTable tabulate(const comm::Cluster& cluster, comm::Collective op, const comm::Group& g) {
  CommTable t;
  if (g.size <= 1) return t;
  for (double l = t.min_log2_bytes; l <= kCommMaxLog2; l += 1.0)
    t.seconds.push_back(comm::estimate_time(cluster, op, Bytes(std::exp2(l)), g).value());
  return t;
}

}  // namespace

Seconds CommTable::time(Bytes bytes) const {
  if (seconds.empty() || bytes.value() <= 0) return Seconds(0);
  const double l = std::log2(bytes.value()) - min_log2_bytes;
  if (l <= 0) return Seconds(seconds.front());
  const size_t last = seconds.size() - 1;
  if (l >= double(last))  // beyond the table: bandwidth term scales linearly
    return Seconds(seconds.back() * bytes.value() / std::exp2(min_log2_bytes + double(last)));
  const size_t i = static_cast<size_t>(l);
  const double f = l - double(i);
  return Seconds(seconds[i] + f * (seconds[i + 1] - seconds[i]));
}

namespace {
// Engines pick their defaults by device memory (vLLM: >= 70 GiB and not an A100).
bool small_device(const perf::EngineLimits& l, const Accelerator& a) {
  if (l.small_device_bytes <= 0) return false;
  if (a.memory.value_or(Bytes(0)).value() < l.small_device_bytes) return true;
  const std::string arch = to_lower(a.arch);
  return std::any_of(l.small_archs.begin(), l.small_archs.end(),
                     [&](const std::string& k) { return arch.rfind(k, 0) == 0; });
}
}  // namespace

int Deployment::max_num_seqs() const {
  const auto& l = engine_profile->limits;
  return small_device(l, gpu) && l.small_max_num_seqs > 0 ? l.small_max_num_seqs : l.max_num_seqs;
}

int64_t Deployment::max_num_batched_tokens() const {
  const auto& l = engine_profile->limits;
  const bool small = small_device(l, gpu);
  return small && l.small_max_num_batched_tokens > 0 ? l.small_max_num_batched_tokens
                                                     : l.max_num_batched_tokens;
}

int Deployment::nodes_per_replica() const {
  return (devices_per_replica() + node.devices - 1) / std::max(1, node.devices);
}

Deployment make_deployment(const ModelSpec& model, const Accelerator& gpu,
                           const std::optional<Node>& node, const std::optional<Fabric>& fabric,
                           const DeploymentOptions& o,
                           std::shared_ptr<const perf::Efficiency> efficiency,
                           CommTableCache* comm_cache) {
  Deployment d;
  d.model = model;
  d.gpu = gpu;
  d.tp = check_size(o.tp, "--tp");
  d.pp = check_size(o.pp, "--pp");
  d.ep = check_size(o.ep, "--ep");
  d.dp = check_size(o.dp, "--dp");
  d.engine = o.engine;
  const ModelSpec& m = d.model;
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.vocab <= 0)
    throw InputError("model " + m.id + ": layers, hidden, heads and vocab must be positive");

  // Parallel sizes against the model's shapes (Megatron-LM/vLLM sharding rules).
  if (m.heads % d.tp != 0)
    throw InfeasibleError(fmt::format("--tp {} does not divide the {} attention heads of {}",
                                      d.tp, m.heads, m.id));
  if (m.attention != AttentionKind::mla && m.kv_heads % d.tp != 0 && d.tp % m.kv_heads != 0)
    throw InfeasibleError(fmt::format(
        "--tp {} neither divides nor is a multiple of the {} KV heads of {}", d.tp, m.kv_heads,
        m.id));
  if (m.attention != AttentionKind::mla && d.tp > m.kv_heads)
    d.assumptions.push_back(fmt::format(
        "tp {} > {} KV heads: each KV head is replicated on {} devices (vLLM/TensorRT-LLM)", d.tp,
        m.kv_heads, d.tp / m.kv_heads));
  int dense_layers = 0;
  for (int l = 0; l < m.layers; ++l) dense_layers += m.is_moe_layer(l) ? 0 : 1;
  if (dense_layers > 0 && m.ffn % d.tp != 0)
    throw InfeasibleError(
        fmt::format("--tp {} does not divide the FFN width {} of {}", d.tp, m.ffn, m.id));
  if (d.pp > m.layers)
    throw InfeasibleError(
        fmt::format("--pp {} is larger than the {} layers of {}", d.pp, m.layers, m.id));
  if (d.ep > 1) {
    if (!m.is_moe())
      throw InputError("--ep", std::to_string(d.ep), "1 (" + m.id + " has no experts)");
    if (m.moe.experts % d.ep != 0)
      throw InfeasibleError(fmt::format("--ep {} does not divide the {} experts of {}", d.ep,
                                        m.moe.experts, m.id));
    if (d.tp % d.ep != 0)
      throw InfeasibleError(fmt::format(
          "--ep {} must divide --tp {}: experts are spread over the tensor-parallel group "
          "(expert-TP = tp/ep, TensorRT-LLM moe_ep_size x moe_tp_size = tp)",
          d.ep, d.tp));
  }
  if (m.is_moe() && m.moe.expert_ffn % (d.tp / d.ep) != 0)
    throw InfeasibleError(fmt::format("expert-TP {} does not divide the expert FFN width {}",
                                      d.tp / d.ep, m.moe.expert_ffn));

  // Precisions. Weight-only formats (int8/int4) dequantise in the GEMM and compute in bf16
  // (GPTQ/AWQ/Marlin kernels); fp8 weights compute in fp8 (W8A8); NVFP4 computes in fp4 where
  // the device has it.
  const bool has_bf16 = gpu.supports(Precision::bf16) && gpu.peak(Precision::bf16).has_value();
  d.weight = o.weight_precision.value_or(has_bf16 ? Precision::bf16 : Precision::fp16);
  if (!o.weight_precision && !has_bf16)
    d.assumptions.push_back(gpu.id + " has no bf16 path: weights and activations in fp16");
  if (o.activation_precision) {
    d.activation = *o.activation_precision;
  } else if (is_float16_or_wider(d.weight) || is_fp8(d.weight)) {
    d.activation = d.weight;
  } else if (d.weight == Precision::fp4 && gpu.supports(Precision::fp4) && gpu.peak(Precision::fp4)) {
    d.activation = Precision::fp4;
  } else {
    d.activation = has_bf16 ? Precision::bf16 : Precision::fp16;
    d.assumptions.push_back(fmt::format("{} weights are weight-only: GEMMs dequantise and compute "
                                        "in {}",
                                        to_string(d.weight), to_string(d.activation)));
  }
  d.matmul = d.activation;
  if (is_fp8(d.weight) && !gpu.supports(d.weight))
    throw InfeasibleError(fmt::format("{} has no {} path; use --weight-precision int8 or bf16",
                                      gpu.id, to_string(d.weight)));
  d.weight_bytes_per_element = bytes_per_element(d.weight);
  if (o.weight_group_size) {
    const auto& wi = info(d.weight);
    if (wi.group_size == 0)
      throw InputError("--weight-group-size", std::to_string(*o.weight_group_size),
                       "only for group-scaled formats (int4, fp4), not " +
                           std::string(to_string(d.weight)));
    if (*o.weight_group_size < 1 || *o.weight_group_size > (1 << 20))
      throw InputError("--weight-group-size", std::to_string(*o.weight_group_size),
                       "an integer in [1, 1048576]");
    // bits/8 + scale_bits / (8 x group): GGUF Q4_0 = 4 + 16/32 = 4.5 bits per weight.
    d.weight_bytes_per_element = wi.bits / 8.0 + wi.scale_bits / (8.0 * *o.weight_group_size);
  }
  // Embedding and LM head stay 16-bit in quantised checkpoints (GPTQ/AWQ/ModelOpt FP8 skip them).
  d.head_bytes_per_element = std::max(2.0, std::min(d.weight_bytes_per_element, 4.0));
  d.kv = o.kv_precision.value_or(bytes_per_element(d.activation) >= 1.0 ? d.activation
                                                                         : Precision::bf16);
  // The built-in parameters are a static: shared without a copy (a planner search builds
  // thousands of deployments; copying the engine profiles each time cost ~20 % of `memwall plan`).
  if (efficiency)
    d.efficiency = std::move(efficiency);
  else if (o.calibration_file)
    d.efficiency =
        std::make_shared<perf::Efficiency>(perf::load_calibration(*o.calibration_file));
  else
    d.efficiency = std::shared_ptr<const perf::Efficiency>(std::shared_ptr<const void>(),
                                                           &perf::default_efficiency());
  if (o.engine_version && o.engine == "default")
    throw InputError("--engine-version", *o.engine_version,
                     "only with --engine NAME (vllm, sglang, ...): the default profile has none");
  const std::string engine_spec = o.engine_version ? o.engine + "@" + *o.engine_version : o.engine;
  d.engine_profile = &d.efficiency->engine(engine_spec, perf::engine_platform(gpu));
  d.memory_utilization = o.memory_utilization
                             ? require_fraction(*o.memory_utilization, "memory utilization")
                             : d.engine_profile->limits.default_memory_fraction(d.tp);
  d.engine = d.engine_profile->name;
  if (o.fp8_recipe && !is_fp8(d.matmul))
    throw InputError("--fp8-recipe", std::string(to_string(*o.fp8_recipe)),
                     "only with fp8 GEMMs (--weight-precision fp8), not " +
                         std::string(to_string(d.matmul)));
  d.fp8_recipe = o.fp8_recipe.value_or(d.model.fp8_checkpoint.value_or(Fp8Recipe::tensorwise));
  // MXFP8 scales are applied by the microscaling MMA that comes with the MX FP4 formats
  // (Blackwell, CDNA 4); a device without FP4 has none.
  if (d.fp8_recipe == Fp8Recipe::mxfp8 && !(gpu.supports(Precision::fp4) && gpu.peak(Precision::fp4)))
    throw InfeasibleError(fmt::format("{} has no microscaling (MX) tensor-core path for mxfp8; use "
                                      "--fp8-recipe blockwise or tensorwise",
                                      gpu.id));
  d.ceilings = perf::resolve_ceilings(gpu, d.matmul, *d.efficiency, engine_spec, d.fp8_recipe);
  if (is_fp8(d.matmul)) {
    const double block_scale =
        perf::blockwise_fp8_rate_scale(gpu, d.matmul, d.fp8_recipe, *d.engine_profile);
    std::string why = o.fp8_recipe ? "" : d.model.fp8_checkpoint ? " (the model's FP8 checkpoint)"
                                                                   : " (default; --fp8-recipe)";
    if (block_scale < 1.0)
      why += fmt::format(": its GEMMs at {:.2f} of the per-tensor FP8 rate ({}'s block kernels "
                         "as measured on an H100, carried to this device's FP8 / FP32 peak ratio)",
                         block_scale, d.engine);
    d.assumptions.push_back(fmt::format("FP8 scaling: {}{}", to_string(d.fp8_recipe), why));
  }
  if (o.scheduler_steps < 1 || o.scheduler_steps > 1024)
    throw InputError("scheduler_steps", std::to_string(o.scheduler_steps),
                     "a whole number of iterations per scheduler call in [1, 1024]");
  // Multi-step scheduling: one scheduler call (and its host work) per scheduler_steps iterations.
  d.ceilings.step_overhead = d.ceilings.step_overhead / double(o.scheduler_steps);
  d.ceilings.step_overhead_per_sequence =
      d.ceilings.step_overhead_per_sequence / double(o.scheduler_steps);
  const double per_seq_us = d.ceilings.step_overhead_per_sequence.value() * 1e6;
  d.assumptions.push_back(fmt::format(
      "engine: {}{} ({} us per kernel, {:.0f} us host work per iteration{}{}, at most {} sequences "
      "and {} tokens per iteration{})",
      d.engine_profile->display.empty() ? d.engine : d.engine_profile->display,
      o.engine == "default" ? " - the default; --engine vllm|sglang|trtllm|... names one" : "",
      d.engine_profile->kernel_overhead.value() * 1e6, d.ceilings.step_overhead.value() * 1e6,
      per_seq_us > 0 ? fmt::format(" + {:.1f} us per sequence", per_seq_us) : "",
      o.scheduler_steps > 1 ? fmt::format(" (one scheduler call per {} steps)", o.scheduler_steps)
                            : "",
      d.max_num_seqs(), d.max_num_batched_tokens(),
      d.engine_profile->limits.chunked_prefill ? ", chunked prefill" : ""));
  if (d.ceilings.skinny_gemm_max_m >= 0)
    d.assumptions.push_back(fmt::format(
        "FP8 linear layers: the engine's skinny kernel for iterations of up to {} token(s); larger "
        "ones go to the GEMM library, whose small-M tiles stream weights at {:.2f} of its rate",
        d.ceilings.skinny_gemm_max_m, d.ceilings.library_gemm_stream_fraction));

  d.shard.tp = d.tp;
  d.shard.pp = d.pp;
  d.shard.ep = d.ep;
  d.shard.weight = d.weight;
  d.shard.weight_bytes_per_element = d.weight_bytes_per_element;
  d.shard.head_bytes_per_element = d.head_bytes_per_element;
  d.shard.activation = d.activation;
  d.shard.kv = d.kv;
  d.shard.fused_elementwise = d.ceilings.fused_elementwise;
  d.shard.gqa_shared_kv_loads = d.ceilings.gqa_shared_kv_loads;
  d.shard.gqa_shared_kv_loads_mixed = d.ceilings.gqa_shared_kv_loads_mixed;
  d.shard.gqa_reread_dram_share = d.efficiency->gqa_reread_dram_share;
  d.shard.compute_units = d.ceilings.compute_units;
  d.shard.fp8_activation_quant_kernel = d.engine_profile->fp8_activation_quant_kernel;
  d.shard.moe_layer_overhead = d.engine_profile->moe_layer_overhead;

  // Node and fabric.
  if (node) {
    d.node = *node;
    if (!node->accelerator.empty() && node->accelerator != gpu.id)
      d.assumptions.push_back("node " + node->id + " is specified with " + node->accelerator +
                              "; its links are used with " + gpu.id);
  } else {
    if (d.devices_per_replica() > 1)
      throw InputError("--node", "(none)",
                       "a node id: the catalog has no node of " + gpu.id + " for a replica of " +
                           std::to_string(d.devices_per_replica()) + " devices");
    d.node = single_device_node(gpu);
    d.node_assumed = true;
    d.assumptions.push_back("single device: no node in the catalog for " + gpu.id);
  }
  d.node = perf::with_communication_prior(std::move(d.node), gpu, *d.efficiency);
  if (d.node.devices < 1) throw InputError("node " + d.node.id + ": devices must be positive");
  d.fabric = fabric;
  if (d.nodes_per_replica() > 1 && !d.fabric)
    throw InputError("--fabric", "(none)",
                     fmt::format("a fabric id: a replica of {} devices spans {} nodes of {} ({} "
                                 "devices each)",
                                 d.devices_per_replica(), d.nodes_per_replica(), d.node.id,
                                 d.node.devices));
  comm::Cluster cluster{&d.node, d.fabric ? &*d.fabric : nullptr, d.nodes_per_replica()};
  // The table of one collective over this cluster, from the cache when it has it. comm::estimate
  // reads the cluster's node count only to check that the group fits in it (the groups here always
  // do: TP ranks and the PP pair lie within tp x pp devices), and the fabric only for a group that
  // spans nodes, so the key leaves both out where they cannot matter: one TP group's table serves
  // every PP depth.
  auto table = [&](comm::Collective op, const comm::Group& g) {
    if (!comm_cache || g.size <= 1) return tabulate(cluster, op, g);
    const int64_t last = g.first + int64_t(g.size - 1) * g.stride;
    const bool one_node = last / d.node.devices == g.first / d.node.devices;
    std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", d.node.id, gpu.id,
                                  one_node || !d.fabric ? "" : d.fabric->id, static_cast<int>(op), g.size,
                                  g.stride, g.first);
    if (const CommTable* t = comm_cache->find(key)) return *t;
    return comm_cache->insert(std::move(key), tabulate(cluster, op, g));
  };
  using perf::CommPattern;
  d.comm[size_t(CommPattern::tp_all_reduce)] = table(comm::Collective::all_reduce, comm::Group{d.tp, 1, 0});
  // The engine's custom all-reduce replaces NCCL for small messages inside one node (vLLM uses it
  // for 2, 4, 6 or 8 ranks with full NVLink; TensorRT-LLM and SGLang likewise).
  const double custom_max = d.engine_profile->custom_all_reduce_max_bytes;
  if (custom_max > 0 && d.tp > 1 && d.tp <= 8 && d.tp % 2 == 0 && d.nodes_per_replica() == 1) {
    auto& t = d.comm[size_t(CommPattern::tp_all_reduce)];
    bool used = false;
    for (size_t i = 0; i < t.seconds.size(); ++i) {
      const double bytes = std::exp2(t.min_log2_bytes + double(i));
      if (bytes > custom_max) break;
      if (auto c = comm::custom_all_reduce_time(d.node, d.tp, Bytes(bytes)); c && c->value() < t.seconds[i]) {
        t.seconds[i] = c->value();
        used = true;
      }
    }
    // A larger message never takes less time (the engine could always split it): keep the table
    // monotone across the custom-to-NCCL switch, so step time grows with the batch.
    for (size_t i = 1; i < t.seconds.size(); ++i) t.seconds[i] = std::max(t.seconds[i], t.seconds[i - 1]);
    if (used)
      d.assumptions.push_back(fmt::format(
          "tensor-parallel all-reduces up to {:.0f} MiB use the engine's one-/two-shot custom "
          "all-reduce over {} where faster than NCCL",
          custom_max / kMiB, d.node.id));
  }
  d.comm[size_t(CommPattern::tp_all_gather)] = table(comm::Collective::all_gather, comm::Group{d.tp, 1, 0});
  d.comm[size_t(CommPattern::pp_send_recv)] =
      table(comm::Collective::send_recv, comm::Group{d.pp > 1 ? 2 : 1, d.tp, 0});
  return d;
}

Deployment make_deployment(const Catalog& catalog, const DeploymentOptions& o) {
  const ModelSpec model = catalog.model(o.model);
  const Accelerator& gpu = catalog.accelerator(o.gpu);
  std::optional<Node> node;
  if (o.node) {
    node = catalog.node(*o.node);
    // A node's links, host and NICs are those of the accelerator generation it is built from;
    // timing an H100 on hgx-a100's NVLink 3 would mix two machines without a word (an
    // A100-40GB on the A100-80GB board is the same machine).
    if (!node->accelerator.empty() && node->accelerator != gpu.id) {
      const Accelerator& built = catalog.accelerator(node->accelerator);
      if (built.arch != gpu.arch)
        throw InputError("--node", *o.node,
                         fmt::format("a node built from a {} accelerator like {} (--gpu); {} holds "
                                     "{} ({})",
                                     gpu.arch, gpu.id, node->id, built.id, built.arch));
    }
  } else {
    for (const auto& n : catalog.nodes())
      if (n.accelerator == gpu.id) {
        node = n;
        break;
      }
  }
  std::optional<Fabric> fabric;
  if (o.fabric) fabric = catalog.fabric(*o.fabric);
  Deployment d = make_deployment(model, gpu, node, fabric, o, o.efficiency);
  if (node && !o.node) d.assumptions.push_back("node " + node->id + " (the catalog's node of " + gpu.id + ")");
  return d;
}

}  // namespace memwall::infer
