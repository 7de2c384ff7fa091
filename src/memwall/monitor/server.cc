#include "memwall/monitor/server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "memwall/core/error.h"
#include "memwall/core/http_server.h"
#include "memwall/monitor/prometheus.h"

namespace memwall::monitor {

ListenAddress parse_listen_address(const std::string& text) {
  const std::string allowed = "[HOST]:PORT with PORT in 0..65535, e.g. :9400 or 127.0.0.1:9400";
  ListenAddress a;
  const auto colon = text.rfind(':');
  const std::string port = colon == std::string::npos ? text : text.substr(colon + 1);
  if (colon != std::string::npos && colon > 0) a.host = text.substr(0, colon);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("--serve", text, allowed);
  a.port = std::stoi(port);
  if (a.port > 65535) throw InputError("--serve", text, allowed);
  if (a.host.find_first_of(" /\\\"") != std::string::npos)
    throw InputError("--serve", text, allowed);
  return a;
}

struct MetricsServer::Impl {
  std::mutex mutex;
  std::string text;  // the latest pass's exposition
  // Prometheus is answered whatever other clients do: 64 workers, far more than scrapers, and
  // each connection closed 2 s after it starts without a whole request (8 workers and no such
  // deadline left /metrics unanswered 15 s behind 20 stalled connections, reliability-3 defect 8).
  GuardedHttpServer server{64, std::chrono::seconds(2)};
  std::thread thread;
  std::atomic<bool> finished{false};
};

MetricsServer::MetricsServer(const ListenAddress& address) : impl_(std::make_unique<Impl>()) {
  impl_->server.Get("/metrics",
                    [impl = impl_.get()](const httplib::Request&, httplib::Response& res) {
                      std::lock_guard<std::mutex> lock(impl->mutex);
                      res.set_content(impl->text, kPrometheusContentType);
                    });
  impl_->server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("memwall monitor: GPU metrics at /metrics (Prometheus text format)\n",
                    "text/plain; charset=utf-8");
  });
  // SO_REUSEADDR only: a restart may rebind at once, but a second monitor on a port in use fails
  // instead of sharing it (httplib's default also sets SO_REUSEPORT).
  impl_->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  if (address.port == 0) {
    port_ = impl_->server.bind_to_any_port(address.host);
  } else if (impl_->server.bind_to_port(address.host, address.port)) {
    port_ = address.port;
  } else {
    port_ = -1;
  }
  if (port_ <= 0)
    throw InfeasibleError(fmt::format("cannot listen on {}:{} (port in use, or no such address)",
                                      address.host, address.port));
  impl_->thread = std::thread([impl = impl_.get()] {
    impl->server.listen_after_bind();
    impl->finished = true;
  });
}

void MetricsServer::publish(const std::vector<GpuSample>& pass) {
  std::string text = prometheus_text(pass);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->text = std::move(text);
}

MetricsServer::~MetricsServer() {
  // httplib's stop() does nothing before the loop has started, so wait for it to start (or end).
  while (!impl_->server.is_running() && !impl_->finished)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace memwall::monitor
