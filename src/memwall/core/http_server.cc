#include "memwall/core/http_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

// cpp-httplib 0.11's Server::process_and_close_socket (read requests, answer, close), called
// without virtual dispatch. It is the one per-connection hook the library has, and it is private,
// so the override below cannot name it as `httplib::Server::process_and_close_socket`; the
// compiled library (Debian's libcpp-httplib, CMakeLists.txt) exports it under its Itanium C++ ABI
// name, and a member function takes `this` as its first argument in that ABI.
extern "C" bool httplib_server_process_and_close_socket(
    httplib::Server* server,
    socket_t sock) __asm__("_ZN7httplib6Server24process_and_close_socketEi");

namespace memwall {
namespace {
// The duplicate socket of the connection the calling worker serves (-1 outside one).
thread_local int current_connection = -1;
}  // namespace

GuardedHttpServer::GuardedHttpServer(size_t workers, std::chrono::milliseconds request_deadline)
    : deadline_(request_deadline) {
  new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  // After each answer is written, the next request on a kept-alive connection is on the clock.
  set_logger(
      [this](const httplib::Request&, const httplib::Response&) { arm(Clock::now() + deadline_); });
  watchdog_ = std::thread([this] { watch(); });
}

GuardedHttpServer::~GuardedHttpServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

void GuardedHttpServer::request_read() {
  arm(Clock::time_point::max());
}

void GuardedHttpServer::arm(Clock::time_point deadline) {
  if (current_connection < 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  connections_[current_connection].deadline = deadline;
}

void GuardedHttpServer::set_gone_flag(CancelFlag* gone) {
  if (current_connection < 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  connections_[current_connection].gone = gone;
}

GuardedHttpServer::ClientWatch::ClientWatch(GuardedHttpServer& server, CancelFlag& gone)
    : server_(server) {
  server_.set_gone_flag(&gone);
}

GuardedHttpServer::ClientWatch::~ClientWatch() {
  server_.set_gone_flag(nullptr);
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  const int guard = ::dup(sock);
  if (guard >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    connections_[guard] = Connection{Clock::now() + deadline_};
  }
  current_connection = guard;
  const bool ok = httplib_server_process_and_close_socket(this, sock);
  current_connection = -1;
  if (guard >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.erase(guard);
    ::close(guard);
  }
  return ok;
}

void GuardedHttpServer::watch() {
  // Checked 10 times per deadline (at least every 100 ms): a connection goes at most 10 % late.
  const auto period = std::min(std::chrono::milliseconds(100), deadline_ / 10);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period);
    const auto now = Clock::now();
    for (auto& [fd, connection] : connections_) {
      if (connection.gone && !connection.gone->load()) {
        // A peek that reads nothing: 0 is the client's end of stream, an error other than "no
        // data yet" a reset; bytes waiting (a pipelined request) mean it is still there.
        char byte;
        const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
          connection.gone->store(true);
      }
      if (connection.deadline > now) continue;
      // Both directions: the worker's blocked read returns at once and it closes the connection.
      ::shutdown(fd, SHUT_RDWR);
      connection.deadline = Clock::time_point::max();
    }
  }
}

}  // namespace memwall
