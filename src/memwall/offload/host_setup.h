// The host side of an offload deployment: which CPU (a catalog host, "2xID" for two sockets, or
// the default for the GPU), how much DRAM it has, the link to the GPU (PCIe of the slower end,
// or NVLink-C2C on Grace), NVMe, and optionally a probe profile's measured bandwidth in place
// of the datasheet's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/hw/host.h"

namespace memwall::offload {

struct HostOptions {
  std::optional<std::string> cpu;           // "ID" or "NxID"; default: chosen for the GPU
  std::optional<double> host_memory_gb;     // DRAM installed (GiB); default: the entry's
  std::optional<std::string> host_profile;  // a probe calibration profile (measured STREAM)
};

struct HostSetup {
  Host host;
  Bytes memory;                   // installed DRAM, all sockets
  BytesPerSecond dram_peak;       // datasheet (or the probe's measured triad when given)
  bool dram_measured = false;     // true: dram_peak is a measured STREAM triad
  std::string link;               // "PCIe Gen4 x16" or "NVLink-C2C"
  BytesPerSecond link_bandwidth;  // per direction, nominal
  std::optional<BytesPerSecond> nvme;
  std::vector<std::string> notes;  // defaults taken and why
};

// PCIe x16 bandwidth per direction by generation (PCI-SIG base specifications: 8/16/32/64 GT/s
// per lane for Gen3/4/5/6 with 128b/130b encoding; Gen6 FLIT ~ 121 GB/s).
std::optional<BytesPerSecond> pcie_x16_bandwidth(int generation);

// Resolves the host for `gpu`. InputError for an unknown CPU (nearest names), a bad spec, an
// implausible --host-memory or an unreadable profile; InfeasibleError when --host-memory is more
// than the platform holds.
HostSetup resolve_host(const Catalog& catalog, const Accelerator& gpu, const HostOptions& o);

Json host_setup_json(const HostSetup& h);

}  // namespace memwall::offload
