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
  const FacilityPrices& facility() const { return facility_; }
  const std::vector<AcceleratorPrices>& accelerators() const { return accelerators_; }

 private:
  std::vector<AcceleratorPrices> accelerators_;
  FacilityPrices facility_;
};

}  // namespace memwall::cost
