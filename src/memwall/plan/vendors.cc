#include "memwall/plan/vendors.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall::plan {

const std::vector<DomesticVendor>& domestic_vendors() {
  static const std::vector<DomesticVendor> list = {
      {"huawei", "Huawei"},   {"cambricon", "Cambricon"},
      {"hygon", "Hygon"},     {"kunlunxin", "Kunlunxin (Baidu)"},
      {"baidu", ""},          {"moore threads", "Moore Threads"},
      {"metax", "MetaX"},     {"biren", "Biren"},
      {"enflame", "Enflame"}, {"iluvatar", "Iluvatar"}};
  return list;
}

std::string domestic_vendor_names() {
  std::string out;
  for (const auto& v : domestic_vendors())
    if (*v.name) out += (out.empty() ? "" : ", ") + std::string(v.name);
  return out;
}

bool is_domestic_vendor(const std::string& vendor) {
  const std::string v = to_lower(vendor);
  return std::any_of(domestic_vendors().begin(), domestic_vendors().end(),
                     [&](const DomesticVendor& d) { return v.rfind(d.prefix, 0) == 0; });
}

bool vendor_allowed(const Accelerator& a, bool domestic_only,
                    const std::vector<std::string>& vendors) {
  const std::string v = to_lower(a.vendor);
  if (domestic_only && !is_domestic_vendor(v)) return false;
  return vendors.empty() ||
         std::any_of(vendors.begin(), vendors.end(), [&](const std::string& allowed) {
           return v.rfind(to_lower(allowed), 0) == 0;
         });
}

std::vector<const Accelerator*> filter_vendors(const std::vector<const Accelerator*>& accelerators,
                                               bool domestic_only,
                                               const std::vector<std::string>& vendors) {
  std::vector<const Accelerator*> out;
  std::copy_if(accelerators.begin(), accelerators.end(), std::back_inserter(out),
               [&](const Accelerator* a) { return vendor_allowed(*a, domestic_only, vendors); });
  return out;
}

void require_some_allowed(const std::vector<const Accelerator*>& accelerators, bool domestic_only,
                          const std::vector<std::string>& vendors) {
  if (std::any_of(accelerators.begin(), accelerators.end(), [&](const Accelerator* a) {
        return vendor_allowed(*a, domestic_only, vendors);
      }))
    return;
  std::vector<std::string> given;
  if (domestic_only) given.push_back("--domestic-only");
  if (!vendors.empty()) given.push_back(fmt::format("--vendors {}", fmt::join(vendors, ",")));
  std::vector<std::string> names;
  for (const Accelerator* a : accelerators)
    if (std::find(names.begin(), names.end(), a->vendor) == names.end()) names.push_back(a->vendor);
  throw InputError(fmt::format("{}: these filters exclude every one of the {} accelerators asked "
                               "(vendors {}); allowed: filters that keep at least one",
                               fmt::join(given, " with "), accelerators.size(),
                               fmt::join(names, ", ")));
}

}  // namespace memwall::plan
