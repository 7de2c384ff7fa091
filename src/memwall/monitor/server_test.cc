// The /metrics endpoint over a real loopback socket, and the --serve address syntax.
#include "memwall/monitor/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "memwall/core/error.h"
#include "memwall/monitor/prometheus.h"
#include "memwall/monitor/test_samples.h"

namespace memwall::monitor {
namespace {

// A minimal HTTP/1.0 GET over loopback: the whole response, headers included.
std::string http_get(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req = "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, size_t(n));
    }
  }
  close(fd);
  return out;
}

TEST(MonitorServer, ServesThePrometheusTextAtMetrics) {
  MetricsServer server({"127.0.0.1", 0});
  EXPECT_NE(http_get(server.port(), "/metrics").find("Content-Length: 0"), std::string::npos);
  server.publish({fixtures::h100_sample()});
  const std::string text = prometheus_text({fixtures::h100_sample()});
  ASSERT_GT(server.port(), 0);
  const std::string res = http_get(server.port(), "/metrics");
  ASSERT_NE(res.find("200 OK"), std::string::npos) << res;
  EXPECT_NE(res.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << res;
  const auto body = res.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(res.substr(body + 4), text);
  EXPECT_NE(http_get(server.port(), "/nothing").find("404"), std::string::npos);
  // The port is taken now: a second server there cannot start.
  EXPECT_THROW(MetricsServer({"127.0.0.1", server.port()}), InfeasibleError);
}

// Prometheus is answered within 1 s whatever other clients do (reliability-3 defect 8: 8 workers,
// so 20 connections that sent half a request left /metrics unanswered for 15 s).
TEST(MonitorServer, StalledClientsDoNotBlindTheScrape) {
  MetricsServer server({"127.0.0.1", 0});
  server.publish({fixtures::h100_sample()});
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<int> stalled;
  for (int i = 0; i < 20; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string half = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    send(fd, half.data(), half.size(), MSG_NOSIGNAL);
    stalled.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // all 20 hold a worker
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(http_get(server.port(), "/metrics").find("200 OK"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  for (int fd : stalled) close(fd);
}

TEST(MonitorServer, ListenAddressSyntax) {
  const auto a = parse_listen_address(":9400");
  EXPECT_EQ(a.host, "0.0.0.0");
  EXPECT_EQ(a.port, 9400);
  const auto b = parse_listen_address("127.0.0.1:0");
  EXPECT_EQ(b.host, "127.0.0.1");
  EXPECT_EQ(b.port, 0);
  EXPECT_EQ(parse_listen_address("9100").port, 9100);
  for (const char* bad : {"", ":", ":65536", ":-1", ":94x0", "host:", ":123456"})
    EXPECT_THROW(parse_listen_address(bad), InputError) << bad;
}

}  // namespace
}  // namespace memwall::monitor
