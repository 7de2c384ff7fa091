// End to end against a real Prometheus (the Debian package `prometheus`; the test is skipped when
// its binary is not found, and carries the CTest label `prometheus`): Prometheus on a loopback port
// scrapes `memwall monitor --serve` on the fake NVIDIA driver library and static servers answering
// the recorded dcgm-exporter and vLLM 0.10 expositions (src/memwall/monitor/testdata); after two
// scrapes of each, `memwall monitor --prometheus` with the advisor reads them back and must name
// the same wall for both GPU sources and read the vLLM gauges as written. Every process and file
// the test started or wrote is stopped or removed, also when an assertion fails (the guards below
// run in their destructors).
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "memwall/core/test_paths.h"
#include "memwall/monitor/fake_prometheus.h"

namespace {

using namespace std::chrono_literals;

// The path of the prometheus binary: $MEMWALL_PROMETHEUS, else the one on PATH; empty if none.
std::string prometheus_binary() {
  if (const char* p = std::getenv("MEMWALL_PROMETHEUS")) return p;
  FILE* f = popen("command -v prometheus 2>/dev/null", "r");
  if (!f) return "";
  std::array<char, 512> buf{};
  std::string out = fgets(buf.data(), buf.size(), f) ? buf.data() : "";
  pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(a.sin_port);
}

// A directory removed with everything in it when the guard goes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "memwall-prom-XXXXXX").string();
    path = mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

// A child process (its own process group) stopped with SIGTERM, then SIGKILL after 5 s.
class Child {
 public:
  Child(std::vector<std::string> argv, const std::filesystem::path& log) {
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      std::freopen(log.c_str(), "w", stdout);
      std::freopen(log.c_str(), "a", stderr);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~Child() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(50ms);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

// Serves one file at /metrics on a loopback port.
class StaticExposition {
 public:
  explicit StaticExposition(std::string text) : text_(std::move(text)) {
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(text_, "text/plain; version=0.0.4");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~StaticExposition() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  std::string text_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

// The number of samples Prometheus holds over the last minute for `metric` (0 when none yet).
double samples_of(int prometheus_port, const std::string& metric) {
  httplib::Client c("127.0.0.1", prometheus_port);
  c.set_connection_timeout(1, 0);
  c.set_read_timeout(2, 0);
  auto r = c.Get("/api/v1/query?query=" +
                 httplib::detail::encode_query_param("min(count_over_time(" + metric + "[1m]))"));
  if (!r || r->status != 200) return 0;
  const auto j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded() || j["data"]["result"].empty()) return 0;
  return std::stod(j["data"]["result"][0]["value"][1].get<std::string>());
}

std::string run_capture(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

TEST(MonitorPrometheusIntegration, RealPrometheusScrapesBothSourcesAndTheAdvisorAgrees) {
  const std::string prometheus = prometheus_binary();
  if (prometheus.empty() || access(prometheus.c_str(), X_OK) != 0)
    GTEST_SKIP() << "no prometheus binary (apt-get install prometheus, or set MEMWALL_PROMETHEUS)";
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  StaticExposition dcgm(memwall::monitor::fixtures::testdata("dcgm-exporter-4.5.3-4.8.2.prom"));
  StaticExposition vllm(memwall::monitor::fixtures::testdata("vllm-0.10.prom"));
  const int exporter_port = free_port(), prometheus_port = free_port();
  ASSERT_GT(exporter_port, 0);
  ASSERT_GT(prometheus_port, 0);
  // One pass a second: the fake driver's DRAM reading rises a point per GPM sample from 70 %,
  // so the minute this test takes stays below 100 %.
  Child exporter({memwall::test::memwall_binary(), "monitor", "--serve",
                  "127.0.0.1:" + std::to_string(exporter_port), "--interval-ms", "1000",
                  "--duration", "120", "--nvml-library", memwall::test::fake_nvml_library()},
                 dir.path / "exporter.log");
  std::ofstream(dir.path / "prometheus.yml")
      << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
      << "  - job_name: memwall\n    static_configs: [{targets: ['127.0.0.1:" << exporter_port
      << "']}]\n  - job_name: dcgm\n    static_configs: [{targets: ['127.0.0.1:" << dcgm.port()
      << "']}]\n  - job_name: vllm\n    static_configs: [{targets: ['127.0.0.1:" << vllm.port()
      << "']}]\n";
  Child server({prometheus, "--config.file=" + (dir.path / "prometheus.yml").string(),
                "--storage.tsdb.path=" + (dir.path / "tsdb").string(),
                "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port)},
               dir.path / "prometheus.log");

  // Two scrapes of each source.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline &&
         (samples_of(prometheus_port, "memwall_gpu_dram_bandwidth_utilization_ratio") < 2 ||
          samples_of(prometheus_port, "DCGM_FI_PROF_DRAM_ACTIVE") < 2 ||
          samples_of(prometheus_port, "vllm:num_requests_running") < 2)) {
    ASSERT_TRUE(server.running()) << "prometheus exited; see its log";
    ASSERT_TRUE(exporter.running()) << "memwall monitor --serve exited";
    std::this_thread::sleep_for(250ms);
  }
  ASSERT_GE(samples_of(prometheus_port, "memwall_gpu_dram_bandwidth_utilization_ratio"), 2);
  ASSERT_GE(samples_of(prometheus_port, "DCGM_FI_PROF_DRAM_ACTIVE"), 2);
  ASSERT_GE(samples_of(prometheus_port, "vllm:num_requests_running"), 2);

  int status = -1;
  const std::string out =
      run_capture(memwall::test::memwall_binary() + " monitor --prometheus http://127.0.0.1:" +
                      std::to_string(prometheus_port) + " --window 1m --advise --json 2>&1",
                  status);
  ASSERT_EQ(status, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["gpus"].size(), 4u) << out;
  std::map<std::string, std::set<std::string>> walls;  // source -> walls of its GPUs
  for (const auto& g : j["gpus"]) {
    ASSERT_EQ(g["sources"].size(), 1u);
    walls[g["sources"][0]].insert(g["advice"]["wall"].get<std::string>());
    EXPECT_GE(g["samples"].get<int>(), 2) << g.dump();
  }
  EXPECT_EQ(walls["memwall"], std::set<std::string>{"memory-bandwidth"}) << out;
  EXPECT_EQ(walls["dcgm-exporter"], walls["memwall"]) << out;
  // Per job: dcgm's pod labels make one job, memwall's unlabelled GPUs another; same wall.
  ASSERT_EQ(j["jobs"].size(), 2u);
  EXPECT_EQ(j["jobs"][0]["advice"]["wall"], j["jobs"][1]["advice"]["wall"]);
  // The recorded vLLM 0.10 exposition, a static target: its gauges read back as written (the end
  // of the fixture's window); its counters stand still, so the rates are 0 and the histograms
  // have no observations in the window: their means and quantiles are unknown, not 0.
  ASSERT_EQ(j["engines"].size(), 1u) << out;
  const auto& e = j["engines"][0];
  EXPECT_EQ(e["engine"], "vllm");
  EXPECT_EQ(e["model"], "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_DOUBLE_EQ(e["running_requests_mean"].get<double>(), 24);
  EXPECT_DOUBLE_EQ(e["kv_cache_usage_ratio_mean"].get<double>(), 0.35);
  EXPECT_NE(std::find(e["names"].begin(), e["names"].end(), "vllm:kv_cache_usage_perc"),
            e["names"].end());
  EXPECT_DOUBLE_EQ(e["generation_tokens_per_s"].get<double>(), 0);
  EXPECT_TRUE(e["inter_token"]["mean_s"].is_null());
  EXPECT_TRUE(e["inter_token"]["p99_s"].is_null());
}

}  // namespace
