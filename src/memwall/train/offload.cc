#include "memwall/train/offload.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "memwall/core/error.h"
#include "memwall/offload/bandwidth.h"

namespace memwall::train {
namespace {

OffloadDevice parse_device(const std::string& d, const std::string& field, const std::string& s) {
  if (d == "cpu") return OffloadDevice::cpu;
  if (d == "nvme") return OffloadDevice::nvme;
  throw InputError(field, s, "none, or optimizer:cpu|nvme and/or params:cpu|nvme, comma-separated");
}

// Communication `comm` overlapped with `window` of compute: the part that stays exposed (the
// same rule as the estimator's DP overlap, at its overlap efficiency).
double exposed(double comm, double window, double efficiency) {
  return std::max(comm * (1.0 - efficiency), comm - efficiency * window);
}

}  // namespace

std::string_view to_string(OffloadDevice d) {
  switch (d) {
    case OffloadDevice::none:
      return "none";
    case OffloadDevice::cpu:
      return "cpu";
    case OffloadDevice::nvme:
      return "nvme";
  }
  return "none";
}

OffloadSpec parse_offload(const std::string& s, const std::string& field) {
  OffloadSpec o;
  if (s == "none" || s.empty()) return o;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    const std::string part = s.substr(start, comma - start);
    const size_t colon = part.find(':');
    const std::string what = part.substr(0, colon);
    const std::string device = colon == std::string::npos ? "" : part.substr(colon + 1);
    if (what == "optimizer" && o.optimizer == OffloadDevice::none)
      o.optimizer = parse_device(device, field, s);
    else if (what == "params" && o.params == OffloadDevice::none)
      o.params = parse_device(device, field, s);
    else
      throw InputError(field, s,
                       "none, or optimizer:cpu|nvme and/or params:cpu|nvme, comma-separated, each "
                       "at most once");
    start = comma + 1;
  }
  return o;
}

std::string to_string(const OffloadSpec& s) {
  if (!s.any()) return "none";
  std::string out;
  if (s.optimizer != OffloadDevice::none) out = "optimizer:" + std::string(to_string(s.optimizer));
  if (s.params != OffloadDevice::none)
    out += (out.empty() ? "" : ",") + std::string("params:") + std::string(to_string(s.params));
  return out;
}

