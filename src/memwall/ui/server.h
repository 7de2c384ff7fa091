// The local HTTP server of `memwall ui`: GET / serves the single page (with the message catalog),
// GET /vendor/echarts.min.js its chart library, POST /api/<endpoint>[?lang=en|zh] answers with
// ui::handle (400 for bad input, 422 for an impossible configuration, each with {"error": message};
// 403 for a request from another site), sentences in the language asked; and the static report: the
// page with the chart library inlined and the default answers in both languages preloaded, so it
// opens from a file with no server.
#pragma once

#include <functional>
#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/ui/api.h"
#include "memwall/core/document.h"

namespace memwall::ui {

// What one server may spend on its clients. Defaults: room for 200 clients that connect and send
// nothing (ui-audit-3's load test) beside the page's own requests; each connection must send a
// whole request within 10 s of its start or of its previous answer, or it is closed.
struct ServerLimits {
  size_t workers = 256;
  int request_deadline_s = 10;
};

class Server {
 public:
  // `options`: what every answer applies (a calibration profile, ApiOptions).
  explicit Server(const Catalog& catalog, ServerLimits limits = {}, ApiOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  // Binds host:port (port 0: any free port) and serves until stop(); `on_ready` gets the bound
  // port once listening. Throws InputError when the address cannot be bound.
  void run(const std::string& host, int port, const std::function<void(int)>& on_ready = {});
  void stop();

 private:
  struct Impl;
  Impl* impl_;
};

// The answers a static report carries: {"en": {endpoint: answer}, "zh": ...} for the catalog and
// each view's default request (docs/ui.md).
Json default_answers(const Catalog& catalog, const ApiOptions& options = {});

// The page as served: the message catalog set as window.MEMWALL_MESSAGES and the catalog answer
// (POST /api/catalog) as window.MEMWALL_CATALOG, so the first answer waits for no catalog request.
std::string served_page(const Catalog& catalog, const ApiOptions& options = {});

// The page with the chart library inlined and `answers` preloaded as
// window.MEMWALL_PRELOAD = {"answers": answers} (</script> safe).
std::string static_report(const Json& answers);

}  // namespace memwall::ui
