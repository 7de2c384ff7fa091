// Fuzzes the web UI's request handling (the body of POST /api/infer, /api/train and /api/net, read
// as the server reads it with ui::parse_request_body) and the message catalog's sentence matcher
// (every answer and error localised to Chinese, as with ?lang=zh): any bytes must give an answer,
// InputError (HTTP 400) or InfeasibleError (HTTP 422), never a crash. The corpus has deep, huge,
// duplicated and malformed bodies (ui-audit-3 D2, D11), an uploaded config.json and an engine
// choice.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/i18n/messages.h"
#include "memwall/ui/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwall;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)i18n::localize(text, i18n::Lang::zh);  // arbitrary text through the template matcher
  Json request;
  try {
    request = ui::parse_request_body(text);  // as the server reads a body (depth, duplicates)
  } catch (const InputError& e) {
    (void)i18n::localize(e.what(), i18n::Lang::zh);
    return 0;  // the server answers 400 before ui::handle
  }
  for (const char* endpoint : {"infer", "train", "net", "catalog"}) {
    try {
      Json answer = ui::handle(Catalog::builtin(), endpoint, request);
      i18n::localize_strings(answer, i18n::Lang::zh);
    } catch (const InputError& e) {
      (void)i18n::localize(e.what(), i18n::Lang::zh);
    } catch (const InfeasibleError& e) {
      (void)i18n::localize(e.what(), i18n::Lang::zh);
    }
  }
  return 0;
}
