// Fuzzes the web UI's request handling (the JSON body of POST /api/infer and /api/net): any bytes
// must give an answer, InputError (HTTP 400) or InfeasibleError (HTTP 422), never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/ui/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwall;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Json request = Json::parse(text, nullptr, false);
  if (request.is_discarded()) return 0;  // the server answers 400 before ui::handle
  for (const char* endpoint : {"infer", "net", "catalog"}) {
    try {
      (void)ui::handle(Catalog::builtin(), endpoint, request);
    } catch (const InputError&) {
    } catch (const InfeasibleError&) {
    }
  }
  return 0;
}
