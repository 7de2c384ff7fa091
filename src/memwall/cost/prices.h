// The price book: what an accelerator costs to buy or rent and what a facility charges for power
// and space. Every default figure comes from data/prices/*.json with its source and date; user
// files (--catalog FILE with a top-level "prices" key) replace entries by accelerator id or alias.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/hw/accelerator.h"

namespace memwall::cost {

// A number with where it came from. An absent value is unknown, never guessed.
struct SourcedValue {
  std::optional<double> value;
  std::string source;
  std::string date;  // as the source gives it ("2024-01"), or "YYYY-MM-DD read" for undated pages
  bool known() const { return value.has_value(); }
};

struct AcceleratorPrices {
  std::string accelerator;           // catalog id or alias as written in the file
  SourcedValue capex_usd;            // purchase price of one device
  SourcedValue cloud_usd_per_gpu_hour;  // on-demand rental of one device
  bool from_user = false;            // from a --catalog file (beats a catalog price_usd)
};

// A server bought whole (data/prices/servers.json "nodes"): the price of the complete box with
// its accelerators, or of its platform alone (CPUs, DRAM, NICs, storage, chassis, baseboard),
// and the wall power of the whole box. Unknown figures stay unknown.
struct NodePrices {
  std::string node;                 // node id
  SourcedValue capex_usd;           // the whole server, accelerators included
  SourcedValue platform_usd;        // everything but the accelerators
  SourcedValue power_w;             // whole-server power at full load (accelerators included)
  SourcedValue cloud_usd_per_node_hour;
};

// What every server and its share of the network cost when a node has no figure of its own
// (data/prices/servers.json "platform"): host platform per server, wall power of the host per
// server, and one scale-out port (switch share + optics/cable) per NIC.
struct PlatformPrices {
  SourcedValue host_platform_usd;
  SourcedValue host_power_w;
  SourcedValue switch_port_usd;
  SourcedValue optics_per_port_usd;
};

// The host of an offload plan (data/prices/hosts.json, docs/cost.md "Host prices"): its CPU per
// socket, DRAM per GB by memory kind, NVMe per TB and, where a source gives one, the platform (board,
// chassis, PSU, cooling) per host kind. Unknown figures stay unknown.
struct HostPrices {
  std::string host;      // catalog id or alias as written in the file
  SourcedValue cpu_usd;  // one socket
  SourcedValue tdp_w;    // one socket, the vendor's default TDP
};
struct MemoryPrices {
  std::string kind;         // "ddr5-rdimm", "ddr5-udimm", "ddr4-rdimm", ... (cost::memory_kind)
  SourcedValue usd_per_gb;  // per GB of installed DIMM capacity (as DIMMs are labelled: GiB)
};
struct HostPlatformPrices {
  std::string kind;  // host kind: server | workstation | desktop | superchip
  SourcedValue usd;  // board, chassis, PSU and cooling of one host
};
struct StoragePrices {
  SourcedValue nvme_usd_per_tb;  // per TB (1e12 bytes) of NVMe flash
};

// Facility figures used for owned hardware.
struct FacilityPrices {
  SourcedValue electricity_usd_per_kwh;
  SourcedValue pue;                       // total facility power / IT power (>= 1)
  SourcedValue hosting_usd_per_kw_month;  // colocation rent per kW of provisioned IT power
  SourcedValue life_years;                // straight-line amortisation horizon
  SourcedValue idle_power_fraction;       // board power at zero activity, as a fraction of TDP
};

class PriceBook {
 public:
  // The defaults embedded from data/prices/*.json (parsed once, then copied).
  static PriceBook builtin();
  // Defaults, then the "prices" key of each user file in order (files without one are skipped).
  static PriceBook with_user_files(const std::vector<std::string>& paths);

  // Reads doc["prices"] when present ({"accelerators": [...], "facility": {...}}); other top-level
  // keys belong to other loaders and are ignored. Later entries replace earlier ones.
  void load(const Json& doc, const std::string& origin);

  // The prices for this accelerator: every entry matching its id or an alias (case-insensitive),
  // later entries overriding the figures they give; nullopt when no entry matches.
  std::optional<AcceleratorPrices> find(const Accelerator& a) const;
  // The figures of a node by id (later entries override the figures they give).
  std::optional<NodePrices> find_node(const std::string& node_id) const;
  const FacilityPrices& facility() const { return facility_; }
  const PlatformPrices& platform() const { return platform_; }
  const std::vector<AcceleratorPrices>& accelerators() const { return accelerators_; }
  // Host figures: the CPU by catalog id or alias (entries merged in order like find()), DRAM by
  // memory kind and the platform by host kind (the last entry giving a figure wins).
  std::optional<HostPrices> find_host(const std::string& id, const std::vector<std::string>& aliases) const;
  std::optional<SourcedValue> memory_usd_per_gb(const std::string& kind) const;
  std::optional<SourcedValue> host_platform_usd(const std::string& kind) const;
  const StoragePrices& storage() const { return storage_; }

 private:
  std::vector<AcceleratorPrices> accelerators_;
  std::vector<NodePrices> nodes_;
  std::vector<HostPrices> hosts_;
  std::vector<MemoryPrices> memory_;
  std::vector<HostPlatformPrices> host_platforms_;
  StoragePrices storage_;
  FacilityPrices facility_;
  PlatformPrices platform_;
};

}  // namespace memwall::cost
