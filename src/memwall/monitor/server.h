// The HTTP face of the monitor: GET /metrics answers the Prometheus text of the latest samples,
// for a Prometheus server to scrape (cpp-httplib, served from a background thread).
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace memwall::monitor {

struct ListenAddress {
  std::string host = "0.0.0.0";
  int port = 9400;  // the port dcgm-exporter's neighbours leave free by convention; any may be used
};

// ":9400", "9400", "127.0.0.1:9400", "localhost:0" (0 = any free port). InputError naming
// --serve otherwise.
ListenAddress parse_listen_address(const std::string& text);

class MetricsServer {
 public:
  // Binds at once (InfeasibleError with the address when it cannot) and serves until destroyed.
  // `metrics_text` is called from the server thread for each scrape; it must be thread-safe.
  MetricsServer(const ListenAddress& address, std::function<std::string()> metrics_text);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace memwall::monitor
