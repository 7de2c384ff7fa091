#include "memwall/ui/server.h"

#include <sys/socket.h>

#include <httplib.h>

#include <atomic>

#include "memwall/core/error.h"
#include "memwall/i18n/messages.h"
#include "memwall/ui/api.h"

namespace memwall::ui {
namespace {

// Serving limits: enough workers that 20 stalled connections leave room for real requests, a
// listen backlog far above the 5 of cpp-httplib (which gave a 1 s p99 at 20 concurrent clients),
// and timeouts that free a worker held by a client that stops sending or reading.
constexpr size_t kWorkers = 64;
constexpr int kListenBacklog = 512;
constexpr time_t kReadTimeoutS = 5, kWriteTimeoutS = 5, kKeepAliveS = 5;
constexpr size_t kMaxBodyBytes = size_t{1} << 20;

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]";
}

// "name[:port]" -> name; "[::1]:8080" -> "[::1]".
std::string host_name(const std::string& host_header) {
  if (!host_header.empty() && host_header.front() == '[') {
    const size_t end = host_header.find(']');
    return end == std::string::npos ? host_header : host_header.substr(0, end + 1);
  }
  return host_header.substr(0, host_header.find(':'));
}

// A page on another site may not use the API, even through DNS rebinding (a foreign name resolving
// to 127.0.0.1): on loopback the Host header must name loopback, and a browser's Origin, when
// sent, must be this server's own.
std::string refusal(const httplib::Request& req, bool loopback) {
  const std::string host = req.get_header_value("Host");
  if (loopback && !is_loopback(host_name(host)))
    return "Host '" + host + "' is not this local server (use http://127.0.0.1 or http://localhost)";
  if (req.has_header("Origin")) {
    const std::string origin = req.get_header_value("Origin");
    if (origin != "http://" + host) return "Origin '" + origin + "' may not use this local server";
  }
  return {};
}

void send_error(httplib::Response& res, int status, const std::string& message, i18n::Lang lang = i18n::Lang::en) {
  res.status = status;
  res.set_content(Json{{"error", i18n::localize(message, lang)}}.dump(), "application/json");
}

// Text for a <script> element: every `end` (which would close it early, "</" or "</script") begins
// "<\/" instead, the same string to JavaScript inside a string literal.
std::string script_safe(std::string text, const std::string& end) {
  for (size_t i = text.find(end); i != std::string::npos; i = text.find(end, i + 2)) text.replace(i, 2, "<\\/");
  return text;
}
std::string script_safe(const Json& value) { return script_safe(value.dump(), "</"); }

// `html` with `script` put in just before the page's own script.
std::string insert_script(std::string html, const std::string& script) {
  const std::string marker = "<script>\n\"use strict\";";
  const size_t at = html.find(marker);
  if (at == std::string::npos) return script + html;
  return html.insert(at, script);
}

// The default request of each view of the page (the fields the page starts with).
const std::vector<std::pair<std::string, Json>>& default_requests() {
  static const std::vector<std::pair<std::string, Json>> requests{
      {"catalog", Json::object()},
      {"infer", Json{{"sweep", "1,2,4,8,16,32,64,128,256"}}},
      {"train", Json{{"tokens", 1e12}}},
      {"plan", Json::object()},
      {"simulate", Json::object()},
      {"net", Json{{"nodes", 2}}},
      {"compare", Json{{"gpus", {"h100", "h200", "b200", "mi300x", "gaudi3", "910c", "l40s"}}}},
  };
  return requests;
}

}  // namespace

struct Server::Impl {
  const Catalog& catalog;
  httplib::Server http;
  std::atomic<int> socket{-1};  // the listening socket, seen by the socket-options hook
  bool loopback = true;
  explicit Impl(const Catalog& c) : catalog(c) {}
};