OffloadedEstimate apply_offload(const TrainSetup& setup, const TrainEstimate& base,
                                const OffloadSpec& s, const offload::HostSetup& h, int nvme_drives,
                                const offload::HostEfficiency& he, const OffloadParameters& op) {
  const TrainConfig& c = base.config;
  if (!s.any()) return {base, {}};
  if (c.pp > 1)
    throw InputError(
        "--offload", to_string(s),
        "offload with PP = 1: DeepSpeed's ZeRO-Offload and ZeRO-Infinity run on ZeRO-2/3 "
        "data parallelism (with tensor slicing), not pipeline stages");
  if (c.zero < 1)
    throw InputError("--zero", std::to_string(c.zero),
                     "ZeRO 1, 2 or 3 with --offload (the offloaded optimizer is ZeRO's partition)");
  if (s.params != OffloadDevice::none && c.zero < 3)
    throw InputError("--zero", std::to_string(c.zero),
                     "ZeRO 3 with params:cpu|nvme (DeepSpeed offload_param needs stage 3)");
  if (nvme_drives < 0 || nvme_drives > 64)
    throw InputError("--nvme-drives", std::to_string(nvme_drives), "0 to 64 drives per node");
  const bool nvme_used = s.optimizer == OffloadDevice::nvme || s.params == OffloadDevice::nvme;
  if (nvme_used && (!h.nvme || nvme_drives < 1))
    throw InputError("--offload", to_string(s),
                     fmt::format("a host with NVMe: {} has no NVMe bandwidth in the catalog or "
                                 "--nvme-drives is 0",
                                 h.host.id));

  OffloadedEstimate out{base, {}};
  TrainEstimate& e = out.estimate;
  OffloadEstimate& o = out.offload;
  o.spec = s;
  o.gpus_per_node = std::max(1, std::min(c.gpus, setup.node.devices));
  o.nvme_drives = nvme_used ? nvme_drives : 0;
  const double g = o.gpus_per_node;
  const StateBytes sb = state_bytes(c);
  MemoryBreakdown& mem = e.memory;
  // Parameters of each state on this GPU (after ZeRO sharding).
  const double p_weights = mem.weights.value() / sb.weights;
  const double p_opt = mem.optimizer_state.value() / sb.optimizer;
  const double m = double(e.micro_batches);

  // --- Where the states go (Ren et al. §4.1: the GPU keeps the 16-bit parameters; the 16-bit
  // gradients and the fp32 parameters, momentum and variance, 2 + 12 bytes per parameter, move
  // to the CPU; ZeRO-Infinity §5: parameters and optimizer state may go on to NVMe, gradients
  // stay in DRAM).
  const Bytes before = mem.total();
  double host = 0, nvme = 0;
  if (s.optimizer != OffloadDevice::none) {
    host += p_opt * sb.gradients;
    (s.optimizer == OffloadDevice::cpu ? host : nvme) += p_opt * sb.optimizer;
    mem.optimizer_state = Bytes(0);
    mem.gradients = Bytes(0);  // the reduce buckets in comm_buffers stay
  }
  if (s.params != OffloadDevice::none) {
    (s.params == OffloadDevice::cpu ? host : nvme) += p_weights * sb.weights;
    mem.weights = Bytes(0);  // the gathered layers in flight are comm_buffers (ZeRO-3)
  }
  o.gpu_saved_per_gpu = before - mem.total();
  o.gpu_per_gpu = mem.total();
  for (Bytes& b : mem.per_stage) b = mem.total();
  o.host_per_gpu = Bytes(host);
  o.host_per_node = Bytes(host * g);
  o.host_usable = h.memory * he.host_memory_usable_fraction;
  o.nvme_per_node = Bytes(nvme * g);
  if (o.host_per_node > o.host_usable)
    throw InfeasibleError(fmt::format(
        "host memory: the offloaded states need {:.1f} GiB per node ({} GPUs x {:.1f} GiB) but "
        "{:.1f} GiB are usable ({:.0f}% of {:.0f} GiB on {}); give --host-memory, offload to "
        "NVMe (optimizer:nvme,params:nvme) or use more GPUs",
        o.host_per_node.value() / kGiB, o.gpus_per_node, host / kGiB, o.host_usable.value() / kGiB,
        he.host_memory_usable_fraction * 100, h.memory.value() / kGiB, h.host.id));

  // --- Rates. The GPUs behind one PCIe switch share its uplink to the CPU when they all copy at
  // once; NVMe drives and DRAM are the node's, shared by its GPUs.
  const Node& node = setup.node;
  double share = 1;
  if (node.devices_per_pcie_switch > 1) share = std::min<double>(g, node.devices_per_pcie_switch);
  const BytesPerSecond uplink =
      node.pcie_switch_uplink_bandwidth_per_direction.value_or(node.pcie_bandwidth_per_direction);
  offload::HostSetup link = h;
  if (uplink.value() > 0)
    link.link_bandwidth = std::min(h.link_bandwidth, BytesPerSecond(uplink.value() / share));
  o.link_per_gpu = link.link_bandwidth;
  // One rank per node allocates its pinned buffers on one NUMA node (first touch) and reads one
  // socket's DRAM, as llama.cpp's single copy; with a rank per GPU every socket serves its ranks.
  const double second = g > 1 ? 1.0 : he.second_socket_fraction_single_copy;
  const BytesPerSecond dram = offload::cpu_stream_bandwidth(h, he, second);

  // --- Traffic per iteration of one GPU. Gradients of its partition go down every micro-batch
  // (DeepSpeed accumulates them on the CPU); updated 16-bit parameters come up once per step
  // (ZeRO-1/2; under ZeRO-3 with params offloaded they stay on the host and are fetched, forward
  // and backward, every micro-batch instead).
  const bool off_opt = s.optimizer != OffloadDevice::none;
  const double grads_down = off_opt ? m * p_opt * sb.gradients : 0.0;
  const double params_up_step =
      off_opt && s.params == OffloadDevice::none ? p_opt * sb.weights : 0.0;
  const double fetch = s.params != OffloadDevice::none ? p_weights * sb.weights : 0.0;  // one pass
  o.pcie_to_host = Bytes(grads_down);
  o.pcie_to_gpu = Bytes(params_up_step + 2 * m * fetch);
  const double link_s = offload::link_time(Bytes(1), link, he).value();  // seconds per byte
  o.pcie_time = Seconds((grads_down + params_up_step + 2 * m * fetch) * link_s);
  double nvme_fetch_s = 0, nvme_opt_s = 0;
  if (s.params == OffloadDevice::nvme) {
    nvme_fetch_s = offload::nvme_time(Bytes(fetch * g), h, nvme_drives)->value();
    o.nvme_read += Bytes(2 * m * fetch);
  }
  if (s.optimizer == OffloadDevice::nvme) {
    const double bytes = p_opt * sb.optimizer;
    nvme_opt_s = offload::nvme_time(Bytes(bytes * g), h, nvme_drives)->value() *
                 (1.0 + 1.0 / op.nvme_write_fraction);
    o.nvme_read += Bytes(bytes);
    o.nvme_write += Bytes(bytes);
  }
  if (s.params == OffloadDevice::nvme && off_opt) {
    // The updated 16-bit shard is written back to its NVMe swap file.
    const double w = offload::nvme_time(Bytes(fetch * g), h, nvme_drives)->value();
    nvme_opt_s += w / op.nvme_write_fraction;
    o.nvme_write += Bytes(fetch);
  }
  o.nvme_time = Seconds(2 * m * nvme_fetch_s + nvme_opt_s);
  o.cpu_step_time = off_opt ? Bytes(p_opt * op.cpu_adam_bytes_per_param * g) / dram : Seconds(0);

  // --- Overlap as DeepSpeed runs it. Forward is a third of a micro-batch's kernels, backward
  // (with its recomputation) the rest.
  const double eff = setup.params.overlap_efficiency;
  const double fwd = base.breakdown.compute.value() / (3 * m);
  const double bwd =
      (2 * base.breakdown.compute.value() / 3 + base.breakdown.recompute.value()) / m;
  // Exposed seconds by wall: PCIe, CPU-Adam, NVMe.
  double wall_pcie = 0, wall_cpu = 0, wall_nvme = 0;
  // Gradients stream down while the backward pass runs (overlap_comm; Ren et al. §4.1).
  wall_pcie += m * exposed(grads_down / m * link_s, bwd, eff);
  // Parameter fetches are prefetched a layer ahead (ZeRO-Infinity §6.2): the slower of the NVMe
  // read and the PCIe copy hides behind the pass it feeds.
  const double fetch_s = std::max(fetch * link_s, nvme_fetch_s);
  const double fetch_exposed = m * (exposed(fetch_s, fwd, eff) + exposed(fetch_s, bwd, eff));
  (nvme_fetch_s > fetch * link_s ? wall_nvme : wall_pcie) += fetch_exposed;
  o.transfer_exposed = Seconds(wall_pcie + wall_nvme);
  // The optimizer step: NVMe swap-in, CPU-Adam, swap-out (DeepSpeed's defaults pipeline_read and
  // pipeline_write off: one after the other), then the 16-bit copy up. With DPU it runs beside the
  // next step's forward and backward (Ren et al. §4.2) and only what outlasts them is exposed.
  const double up_s = params_up_step * link_s;
  const double opt = o.cpu_step_time.value() + nvme_opt_s + up_s;
  const double gpu_busy = (base.breakdown.compute + base.breakdown.recompute).value();
  o.optimizer_exposed = Seconds(s.delayed_update ? std::max(0.0, opt - gpu_busy) : opt);
  const double kept = opt > 0 ? o.optimizer_exposed.value() / opt : 0.0;
  wall_cpu += kept * o.cpu_step_time.value();
  wall_nvme += kept * nvme_opt_s;
  wall_pcie += kept * up_s;
  const std::pair<double, const char*> walls[] = {
      {wall_pcie, "PCIe"}, {wall_cpu, "CPU-Adam (DRAM bandwidth)"}, {wall_nvme, "NVMe"}};
  const auto* top = std::max_element(std::begin(walls), std::end(walls));
  // Less than 1 % of the GPU's own work exposed: the offload is hidden.
  o.bound = top->first > 0.01 * gpu_busy ? top->second : "nothing (hidden behind GPU compute)";

  // --- The step: the GPU optimizer pass is gone; the offload's exposed time takes its place.
  const double old_step = base.step_time.value();
  e.breakdown.optimizer = o.optimizer_exposed + o.transfer_exposed;
  e.step_time = e.breakdown.total();
  const double ratio = old_step / e.step_time.value();  // every rate scales with 1 / step
  e.tokens_per_s *= ratio;
  e.tokens_per_s_per_gpu *= ratio;
  e.model_tflops_per_gpu *= ratio;
  e.hardware_tflops_per_gpu *= ratio;
  e.mfu *= ratio;
  e.hfu *= ratio;
  e.bubble_fraction = e.breakdown.bubble.value() / e.step_time.value();
  e.busy_fraction = gpu_busy / e.step_time.value();
  o.notes.push_back(fmt::format(
      "offload {}: {:.1f} GiB per GPU moved off ({}), {:.1f} GiB of host DRAM and {:.1f} GiB of "
      "NVMe per node; CPU-Adam at {:.0f} GB/s ({} socket{} of {}), PCIe {:.1f} GB/s per GPU "
      "nominal ({} per switch){}",
      to_string(s), o.gpu_saved_per_gpu.value() / kGiB,
      s.params != OffloadDevice::none ? "parameters, gradients, optimizer state"
                                      : "gradients and optimizer state",
      o.host_per_node.value() / kGiB, o.nvme_per_node.value() / kGiB, dram.value() / kGiga,
      g > 1 ? h.host.sockets : 1, g > 1 && h.host.sockets > 1 ? "s" : "", h.host.id,
      o.link_per_gpu.value() / kGiga, share,
      s.delayed_update ? "; delayed parameter update: the CPU step overlaps the next step" : ""));
  return out;
}

