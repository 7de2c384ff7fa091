#include "memwall/offload/placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "memwall/core/error.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/step.h"
#include "memwall/model/counts.h"
#include "memwall/offload/bandwidth.h"

namespace memwall::offload {
namespace {

// Whole-model bytes of each tensor class (one device: tp = pp = 1).
struct ClassBytes {
  Bytes layer, experts, head, kv_per_token;
};

ClassBytes class_bytes(const infer::Deployment& d) {
  const ParameterCounts c = count_parameters(d.model);
  const double w = d.weight_bytes_per_element;
  return {Bytes((c.attention + c.dense_mlp + c.shared_experts + c.router + c.norms) * w),
          Bytes(c.routed_experts * w), Bytes((c.embedding + c.lm_head) * d.head_bytes_per_element),
          infer::kv_bytes_per_token_per_device(d)};
}

int64_t blocks_of(int64_t tokens) {
  return (tokens + infer::kKvBlockTokens - 1) / infer::kKvBlockTokens * infer::kKvBlockTokens;
}

bool is_head_op(std::string_view n) {
  return n == "embedding" || n == "final_norm" || n == "lm_head" || n == "sampling";
}
bool is_expert_op(std::string_view n) {
  return n.substr(0, 11) == "moe_expert_";
}
bool is_attention_op(std::string_view n) {
  return n.substr(0, 10) == "attention_";
}

bool head_on_gpu(const Placement& p) {
  return !p.cpu_only && (p.stream || p.gpu_layers == p.layers);
}

// Share of an operator's executions that run on the CPU side (computed by the CPU, or for
// `stream`, whose weights come over the link).
double cpu_share(const Placement& p, std::string_view name) {
  if (p.cpu_only) return 1.0;
  const double layer_cpu = 1.0 - double(p.gpu_layers) / p.layers;
  if (is_head_op(name)) return head_on_gpu(p) ? 0.0 : 1.0;
  // KV in DRAM: FlexGen delegates only decode attention (mha_gen) to the CPU; the prompt's
  // attention runs on the GPU, which then writes the KV home (flex_opt.py SelfAttention.forward).
  if (is_attention_op(name))
    return p.kv_on_host ? (name == "attention_decode" ? 1.0 : 0.0) : (p.stream ? 0.0 : layer_cpu);
  if (is_expert_op(name) && p.experts_on_cpu) return 1.0;
  return layer_cpu;
}

std::string strategy_word(Strategy s) {
  switch (s) {
    case Strategy::none:
      return "none";
    case Strategy::auto_search:
      return "auto";
    case Strategy::layers:
      return "layers";
    case Strategy::experts:
      return "experts";
    case Strategy::kv:
      return "kv";
    case Strategy::weights_stream:
      return "weights-stream";
    case Strategy::cpu:
      return "cpu";
  }
  return "none";
}

struct Fit {
  Placement p;
  bool fits = false;
  std::string why;  // when it does not fit: the numbers
};

// `explain`: word `why` when it does not fit (the search over layer counts reads only the first).
Fit place(const infer::Deployment& d, const HostSetup& h, Strategy s, int gpu_layers,
          const infer::Workload& w, const HostEfficiency& e, bool explain = true) {
  Fit f;
  Placement& p = f.p;
  p.strategy = {s, s == Strategy::layers || s == Strategy::weights_stream
                       ? std::optional<int>(gpu_layers)
                       : std::nullopt};
  p.layers = d.model.layers;
  p.gpu_layers = s == Strategy::cpu ? 0 : gpu_layers;
  p.cpu_only = s == Strategy::cpu;
  p.experts_on_cpu = s == Strategy::experts;
  p.kv_on_host = s == Strategy::kv;
  p.stream = s == Strategy::weights_stream;
  const ClassBytes b = class_bytes(d);
  const double gpu_frac = p.cpu_only ? 0.0 : double(p.gpu_layers) / p.layers;
  const int64_t context = w.input_tokens + w.output_tokens;
  const Bytes kv = b.kv_per_token * (double(w.batch) * double(blocks_of(context)));
  const Bytes act = infer::activation_bytes_per_device(
      d, std::max<int64_t>(1, w.batch * w.input_tokens), std::max<int64_t>(1, w.batch));

  auto split = [&](const char* name, Bytes total, double on_gpu, const char* compute) {
    TensorClass t{name, total * on_gpu, total * (1.0 - on_gpu), Bytes(0), compute};
    p.classes.push_back(t);
  };
  const char* cpu_side = p.stream ? "gpu (streamed from host)" : "cpu";
  const char* layer_compute = p.cpu_only ? "cpu" : (gpu_frac >= 1 ? "gpu" : "gpu + cpu");
  split("layer_weights", b.layer, gpu_frac,
        gpu_frac <= 0
            ? cpu_side
            : (gpu_frac >= 1 ? "gpu" : (p.stream ? "gpu (part streamed)" : layer_compute)));
  if (b.experts.value() > 0)
    split("expert_weights", b.experts, p.experts_on_cpu ? 0.0 : gpu_frac,
          p.experts_on_cpu
              ? "cpu"
              : (gpu_frac >= 1 ? "gpu" : (p.stream ? "gpu (part streamed)" : layer_compute)));
  split("head_weights", b.head, head_on_gpu(p) ? 1.0 : 0.0, head_on_gpu(p) ? "gpu" : "cpu");
  const double kv_gpu =
      p.cpu_only || p.kv_on_host ? 0.0 : (p.stream || p.experts_on_cpu ? 1.0 : gpu_frac);
  split("kv_cache", kv, kv_gpu,
        kv_gpu >= 1 ? "gpu"
                    : (kv_gpu <= 0 ? (p.kv_on_host ? "cpu (prefill: gpu)" : "cpu") : "gpu + cpu"));
  if (p.kv_on_host) {
    // The prompt's attention runs on the GPU: one layer's prompt KV is there until it is written
    // home (the write is timed in turn with the compute, so one layer's buffer is enough).
    const Bytes staged = b.kv_per_token * (double(w.batch) * double(w.input_tokens) / p.layers);
    p.classes.push_back({"kv_prefill_buffer", staged, Bytes(0), Bytes(0), "gpu"});
  }
  split("activations", act, p.cpu_only ? 0.0 : 1.0, p.cpu_only ? "cpu" : "gpu");
  if (p.stream && gpu_frac < 1) {
    // Two layers' weights in flight: the one computing and the next arriving (double buffer).
    const Bytes buffer = (b.layer + b.experts) * (2.0 / p.layers);
    p.classes.push_back({"stream_buffers", buffer, Bytes(0), Bytes(0), "gpu"});
  }

  for (const auto& t : p.classes) {
    p.gpu_used += t.gpu;
    p.host_used += t.host;
  }
  const Bytes capacity = infer::device_capacity(d.gpu);
  p.gpu_usable = p.cpu_only ? Bytes(0) : capacity * d.memory_utilization;
  p.host_usable = h.memory * e.host_memory_usable_fraction;
  // Weights beyond the usable DRAM spill to NVMe (KV and activations may not).
  if (p.host_used > p.host_usable) {
    Bytes spill = p.host_used - p.host_usable;
    Bytes host_weights(0);
    for (const auto& t : p.classes)
      if (t.name.find("weights") != std::string::npos) host_weights += t.host;
    if (spill > host_weights || !h.nvme) {
      if (!explain) return f;
      f.why = fmt::format(
          "host memory: {:.1f} GiB needed, {:.1f} GiB usable ({:.0f}% of {:.0f} "
          "GiB){}",
          p.host_used.value() / kGiB, p.host_usable.value() / kGiB,
          e.host_memory_usable_fraction * 100, h.memory.value() / kGiB,
          h.nvme ? "" : ", and no NVMe bandwidth is known to spill to");
      return f;
    }
    const double share = spill / host_weights;
    for (auto& t : p.classes)
      if (t.name.find("weights") != std::string::npos) {
        t.disk = t.host * share;
        t.host = t.host - t.disk;
      }
    p.disk_used = spill;
    p.host_used = p.host_used - spill;
  }
  if (p.gpu_used > p.gpu_usable) {
    if (!explain) return f;
    f.why = fmt::format("GPU memory: {:.2f} GiB needed, {:.2f} GiB usable ({:.0f}% of {:.2f} GiB)",
                        p.gpu_used.value() / kGiB, p.gpu_usable.value() / kGiB,
                        d.memory_utilization * 100, capacity.value() / kGiB);
    return f;
  }
  f.fits = true;
  return f;
}

// Where time goes, for the bound.
enum Wall { kGpuFlops, kHbm, kCpuFlops, kDram, kLink, kNvme, kOverhead, kWalls };

StepSplit time_step(const infer::Deployment& d, const HostSetup& h, const Placement& p,
                    const infer::StepBatch& batch, const HostEfficiency& e) {
  const infer::StepCost c = infer::step_cost(d, batch);
  // llama.cpp keeps one copy of the weights (no per-NUMA-node replicas).
  const double second =
      d.engine == "llama.cpp" ? e.second_socket_fraction_single_copy : e.second_socket_fraction;
  const double cores_scale = socket_scale(h, second);
  const double cpu_bw = cpu_stream_bandwidth(h, e, second).value();
  const HostLinkModel link = host_link_model(h, e);
  const double link_bw = link.achievable.value();
  const int64_t step_tokens = batch.prefill_tokens + batch.decode_sequences;
  const double kv_bytes_per_token = infer::kv_bytes_per_token_per_device(d).value();
  const double disk_share = [&] {
    Bytes host_w(0), disk_w(0);
    for (const auto& t : p.classes)
      if (t.name.find("weights") != std::string::npos) {
        host_w += t.host + t.disk;
        disk_w += t.disk;
      }
    return host_w.value() > 0 ? disk_w / host_w : 0.0;
  }();

  std::array<double, kWalls> wall{};
  StepSplit s;
  double gpu_streamed = 0, stream_bytes = 0;
  for (const auto& t : c.ops) {
    const double n = t.op.repeat;
    const double tg = t.time.time.value() * n;
    const double share = cpu_share(p, t.op.name);
    const double on_gpu = tg * (1.0 - share);
    const Wall gpu_wall = t.time.compute_bound ? kGpuFlops : kHbm;
    const double op_bytes = t.op.cost.bytes_moved().value() * n;
    wall[gpu_wall] += on_gpu;
    s.gpu += Seconds(on_gpu);
    s.gpu_bytes += Bytes(op_bytes * (1.0 - share));
    if (share <= 0) continue;
    const double weights = t.op.weight_bytes.value() * n * share;
    s.disk_bytes += Bytes(weights * disk_share);
    if (p.stream) {
      // A streamed operator runs on the GPU from its copy in GPU memory: its own bound counts.
      gpu_streamed += tg * share;
      wall[gpu_wall] += tg * share;
      s.gpu_bytes += Bytes(op_bytes * share);
      stream_bytes += weights;
      continue;
    }
    // The CPU's roofline for this operator (Williams et al., CACM 2009) at achievable ceilings.
    const Precision elem = t.op.cost.kind == perf::OpKind::gemm ? d.weight : Precision::fp32;
    const auto peak = h.host.peak(elem);
    const double cpu_flops = peak ? peak->value() * cores_scale * e.cpu_gemm_fraction : 0.0;
    const double tc_compute = cpu_flops > 0 ? t.op.cost.flops.value() / cpu_flops : 0.0;
    const double tc_memory = t.op.cost.bytes_moved().value() / cpu_bw;
    const double tc = (std::max(tc_compute, tc_memory) + e.cpu_op_overhead.value()) * n * share;
    // llama.cpp: a prompt step's GEMMs of CPU layers run on the GPU, their weights streamed.
    if (p.strategy.strategy == Strategy::layers && !p.cpu_only &&
        t.op.cost.kind == perf::OpKind::gemm && step_tokens >= e.stream_min_tokens) {
      const double alt = tg * share + weights / link_bw;
      if (alt < tc) {
        s.gpu += Seconds(tg * share);
        s.gpu_bytes += Bytes(op_bytes * share);
        wall[gpu_wall] += tg * share;
        s.transfer += Seconds(weights / link_bw);
        s.transfer_bytes += Bytes(weights);
        wall[kLink] += weights / link_bw;
        continue;
      }
    }
    s.cpu += Seconds(tc);
    wall[tc_compute > tc_memory ? kCpuFlops : kDram] += tc;
  }
  // Streamed weights: the next layer's copy overlaps this layer's compute (FlexGen §4.2).
  if (p.stream) {
    const double xfer = copy_time(link, Bytes(stream_bytes), p.layers).value();
    s.gpu += Seconds(gpu_streamed);
    s.transfer_bytes += Bytes(stream_bytes);
    const double exposed = std::max(0.0, xfer - gpu_streamed);
    s.transfer += Seconds(exposed);
    wall[kLink] += exposed;
  }
  // Hand-overs of activations between GPU and CPU, each a copy and a synchronisation.
  if (!p.cpu_only) {
    const ModelSpec& m = d.model;
    const double T = double(step_tokens), hid = double(m.hidden);
    int moe_layers = 0;
    for (int l = 0; l < m.layers; ++l) moe_layers += m.is_moe_layer(l) ? 1 : 0;
    double crossings = 0, bytes = 0;
    if (p.experts_on_cpu) {
      crossings += 2.0 * moe_layers;
      bytes += 2.0 * moe_layers * T * hid * 2;  // bf16 hidden states out and back
    }
    if (p.kv_on_host) {
      // Every new token's K/V goes to its home in DRAM, one copy per layer (the prompt's from
      // the GPU's prefill attention); a decode step's queries go to the CPU's attention and its
      // outputs come back (bf16).
      const double Sd = double(batch.decode_sequences);
      crossings += m.layers * (Sd > 0 ? 3.0 : 1.0);
      bytes += kv_bytes_per_token * T + 2.0 * m.layers * Sd * double(m.heads) * m.head_dim * 2;
    }
    if (!p.stream && p.gpu_layers < p.layers) {
      crossings += 2.0;
      bytes += 2.0 * T * hid * 4;  // llama.cpp hands fp32 activations over
    }
    const double t = copy_time(link, Bytes(bytes), crossings).value();
    s.transfer += Seconds(t);
    s.transfer_bytes += Bytes(bytes);
    wall[kLink] += t;
    s.overhead = d.ceilings.step_overhead;
    wall[kOverhead] += s.overhead.value();
  }
  if (s.disk_bytes.value() > 0 && h.nvme) {
    s.disk = s.disk_bytes / *h.nvme;
    wall[kNvme] += s.disk.value();
  }
  s.total = s.gpu + s.cpu + s.transfer + s.disk + s.overhead;
  static const char* names[kWalls] = {"GPU FLOP/s", "HBM bandwidth", "CPU FLOP/s", "DRAM bandwidth",
                                      "link",       "NVMe",          "overhead"};
  const auto i = size_t(std::max_element(wall.begin(), wall.end()) - wall.begin());
  s.bound = i == kLink ? (h.link.rfind("NVLink", 0) == 0 ? "NVLink-C2C" : "PCIe") : names[i];
  if (i == kHbm && d.gpu.memory_type.rfind("GDDR", 0) == 0) s.bound = "GDDR bandwidth";
  return s;
}

Flops model_flops(const ModelSpec& m, double tokens, double mean_context) {
  return Flops(tokens * forward_flops_per_token(m, mean_context));
}

Estimate evaluate(const infer::Deployment& d, const HostSetup& h, const Fit& f,
                  const infer::Workload& w, const HostEfficiency& e) {
  Estimate out;
  out.placement = f.p;
  const Placement& p = out.placement;
  const int64_t steps = w.output_tokens - 1;
  out.prefill = time_step(d, h, p, infer::prefill_batch(w.batch, w.input_tokens), e);
  const auto mean_ctx =
      static_cast<int64_t>(std::llround(double(w.input_tokens) + (double(steps) + 1) / 2));
  if (steps > 0) out.decode = time_step(d, h, p, infer::decode_batch(w.batch, mean_ctx), e);
  infer::Estimate& r = out.infer;
  r.workload = w;
  r.ttft = out.prefill.total;
  r.tpot = out.decode.total;
  r.e2e = r.ttft + r.tpot * double(steps);
  r.throughput_tokens_per_s = double(w.batch * w.output_tokens) / r.e2e.value();
  r.throughput_tokens_per_s_per_device = r.throughput_tokens_per_s;
  r.requests_per_s = double(w.batch) / r.e2e.value();
  const double peak = d.ceilings.matmul_peak.value();
  r.prefill.time = out.prefill.total;
  r.prefill.bound = out.prefill.bound;
  r.prefill.model_flops =
      model_flops(d.model, double(w.batch * w.input_tokens), (double(w.input_tokens) + 1) / 2);
  r.decode.time = r.tpot * double(steps);
  r.decode.bound = out.decode.bound;
  r.decode.model_flops = model_flops(d.model, double(w.batch * steps), double(mean_ctx));
  // MBU: what the GPU's own memory moves for the operators it runs, per second of the whole
  // step, over its datasheet bandwidth (docs/offload.md); host copies into it are not counted.
  const double peak_bw = d.ceilings.memory_peak.value();
  if (!p.cpu_only && peak_bw > 0) {
    r.prefill.mbu = out.prefill.gpu_bytes.value() / out.prefill.total.value() / peak_bw;
    if (steps > 0) r.decode.mbu = out.decode.gpu_bytes.value() / out.decode.total.value() / peak_bw;
    r.mbu = steps > 0 ? r.decode.mbu : r.prefill.mbu;
  }
  if (!p.cpu_only && peak > 0) {
    r.prefill.mfu = r.prefill.model_flops.value() / (r.prefill.time.value() * peak);
    if (steps > 0) r.decode.mfu = r.decode.model_flops.value() / (r.decode.time.value() * peak);
    r.mfu = (r.prefill.model_flops + r.decode.model_flops).value() / (r.e2e.value() * peak);
  }
  out.bound = (steps > 0 && r.decode.time > r.prefill.time) ? out.decode.bound : out.prefill.bound;
  r.bound = out.bound;
  infer::MemoryPlan& m = r.memory;
  m.capacity = p.cpu_only ? Bytes(0) : infer::device_capacity(d.gpu);
  m.runtime_reserve = m.capacity * (1.0 - d.memory_utilization);
  for (const auto& t : p.classes) {
    if (t.name == "kv_cache" || t.name == "kv_prefill_buffer")
      m.kv_used += t.gpu;
    else if (t.name == "activations")
      m.activations = t.gpu;
    else
      m.weights += t.gpu;
  }
  m.kv_bytes_per_token = infer::kv_bytes_per_token_per_device(d);
  m.kv_budget = p.gpu_usable - m.weights - m.activations;
  m.kv_capacity_tokens =
      m.kv_bytes_per_token.value() > 0
          ? static_cast<int64_t>(std::max(0.0, m.kv_budget.value()) / m.kv_bytes_per_token.value())
          : 0;
  r.overlap =
      p.stream ? "streamed weights: the next layer's copy overlaps this layer's compute (FlexGen); "
                 "GPU and CPU otherwise work in turn"
               : "GPU and CPU work in turn: each layer's CPU part waits for its GPU part and the "
                 "hand-over (llama.cpp, KTransformers V0.2); no CPU/GPU overlap is counted";
  r.assumptions = d.assumptions;
  for (const auto& n : h.notes) r.assumptions.push_back(n);
  // Largest batch with this placement: fitting is monotone in the batch.
  auto fits = [&](int64_t b) {
    return place(d, h, p.strategy.strategy, p.gpu_layers, {b, w.input_tokens, w.output_tokens}, e, false)
        .fits;
  };
  int64_t lo = fits(1) ? 1 : 0, hi = 2;
  if (lo == 1) {
    while (hi < (1 << 24) && fits(hi)) hi *= 2;
    lo = hi / 2;
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
  }
  r.max_batch = lo;
  out.assumptions = r.assumptions;
  return out;
}

void check_applies(const infer::Deployment& d, Strategy s, std::optional<int> n) {
  if (d.devices_per_replica() != 1)
    throw InputError("--offload", strategy_word(s),
                     "a replica of one device (tp 1, pp 1): the offload model places one GPU's "
                     "model beside its host");
  if (s == Strategy::experts && !d.model.is_moe())
    throw InputError("--offload", "experts",
                     "a strategy for a dense model (" + d.model.id +
                         " has no routed experts): layers:N, kv, weights-stream, cpu or auto");
  if (n && (*n < 0 || *n > d.model.layers))
    throw InputError(
        "--offload", fmt::format("layers:{}", *n),
        fmt::format("layers:N with 0 <= N <= {} (the layers of {})", d.model.layers, d.model.id));
}

// The most GPU layers that fit for strategy `s` (-1 when none does).
Fit most_layers_that_fit(const infer::Deployment& d, const HostSetup& h, Strategy s,
                         const infer::Workload& w, const HostEfficiency& e) {
  Fit last;
  for (int n = d.model.layers; n >= 0; --n) {
    Fit f = place(d, h, s, n, w, e, n == d.model.layers);
    if (f.fits) return f;
    if (n == d.model.layers) last = f;
  }
  return last;
}

}  // namespace

StrategySpec parse_strategy(const std::string& s, const std::string& field) {
  const char* allowed = "none, auto, layers:N, experts, kv, weights-stream or cpu";
  if (s == "none") return {Strategy::none, std::nullopt};
  if (s == "auto") return {Strategy::auto_search, std::nullopt};
  if (s == "experts") return {Strategy::experts, std::nullopt};
  if (s == "kv") return {Strategy::kv, std::nullopt};
  if (s == "weights-stream") return {Strategy::weights_stream, std::nullopt};
  if (s == "cpu") return {Strategy::cpu, std::nullopt};
  if (s == "layers") return {Strategy::layers, std::nullopt};
  if (s.rfind("layers:", 0) == 0) {
    const std::string n = s.substr(7);
    size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(n, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != n.size() || v < 0) throw InputError(field, s, allowed);
    return {Strategy::layers, v};
  }
  throw InputError(field, s, allowed);
}

std::string to_string(const StrategySpec& s) {
  if (s.strategy == Strategy::layers && s.gpu_layers)
    return fmt::format("layers:{}", *s.gpu_layers);
  return strategy_word(s.strategy);
}

Estimate estimate(const infer::Deployment& d, const HostSetup& h, const StrategySpec& s,
                  const infer::Workload& w, const HostEfficiency& e) {
  if (s.strategy == Strategy::auto_search) return best(d, h, w, e);
  check_applies(d, s.strategy, s.gpu_layers);
  infer::check_context(d.model, w.input_tokens, w.output_tokens);
  if (w.batch < 1 || w.input_tokens < 1 || w.output_tokens < 1)
    throw InputError("batch, input and output must be positive");
  Fit f;
  if (s.gpu_layers) {
    f = place(d, h, s.strategy, *s.gpu_layers, w, e);
  } else if (s.strategy == Strategy::layers || s.strategy == Strategy::weights_stream) {
    f = most_layers_that_fit(d, h, s.strategy, w, e);
  } else {
    f = place(d, h, s.strategy, d.model.layers, w, e);
  }
  if (!f.fits)
    throw InfeasibleError(fmt::format("{} with --offload {} on {} does not fit: {}", d.model.id,
                                      to_string(f.p.strategy), d.gpu.id, f.why));
  return evaluate(d, h, f, w, e);
}

Estimate best(const infer::Deployment& d, const HostSetup& h, const infer::Workload& w,
              const HostEfficiency& e) {
  check_applies(d, Strategy::auto_search, std::nullopt);
  infer::check_context(d.model, w.input_tokens, w.output_tokens);
  std::vector<Strategy> tried = {Strategy::none, Strategy::layers, Strategy::kv,
                                 Strategy::weights_stream};
  if (d.model.is_moe()) tried.push_back(Strategy::experts);
  std::optional<Estimate> chosen;
  std::vector<std::string> why;
  for (Strategy s : tried) {
    const Fit f = s == Strategy::layers || s == Strategy::weights_stream
                      ? most_layers_that_fit(d, h, s, w, e)
                      : place(d, h, s, d.model.layers, w, e);
    if (!f.fits) {
      why.push_back(fmt::format("{}: {}", strategy_word(s), f.why));
      continue;
    }
    Estimate est = evaluate(d, h, f, w, e);
    if (!chosen || est.infer.e2e < chosen->infer.e2e) chosen = std::move(est);
  }
  if (!chosen)
    throw InfeasibleError(fmt::format("{} on {} with {} does not fit with any offload: {}",
                                      d.model.id, d.gpu.id, h.host.id, fmt::join(why, "; ")));
  chosen->assumptions.push_back(
      fmt::format("--offload auto chose {} (fastest end to end of the placements that fit)",
                  to_string(chosen->placement.strategy)));
  chosen->infer.assumptions = chosen->assumptions;
  return *chosen;
}

Json to_json(const Estimate& e, const HostSetup& h) {
  const Placement& p = e.placement;
  Json classes = Json::object();
  for (const auto& t : p.classes)
    classes[t.name] = {{"gpu_bytes", t.gpu.value()},
                       {"host_bytes", t.host.value()},
                       {"disk_bytes", t.disk.value()},
                       {"compute", t.compute}};
  auto split = [](const StepSplit& s) {
    return Json{{"time_s", s.total.value()},
                {"gpu_s", s.gpu.value()},
                {"cpu_s", s.cpu.value()},
                {"transfer_s", s.transfer.value()},
                {"disk_s", s.disk.value()},
                {"overhead_s", s.overhead.value()},
                {"transfer_bytes", s.transfer_bytes.value()},
                {"disk_bytes", s.disk_bytes.value()},
                {"gpu_memory_bytes", s.gpu_bytes.value()},
                {"bound", s.bound}};
  };
  return Json{{"strategy", to_string(p.strategy)},
              {"gpu_layers", p.gpu_layers},
              {"layers", p.layers},
              {"placement", classes},
              {"gpu_bytes", p.gpu_used.value()},
              {"gpu_usable_bytes", p.gpu_usable.value()},
              {"host_bytes", p.host_used.value()},
              {"host_usable_bytes", p.host_usable.value()},
              {"disk_bytes", p.disk_used.value()},
              {"transfer_time_per_step_s", e.decode.transfer.value()},
              {"prefill", split(e.prefill)},
              {"decode_step", split(e.decode)},
              {"bound", e.bound},
              {"host", host_setup_json(h)}};
}

}  // namespace memwall::offload
