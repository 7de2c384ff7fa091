#include "memwall/offload/host_setup.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/hw/host_io.h"

namespace memwall::offload {
namespace {

// Default hosts: a consumer card sits in a dual-channel DDR5 desktop (the llama.cpp /
// KTransformers home setup); a data-centre card, or a desktop card asked for more memory than a
// desktop holds, in a one-socket EPYC Genoa server; a GH200 beside its Grace.
constexpr const char* kDesktopHost = "amd-ryzen-9-7950x";
constexpr const char* kServerHost = "amd-epyc-9654";
constexpr const char* kGraceHost = "nvidia-grace";

bool consumer_card(const Accelerator& a) {
  const std::string n = to_lower(a.name + " " + a.id);
  return n.find("geforce") != std::string::npos || n.find("rtx-") != std::string::npos;
}

// "ID" or "NxID" (N sockets, 1..8).
std::pair<int, std::string> parse_cpu_spec(const std::string& spec) {
  const auto x = spec.find('x');
  if (x != std::string::npos && x > 0 && x <= 2) {
    const std::string n = spec.substr(0, x);
    bool digits = true;
    for (char c : n) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) {
      const int sockets = std::stoi(n);
      if (sockets < 1 || sockets > 8)
        throw InputError("--cpu", spec, "ID or NxID with 1 <= N <= 8 sockets (e.g. 2xgenoa)");
      return {sockets, spec.substr(x + 1)};
    }
  }
  return {1, spec};
}

const Json* find_path(const Json& j, std::initializer_list<const char*> keys) {
  const Json* cur = &j;
  for (const char* k : keys) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(k);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

}  // namespace

std::optional<BytesPerSecond> pcie_x16_bandwidth(int generation) {
  switch (generation) {
    case 3:
      return gb_per_s(15.75);
    case 4:
      return gb_per_s(31.5);
    case 5:
      return gb_per_s(63.0);
    case 6:
      return gb_per_s(121.0);
    default:
      return std::nullopt;
  }
}

HostSetup resolve_host(const Catalog& catalog, const Accelerator& gpu, const HostOptions& o) {
  HostSetup s;
  if (o.host_memory_gb &&
      (!std::isfinite(*o.host_memory_gb) || *o.host_memory_gb <= 0 || *o.host_memory_gb > 65536))
    throw InputError("--host-memory", fmt::format("{:g}", *o.host_memory_gb),
                     "a positive number of GiB up to 65536");
  if (o.cpu) {
    const auto [sockets, id] = parse_cpu_spec(*o.cpu);
    s.host = catalog.host(id);
    s.host.sockets = sockets;
  } else {
    const bool grace = to_lower(gpu.id).find("gh200") != std::string::npos ||
                       to_lower(gpu.id).find("gb200") != std::string::npos;
    std::string id = grace ? kGraceHost : (consumer_card(gpu) ? kDesktopHost : kServerHost);
    const Host* h = catalog.find_host(id);
    if (h && o.host_memory_gb && h->max_memory() && gib(*o.host_memory_gb) > *h->max_memory() &&
        !grace)
      id = kServerHost;
    s.host = catalog.host(id);
    s.notes.push_back(fmt::format("host: {} ({}), the default for {}{}; choose another with --cpu",
                                  s.host.id, s.host.name, gpu.id,
                                  id == kServerHost && consumer_card(gpu)
                                      ? " asked for more memory than a desktop holds"
                                      : ""));
  }
  const Host& h = s.host;
  if (o.host_memory_gb) {
    s.memory = gib(*o.host_memory_gb);
    if (h.max_memory() && s.memory > *h.max_memory())
      throw InfeasibleError(fmt::format(
          "--host-memory {:g} GiB exceeds what {} x{} holds ({:.0f} GiB); choose a server with "
          "--cpu (e.g. genoa, 2xgenoa)",
          *o.host_memory_gb, h.id, h.sockets, h.max_memory()->value() / kGiB));
  } else if (h.installed_memory()) {
    s.memory = *h.installed_memory();
    s.notes.push_back(
        fmt::format("host memory: {:.0f} GiB installed (the catalog's "
                    "configuration of {}); set it with --host-memory",
                    s.memory.value() / kGiB, h.id));
  } else {
    throw InputError("host " + h.id + ": installed memory unknown; give --host-memory GB");
  }
  const auto bw = h.memory_bandwidth();
  if (!bw) throw InputError("host " + h.id + ": DRAM bandwidth unknown in the catalog");
  s.dram_peak = *bw;
  // The link: NVLink-C2C when the host states one (Grace), else PCIe x16 at the slower of the
  // GPU's and the host's generation.
  if (h.gpu_link_bandwidth_per_direction) {
    s.link = h.gpu_link;
    s.link_bandwidth = *h.gpu_link_bandwidth_per_direction;
  } else {
    std::optional<BytesPerSecond> host_side =
        h.pcie_generation ? pcie_x16_bandwidth(*h.pcie_generation) : std::nullopt;
    std::optional<BytesPerSecond> link = gpu.host_bandwidth_per_direction;
    if (!link || (host_side && *host_side < *link)) link = host_side;
    if (!link) throw InputError("host link of " + gpu.id + " and " + h.id + " unknown");
    s.link_bandwidth = *link;
    s.link = fmt::format("PCIe x16 {:.1f} GB/s per direction", link->value() / kGiga);
  }
  s.nvme = h.nvme_read_bandwidth;
  if (o.host_profile) {
    const Json doc = load_document(*o.host_profile);
    const Json* triad =
        find_path(doc, {"probe", "host", "stream", "kernels", "triad", "best_bytes_per_s"});
    if (!triad || !triad->is_number() || !(triad->get<double>() > 0))
      throw InputError("--host-profile", *o.host_profile,
                       "a calibration profile written by 'memwall probe' with a host STREAM run");
    // No host memory system streams 10 TB/s: the fastest are ~1.6 TB/s per socket (Intel Xeon
    // CPU Max 9480's HBM2e, Intel product brief) and ~0.6 TB/s (12-channel DDR5-6400 EPYC 9005);
    // a triad above that bound, an order of magnitude up, is no measurement.
    constexpr double kMaxHostStreamBytesPerS = 1e13;
    if (triad->get<double>() > kMaxHostStreamBytesPerS)
      throw InputError("--host-profile", *o.host_profile,
                       fmt::format("a STREAM triad of at most 1e13 B/s (10 TB/s, an order of "
                                   "magnitude above the fastest host memory there is); this one "
                                   "claims {:.3g} B/s",
                                   triad->get<double>()));
    s.dram_peak = BytesPerSecond(triad->get<double>());
    s.dram_measured = true;
    s.notes.push_back(fmt::format("host DRAM bandwidth: {:.1f} GB/s measured (STREAM triad, {})",
                                  s.dram_peak.value() / kGiga, *o.host_profile));
    if (const Json* devs = find_path(doc, {"probe", "gpu", "devices"});
        devs && devs->is_array() && !devs->empty())
      if (const Json* tr = find_path((*devs)[0], {"transfers"}); tr && tr->is_array())
        for (const auto& t : *tr)
          if (t.value("what", "") == "host to device (pinned)" && t.value("bytes_per_s", 0.0) > 0) {
            s.link_bandwidth = BytesPerSecond(t.value("bytes_per_s", 0.0));
            s.link = "measured host-to-device copy";
          }
  }
  return s;
}

Json host_setup_json(const HostSetup& s) {
  Json j = host_to_json(s.host);
  auto peak = [&](Precision p) {
    const auto f = s.host.peak(p);
    return f ? Json(f->value()) : Json(nullptr);
  };
  j["cores"] = s.host.cores();
  j["peak_flops_per_s"] = {{"fp32", peak(Precision::fp32)},
                           {"bf16", peak(Precision::bf16)},
                           {"int8", peak(Precision::int8)}};
  j["memory_bytes"] = s.memory.value();
  j["dram_bandwidth_bytes_per_s"] = s.dram_peak.value();
  j["dram_bandwidth_measured"] = s.dram_measured;
  j["gpu_link"] = s.link;
  j["gpu_link_bytes_per_s"] = s.link_bandwidth.value();
  j["nvme_read_bytes_per_s"] = s.nvme ? Json(s.nvme->value()) : Json(nullptr);
  j["notes"] = s.notes;
  return j;
}

}  // namespace memwall::offload
