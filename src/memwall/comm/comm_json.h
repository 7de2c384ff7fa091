// The JSON form of the network model's answers (`memwall net --json`, the HTTP API, the Python
// bindings): one collective estimate at a message size (nccl-tests algbw/busbw convention, GB/s =
// 1e9 bytes/s) and the explanation of a collective (path, links, candidates, upgrade what-ifs).
#pragma once

#include "memwall/comm/collective.h"
#include "memwall/core/document.h"

namespace memwall::comm {

Json to_json(Bytes size, const CollectiveEstimate& e);
Json to_json(const Explanation& x);

}  // namespace memwall::comm
