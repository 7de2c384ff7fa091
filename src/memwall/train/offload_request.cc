#include "memwall/train/offload_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memwall/core/error.h"

namespace memwall::train {
namespace {

// The catalog host the node's datasheet names (its CPU model number in cpu_socket_link, e.g.
// "UPI (2x Intel Xeon Platinum 8168)"), or nullptr.
const Host* host_of_node(const Catalog& catalog, const Node& node) {
  for (const Host& h : catalog.hosts()) {
    const std::string model = h.id.substr(h.id.rfind('-') + 1);
    if (model.size() >= 4 && node.cpu_socket_link.find(model) != std::string::npos) return &h;
  }
  return nullptr;
}

}  // namespace

offload::HostSetup training_host(const Catalog& catalog, const Accelerator& gpu, const Node& node,
                                 offload::HostOptions o) {
  if (o.cpu) return offload::resolve_host(catalog, gpu, o);
  const Host* named = host_of_node(catalog, node);
  const Host& chosen =
      named ? *named : catalog.host(offload::resolve_host(catalog, gpu, o).host.id);
  // Servers carry the node's sockets; desktops and workstations have one.
  const int sockets = chosen.kind == "server" ? std::max(1, node.sockets) : 1;
  o.cpu = fmt::format("{}x{}", sockets, chosen.id);
  offload::HostSetup h = offload::resolve_host(catalog, gpu, o);
  h.notes.push_back(fmt::format(
      "host: {} x{} (node {}: {}), choose another with --cpu", h.host.id, h.host.sockets, node.id,
      named ? "the CPU its datasheet names" : "the offload model's default CPU for " + gpu.id));
  return h;
}

namespace {

OffloadAnswer with_offload(const Catalog& catalog, const OffloadRequest& r) {
  Request tr = r.train;
  tr.require_fit = false;
  std::vector<std::string> notes;
  const int needed_zero = r.spec.params != OffloadDevice::none ? 3 : 2;
  if (!tr.zero) {
    tr.zero = needed_zero;
    notes.push_back(fmt::format(
        "ZeRO-{} for --offload {} ({}; --zero sets another stage)", needed_zero, to_string(r.spec),
        needed_zero == 3 ? "DeepSpeed offloads parameters under stage 3 (ZeRO-Infinity)"
                         : "ZeRO-Offload extends ZeRO-2"));
  }
  if (!tr.framework) {
    tr.framework = "deepspeed";
    notes.push_back("framework deepspeed: the offload is DeepSpeed's (--framework to change)");
  }
  const bool auto_recompute = tr.recompute.value_or("auto") == "auto";
  const std::vector<std::string> levels =
      auto_recompute ? std::vector<std::string>{"none", "selective", "full"}
                     : std::vector<std::string>{*tr.recompute};
  std::optional<OffloadAnswer> last;
  for (const std::string& level : levels) {
    tr.recompute = level;
    Answer a = train::answer(catalog, tr);
    const offload::HostSetup h = training_host(catalog, a.setup.gpu, a.setup.node, r.host);
    const int per_node = std::max(1, std::min(a.config.gpus, a.setup.node.devices));
    const int drives = r.nvme_drives.value_or(std::max(1, per_node / 2));
    OffloadedEstimate o = apply_offload(a.setup, a.estimate, r.spec, h, drives);
    a.estimate = std::move(o.estimate);
    for (const auto& n : notes) a.assumptions.push_back(n);
    if (auto_recompute)
      a.assumptions.push_back(fmt::format(
          "recompute {}: the cheapest whose memory fits after the offload (--recompute to fix it)",
          level));
    if (!r.nvme_drives && o.offload.nvme_drives > 0)
      a.assumptions.push_back(fmt::format(
          "{} NVMe drive{} per node of {:.1f} GB/s read each (one per two GPUs; --nvme-drives)",
          drives, drives > 1 ? "s" : "", h.nvme ? h.nvme->value() / kGiga : 0.0));
    for (const auto& n : h.notes) a.assumptions.push_back(n);
    if (a.run) a.run = train_run(a.setup, a.estimate, a.run->tokens, r.train.price_per_gpu_hour);
    last = OffloadAnswer{std::move(a), h, std::move(o.offload)};
    if (last->answer.estimate.memory.fits()) return std::move(*last);
  }
  const MemoryBreakdown& m = last->answer.estimate.memory;
  throw InfeasibleError(fmt::format(
      "with --offload {} still needs {:.1f} GiB per GPU (weights {:.1f}, gradients {:.1f}, "
      "optimizer {:.1f}, activations {:.1f}, buffers {:.1f}, reserve {:.1f}) but {} has {:.1f} GiB",
      to_string(r.spec), m.total().value() / kGiB, m.weights.value() / kGiB,
      m.gradients.value() / kGiB, m.optimizer_state.value() / kGiB, m.activations.value() / kGiB,
      m.comm_buffers.value() / kGiB, m.runtime_reserve.value() / kGiB, last->answer.setup.gpu.id,
      m.capacity.value() / kGiB));
}

// One fix that makes `r` fit, as a sentence, and the step time it gives.
struct Fix {
  std::string text;
  double step_s = 0;
};

// The first offload that makes `r` fit; nullopt when none does.
std::optional<Fix> offload_fix(const Catalog& catalog, const OffloadRequest& r) {
  if (r.train.config.pp > 1) return std::nullopt;
  for (const char* spec :
       {"optimizer:cpu", "optimizer:cpu,params:cpu", "optimizer:nvme,params:nvme"}) {
    OffloadRequest tried = r;
    tried.spec = parse_offload(spec);
    tried.train.zero.reset();  // the stage the offload needs
    try {
      const OffloadAnswer a = with_offload(catalog, tried);
      const TrainEstimate& e = a.answer.estimate;
      return Fix{fmt::format(
                     "--offload {} would fit it on {} x{}: {:.1f} GiB per GPU, {:.1f} GiB of host "
                     "memory per node{}, step {:.2f} s ({:.1f} model TFLOP/s per GPU, MFU {:.1f} %), "
                     "exposed offload time mostly {}",
                     spec, a.host->host.id, a.host->host.sockets, e.memory.total().value() / kGiB,
                     a.offload->host_per_node.value() / kGiB,
                     a.offload->nvme_per_node.value() > 0
                         ? fmt::format(", {:.1f} GiB on NVMe", a.offload->nvme_per_node.value() / kGiB)
                         : std::string(),
                     e.step_time.value(), e.model_tflops_per_gpu, e.mfu * 100, a.offload->bound),
                 e.step_time.value()};
    } catch (const InputError&) {
    } catch (const InfeasibleError&) {
    }
  }
  return std::nullopt;
}

// Full activation recomputation, when the request fixed a lighter level and full fits.
std::optional<Fix> recompute_fix(const Catalog& catalog, const OffloadRequest& r) {
  if (!r.train.recompute || *r.train.recompute == "full" || *r.train.recompute == "auto")
    return std::nullopt;
  Request tried = r.train;
  tried.recompute = "full";
  try {
    const Answer a = train::answer(catalog, tried);
    const TrainEstimate& e = a.estimate;
    return Fix{fmt::format("--recompute full would fit it: {:.1f} GiB per GPU, step {:.2f} s "
                           "({:.1f} model TFLOP/s per GPU, MFU {:.1f} %), no host memory",
                           e.memory.total().value() / kGiB, e.step_time.value(),
                           e.model_tflops_per_gpu, e.mfu * 100),
               e.step_time.value()};
  } catch (const InputError&) {
  } catch (const InfeasibleError&) {
  }
  return std::nullopt;
}

// The fixes that make `r` fit (full recomputation, the first offload that fits), the faster
// first, as one sentence; nullopt when none does.
std::optional<std::string> suggestion(const Catalog& catalog, const OffloadRequest& r) {
  std::vector<Fix> fixes;
  for (auto fix : {recompute_fix(catalog, r), offload_fix(catalog, r)})
    if (fix) fixes.push_back(std::move(*fix));
  if (fixes.empty()) return std::nullopt;
  std::stable_sort(fixes.begin(), fixes.end(),
                   [](const Fix& x, const Fix& y) { return x.step_s < y.step_s; });
  std::string out = fixes.front().text;
  for (size_t i = 1; i < fixes.size(); ++i) out += "; or (slower) " + fixes[i].text;
  return out;
}

}  // namespace

OffloadAnswer answer(const Catalog& catalog, const OffloadRequest& r) {
  if (r.spec.any()) return with_offload(catalog, r);
  try {
    return OffloadAnswer{train::answer(catalog, r.train), std::nullopt, std::nullopt};
  } catch (const InfeasibleError& err) {
    const std::string what = err.what();
    if (what.find("GiB per GPU") == std::string::npos) throw;
    if (auto s = suggestion(catalog, r)) throw InfeasibleError(what + "; " + *s);
    throw;
  }
}

Json to_json(const OffloadAnswer& a) {
  Json j = to_json(a.answer);
  if (a.offload && a.host) {
    j["offload"] = offload_json(*a.offload, *a.host);
    j["memory_per_host_bytes"] = a.offload->host_per_node.value();
    j["memory_on_disk_bytes"] = a.offload->nvme_per_node.value();
  }
  return j;
}

}  // namespace memwall::train