Server::Server(const Catalog& catalog) : impl_(new Impl(catalog)) {
  auto& http = impl_->http;
  const Catalog& c = catalog;
  http.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  http.set_read_timeout(kReadTimeoutS);
  http.set_write_timeout(kWriteTimeoutS);
  http.set_keep_alive_timeout(kKeepAliveS);
  http.set_payload_max_length(kMaxBodyBytes);
  // Headers and body go out in separate writes: with Nagle's algorithm the body waits for the
  // client's delayed ACK (40 ms on Linux) on every keep-alive request.
  http.set_tcp_nodelay(true);
  // SO_REUSEADDR only: a restart may rebind at once, but a second server on a port in use fails
  // instead of splitting its traffic (cpp-httplib's default also sets SO_REUSEPORT).
  http.set_socket_options([impl = impl_](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    impl->socket = sock;
  });
  http.set_pre_routing_handler([impl = impl_](const httplib::Request& req, httplib::Response& res) {
    const std::string why = refusal(req, impl->loopback);
    if (why.empty()) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, 403, why);
    return httplib::Server::HandlerResponse::Handled;
  });
  http.Get("/", [page = served_page()](const httplib::Request&, httplib::Response& res) {
    res.set_content(page, "text/html; charset=utf-8");
  });
  http.Get("/vendor/echarts.min.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "max-age=86400");
    res.set_content(std::string(charts_library()), "text/javascript; charset=utf-8");
  });
  http.Get("/vendor/echarts-LICENSE.txt", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(charts_licence()), "text/plain; charset=utf-8");
  });
  http.Post(R"(/api/([a-z]+))", [&c](const httplib::Request& req, httplib::Response& res) {
    const std::string endpoint = req.matches[1];
    i18n::Lang lang = i18n::Lang::en;
    if (req.has_param("lang")) {
      const auto asked = i18n::parse_lang(req.get_param_value("lang"));
      if (!asked) return send_error(res, 400, InputError("lang", req.get_param_value("lang"), "en, zh").what());
      lang = *asked;
    }
    try {
      const Json body = req.body.empty() ? Json::object() : Json::parse(req.body);
      Json answer = handle(c, endpoint, body);
      i18n::localize_strings(answer, lang);
      res.set_content(answer.dump(), "application/json");
    } catch (const Json::parse_error& e) {
      send_error(res, 400, std::string("request body: not JSON: ") + e.what(), lang);
    } catch (const InputError& e) {
      send_error(res, 400, e.what(), lang);
    } catch (const InfeasibleError& e) {
      send_error(res, 422, e.what(), lang);
    }
  });
}

Server::~Server() { delete impl_; }

void Server::run(const std::string& host, int port, const std::function<void(int)>& on_ready) {
  auto& http = impl_->http;
  impl_->loopback = is_loopback(host);
  const int bound = port == 0 ? http.bind_to_any_port(host.c_str()) : (http.bind_to_port(host.c_str(), port) ? port : -1);
  // Any free port binds on a local address, so a failure with port 0 is the address's.
  if (bound <= 0 && port == 0)
    throw InputError("--host", host,
                     "an address of this machine to listen on (this one cannot be bound)");
  if (bound <= 0)
    throw InputError("--port", std::to_string(port),
                     "a TCP port not in use on " + host + " (another server holds it, or " + host +
                         " is not an address of this machine)");
  // Listening again on a listening socket only changes its backlog (Linux listen(2)).
  if (impl_->socket >= 0) ::listen(impl_->socket, kListenBacklog);
  if (on_ready) on_ready(bound);
  http.listen_after_bind();
}

void Server::stop() { impl_->http.stop(); }

Json default_answers(const Catalog& catalog) {
  Json en = Json::object();
  for (const auto& [endpoint, request] : default_requests()) en[endpoint] = handle(catalog, endpoint, request);
  Json zh = en;
  i18n::localize_strings(zh, i18n::Lang::zh);
  zh["catalog"] = en["catalog"];
  return Json{{"en", en}, {"zh", zh}};
}

std::string served_page() {
  return insert_script(std::string(page()),
                       "<script>window.MEMWALL_MESSAGES = " + script_safe(i18n::page_messages()) + ";</script>\n");
}

std::string static_report(const Json& answers) {
  std::string html = insert_script(std::string(page()), "<script>window.MEMWALL_MESSAGES = " +
                                                            script_safe(i18n::page_messages()) +
                                                            ";\nwindow.MEMWALL_PRELOAD = " +
                                                            script_safe(Json{{"answers", answers}}) + ";</script>\n");
  // The chart library inline, so the report needs no server. A "</script" in its text (none in
  // ECharts 6.1, but it could come in a string literal) is written "<\/script", the same string.
  const std::string charts = script_safe(std::string(charts_library()), "</script");
  const std::string tag = "<script src=\"vendor/echarts.min.js\"></script>";
  const size_t at = html.find(tag);
  if (at != std::string::npos) html.replace(at, tag.size(), "<script>" + charts + "</script>");
  return html;
}

}  // namespace memwall::ui
