// The local HTTP server of `memwall ui`: GET / serves the single page, POST /api/<endpoint> answers
// with ui::handle (400 for bad input, 422 for an impossible configuration, each with
// {"error": message}), and the static report: the page with the default answers preloaded, so it
// opens from a file with no server.
#pragma once

#include <functional>
#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"

namespace memwall::ui {

class Server {
 public:
  explicit Server(const Catalog& catalog);
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

// The answers a static report carries: the catalog and the page's default infer, plan and net
// requests (docs/ui.md).
Json default_answers(const Catalog& catalog);

// The page with `answers` preloaded as window.MEMWALL_PRELOAD (</script> safe).
std::string static_report(const Json& answers);

}  // namespace memwall::ui
