// The /metrics endpoint over a real loopback socket, and the --serve address syntax.
#include "memwall/monitor/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

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