Json offload_json(const OffloadEstimate& o, const offload::HostSetup& h) {
  return Json{{"strategy", to_string(o.spec)},
              {"optimizer_device", std::string(to_string(o.spec.optimizer))},
              {"param_device", std::string(to_string(o.spec.params))},
              {"delayed_parameter_update", o.spec.delayed_update},
              {"gpus_per_node", o.gpus_per_node},
              {"nvme_drives_per_node", o.nvme_drives},
              {"gpu_bytes_per_gpu", o.gpu_per_gpu.value()},
              {"gpu_bytes_saved_per_gpu", o.gpu_saved_per_gpu.value()},
              {"host_bytes_per_gpu", o.host_per_gpu.value()},
              {"host_bytes_per_node", o.host_per_node.value()},
              {"host_usable_bytes", o.host_usable.value()},
              {"nvme_bytes_per_node", o.nvme_per_node.value()},
              {"pcie_bytes_to_host_per_iteration", o.pcie_to_host.value()},
              {"pcie_bytes_to_gpu_per_iteration", o.pcie_to_gpu.value()},
              {"nvme_read_bytes_per_iteration", o.nvme_read.value()},
              {"nvme_write_bytes_per_iteration", o.nvme_write.value()},
              {"pcie_bytes_per_s_per_gpu", o.link_per_gpu.value()},
              {"transfer_time_per_iteration_s", o.pcie_time.value()},
              {"nvme_time_per_iteration_s", o.nvme_time.value()},
              {"cpu_step_time_per_iteration_s", o.cpu_step_time.value()},
              {"optimizer_exposed_s", o.optimizer_exposed.value()},
              {"transfer_exposed_s", o.transfer_exposed.value()},
              {"bound", o.bound},
              {"notes", o.notes},
              {"host", offload::host_setup_json(h)}};
}

}  // namespace memwall::train
