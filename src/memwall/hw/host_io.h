// Host entries in the format of data/hw/hosts.json (per-socket values, GB/s decimal, memory in
// GB as the vendor means it: DIMM "GB" are GiB). InputError names the bad field.
#pragma once

#include <string>

#include "memwall/core/document.h"
#include "memwall/hw/host.h"

namespace memwall {

Host host_from_json(const Json& entry, const std::string& where);
Json host_to_json(const Host& h);

}  // namespace memwall
