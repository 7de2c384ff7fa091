// Test support: a fake Prometheus HTTP API on a loopback port (cpp-httplib, background thread)
// answering /api/v1/query and /api/v1/query_range with recorded bodies, and the recordings of
// src/memwall/monitor/testdata (see README.md there).
#pragma once

#include <httplib.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>

#include "memwall/core/test_paths.h"

namespace memwall::monitor::fixtures {

inline std::string testdata(const std::string& name) {
  std::ifstream in(memwall::test::source_dir() + "/src/memwall/monitor/testdata/" + name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class FakePrometheus {
 public:
  // Answers `instant` and `range` with HTTP `status`, after `delay`.
  FakePrometheus(std::string instant, std::string range, int status = 200,
                 std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : instant_(std::move(instant)), range_(std::move(range)) {
    auto answer = [this, status, delay](const std::string& body) {
      return [this, status, delay, &body](const httplib::Request& req, httplib::Response& res) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          last_query_ = req.get_param_value("query");
          last_step_ = req.get_param_value("step");
          ++requests_;
        }
        std::this_thread::sleep_for(delay);
        res.status = status;
        res.set_content(body, "application/json");
      };
    };
    server_.Get("/api/v1/query", answer(instant_));
    server_.Get("/api/v1/query_range", answer(range_));
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs is lost (cpp-httplib 0.11): wait for it.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string last_query() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_query_;
  }
  std::string last_step() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_step_;
  }
  int requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  std::string instant_, range_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::string last_query_, last_step_;
  int requests_ = 0;
};

}  // namespace memwall::monitor::fixtures
