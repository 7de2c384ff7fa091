// Vendor filters of the planners (--domestic-only, --vendors): one rule for every section of every
// answer (all-GPU plans, offload plans, training runs, the compare scorecard).
#pragma once

#include <string>
#include <vector>

#include "memwall/hw/accelerator.h"

namespace memwall::plan {

// Domestic (Chinese) accelerator vendors, as the catalog's `vendor` field begins.
struct DomesticVendor {
  const char* prefix;  // lower-case prefix of the catalog vendor name
  const char* name;    // as printed in help texts; empty: another name of the vendor above
};
const std::vector<DomesticVendor>& domestic_vendors();
// "Huawei, Cambricon, ..." for help texts, from domestic_vendors().
std::string domestic_vendor_names();
bool is_domestic_vendor(const std::string& vendor);

// True when the accelerator's vendor passes both filters: domestic when `domestic_only`, and a
// vendor beginning with one of `vendors` (case-insensitive prefixes; empty: any).
bool vendor_allowed(const Accelerator& a, bool domestic_only,
                    const std::vector<std::string>& vendors);
// The accelerators that pass, in their order.
std::vector<const Accelerator*> filter_vendors(const std::vector<const Accelerator*>& accelerators,
                                               bool domestic_only,
                                               const std::vector<std::string>& vendors);

// InputError when the filters keep none of `accelerators` (e.g. --domestic-only with --vendors
// nvidia), rather than an empty answer.
void require_some_allowed(const std::vector<const Accelerator*>& accelerators, bool domestic_only,
                          const std::vector<std::string>& vendors);

}  // namespace memwall::plan
