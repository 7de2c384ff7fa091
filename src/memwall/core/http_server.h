// An HTTP server (cpp-httplib) that no client can hold: each connection gets a deadline to send a
// whole request (from its start, or from the end of the previous answer on a kept-alive
// connection), and is shut down when it passes it, however slowly it keeps sending. cpp-httplib's
// own read timeout restarts with every byte, so a client trickling one byte a second held a worker
// for ever (ui-audit-3 D10, reliability-3 defects 8 and 19). Handling time is not limited: the
// deadline is lifted when a request has been read and its handler starts.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace memwall {

class GuardedHttpServer : public httplib::Server {
 public:
  GuardedHttpServer(size_t workers, std::chrono::milliseconds request_deadline);
  ~GuardedHttpServer() override;
  GuardedHttpServer(const GuardedHttpServer&) = delete;
  GuardedHttpServer& operator=(const GuardedHttpServer&) = delete;

  // Call from a handler's thread (a pre-routing handler does) when a request has been read: its
  // connection is no longer on the clock until the answer has been written.
  void request_read();

 protected:
  bool process_and_close_socket(socket_t sock) override;

 private:
  using Clock = std::chrono::steady_clock;
  void arm(Clock::time_point deadline);
  void watch();

  std::chrono::milliseconds deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  // Each open connection: a duplicate of its socket (valid until the entry goes, so a shutdown
  // never reaches a reused descriptor) and the time it must have sent its request by.
  std::map<int, Clock::time_point> connections_;
  std::thread watchdog_;
};

}  // namespace memwall
