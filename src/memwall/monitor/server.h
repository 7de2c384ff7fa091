// The HTTP face of the monitor: GET /metrics answers the Prometheus text of the latest sampling
// pass published to it, for a Prometheus server to scrape (cpp-httplib, background thread).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "memwall/monitor/sample.h"

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
  // Binds at once (InfeasibleError with the address when it cannot) and serves until destroyed;
  // until the first publish, /metrics answers an empty exposition.
  explicit MetricsServer(const ListenAddress& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  // Makes `pass` what the next scrapes see (thread-safe).
  void publish(const std::vector<GpuSample>& pass);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace memwall::monitor
