// An HTTP server (cpp-httplib) that no client can hold: each connection gets a deadline to send a
// whole request (from its start, or from the end of the previous answer on a kept-alive
// connection), and is shut down when it passes it, however slowly it keeps sending. cpp-httplib's
// own read timeout restarts with every byte, so a client trickling one byte a second held a worker
// for ever (ui-audit-3 D10, reliability-3 defects 8 and 19). Handling time is not limited: the
// deadline is lifted when a request has been read and its handler starts. While a handler
// computes, the same watchdog can tell it that its client has closed the connection.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "memwall/core/cancel.h"

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

  // While one lives on a handler's thread, `gone` is set (within 100 ms) once its client has
  // closed the connection (end of stream or reset where the next request would be): the answer
  // can be cancelled (core/cancel.h). A client that half-closes after sending its request counts
  // as gone; HTTP/1.1 clients (browsers, curl, Python's http.client) do not.
  class ClientWatch {
   public:
    ClientWatch(GuardedHttpServer& server, CancelFlag& gone);
    ~ClientWatch();
    ClientWatch(const ClientWatch&) = delete;
    ClientWatch& operator=(const ClientWatch&) = delete;

   private:
    GuardedHttpServer& server_;
  };

 protected:
  bool process_and_close_socket(socket_t sock) override;

 private:
  using Clock = std::chrono::steady_clock;
  struct Connection {
    Clock::time_point deadline;  // the time it must have sent its request by
    CancelFlag* gone = nullptr;  // a ClientWatch's, while one lives
  };
  void arm(Clock::time_point deadline);
  void set_gone_flag(CancelFlag* gone);
  void watch();

  std::chrono::milliseconds deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  // Each open connection by a duplicate of its socket (valid until the entry goes, so a shutdown
  // or a peek never reaches a reused descriptor).
  std::map<int, Connection> connections_;
  std::thread watchdog_;
};

}  // namespace memwall
