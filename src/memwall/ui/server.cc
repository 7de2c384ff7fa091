#include "memwall/ui/server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <malloc.h>
#include <sys/socket.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <semaphore>
#include <string_view>
#include <thread>

#include "memwall/core/error.h"
#include "memwall/core/http_server.h"
#include "memwall/i18n/messages.h"
#include "memwall/ui/api.h"

namespace memwall::ui {
namespace {

// Serving limits: a listen backlog far above the 5 of cpp-httplib (which gave a 1 s p99 at 20
// concurrent clients), and timeouts that free a worker held by a client that stops sending or
// reading (ServerLimits's deadline closes one that trickles).
constexpr int kListenBacklog = 512;
constexpr time_t kReadTimeoutS = 5, kWriteTimeoutS = 5, kKeepAliveS = 5;

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

// JSON as sent: a string that is not valid UTF-8 (a request's bytes quoted in a message) has the
// bad bytes replaced by U+FFFD instead of throwing (which gave an empty 500, ui-audit-3 D11).
std::string json_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void send_error(httplib::Response& res, int status, const std::string& message, i18n::Lang lang = i18n::Lang::en) {
  res.status = status;
  res.set_content(json_text(Json{{"error", i18n::localize(message, lang)}}), "application/json");
}

// The page and the chart library gzip-compressed once per process (zlib's best level: 1.1 MB of
// ECharts in about 0.1 s, once), sent to clients that accept gzip. Nothing is compressed per
// request: cpp-httplib compresses every text and JSON answer with Brotli at its maximum quality,
// which cost 3.7 s for the chart library and 88 ms instead of 5.5 ms for an inference answer on
// loopback (ui-audit-3 D3).
std::string gzip(std::string_view text) {
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper (zlib.h, deflateInit2).
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return {};
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const bool done = deflate(&z, Z_FINISH) == Z_STREAM_END;
  out.resize(z.total_out);
  deflateEnd(&z);
  return done ? out : std::string();
}

struct StaticFile {
  std::string identity, gzipped;
  explicit StaticFile(std::string text) : identity(std::move(text)), gzipped(gzip(identity)) {}
};

const StaticFile& charts_file() {
  static const StaticFile file{std::string(charts_library())};
  return file;
}

// The header serve_static reads: the client accepts gzip.
constexpr const char* kAcceptsGzip = "Memwall-Accepts-Gzip";

// Takes the Accept-Encoding header off the request, so that cpp-httplib (which compresses after
// the handler, from that header) compresses nothing on the fly, and notes whether it accepted gzip
// as kAcceptsGzip. The request object is the server's own non-const one (the handler API hands it
// out const).
void take_accept_encoding(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  bool gzip_ok = false;
  for (auto [it, end] = headers.equal_range("Accept-Encoding"); it != end; ++it)
    gzip_ok = gzip_ok || it->second.find("gzip") != std::string::npos;
  headers.erase("Accept-Encoding");
  headers.erase(kAcceptsGzip);
  if (gzip_ok) headers.emplace(kAcceptsGzip, "1");
}

void serve_static(const httplib::Request& req, httplib::Response& res, const StaticFile& file,
                  const char* content_type) {
  res.set_header("Vary", "Accept-Encoding");
  if (req.has_header(kAcceptsGzip) && !file.gzipped.empty()) {
    res.set_header("Content-Encoding", "gzip");
    res.set_content(file.gzipped, content_type);
  } else {
    res.set_content(file.identity, content_type);
  }
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
      // The page's day of demand (ui/index.html, view "fleet").
      {"fleet", Json{{"model", "llama-3.1-70b"},
                     {"rates", "30.0,25.9,22.7,20.7,20.0,20.7,22.7,25.9,30.0,34.8,40.0,45.2,50.0,54.1,57.3,59.3,60.0,59.3,57.3,54.1,50.0,45.2,40.0,34.8"},
                     {"input", "1024"},
                     {"output", "256"},
                     {"availability", 0.999},
                     {"months", 1},
                     {"check_requests", 1000}}},
  };
  return requests;
}

}  // namespace

struct Server::Impl {
  const Catalog& catalog;
  const ApiOptions options;
  const StaticFile page{served_page(catalog, options)};  // compressed before the first client waits for it
  GuardedHttpServer http;
  // Answers computed at once: the cores there are (a plan holds ~85 MB while it runs, and 64
  // running at once grew the server past 2 GB, ui-audit-3 D7); further requests wait their turn.
  std::counting_semaphore<> computing{std::max(2u, std::thread::hardware_concurrency())};
  std::atomic<int> socket{-1};  // the listening socket, seen by the socket-options hook
  bool loopback = true;
  Impl(const Catalog& c, const ServerLimits& limits, ApiOptions o)
      : catalog(c), options(std::move(o)), http(limits.workers, std::chrono::seconds(limits.request_deadline_s)) {}
};

namespace {

// One answer's turn to compute. Leaving it, the memory the answer freed goes back to the system:
// glibc keeps freed blocks in its per-thread arenas, so RSS grew with every plan (40 -> 165 MB
// after 30 plans, ui-audit-3 D7; malloc_trim(3) releases the free memory of every arena).
class ComputeTurn {
 public:
  explicit ComputeTurn(std::counting_semaphore<>& slots) : slots_(slots) { slots_.acquire(); }
  ~ComputeTurn() {
    malloc_trim(0);
    slots_.release();
  }
  ComputeTurn(const ComputeTurn&) = delete;
  ComputeTurn& operator=(const ComputeTurn&) = delete;

 private:
  std::counting_semaphore<>& slots_;
};

// A POST body read up to the limit, whatever its framing: cpp-httplib bounds Content-Length
// bodies only, so a chunked one ran to 50 MB and 50 s of one worker (ui-audit-3 D9). Returns the
// HTTP status of a refusal, 0 when read.
int read_body(const httplib::ContentReader& reader, httplib::Response& res, std::string& body) {
  bool too_large = false;
  const bool read = reader([&](const char* data, size_t size) {
    too_large = body.size() + size > kMaxRequestBytes;
    if (!too_large) body.append(data, size);
    return !too_large;
  });
  if (read) return 0;
  return too_large || res.status == 413 ? 413 : 400;
}

}  // namespace

Server::Server(const Catalog& catalog, ServerLimits limits, ApiOptions options)
    : impl_(new Impl(catalog, limits, std::move(options))) {
  auto& http = impl_->http;
  http.set_read_timeout(kReadTimeoutS);
  http.set_write_timeout(kWriteTimeoutS);
  http.set_keep_alive_timeout(kKeepAliveS);
  http.set_payload_max_length(kMaxRequestBytes);
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
    take_accept_encoding(req);
    const std::string why = refusal(req, impl->loopback);
    if (why.empty()) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, 403, why);
    return httplib::Server::HandlerResponse::Handled;
  });
  // A handler that throws anything else (std::bad_alloc) answers 500 with a JSON message, not an
  // empty body with the exception's text in an EXCEPTION_WHAT header.
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        send_error(res, 500,
                   "internal error: the request could not be answered (the server is still up)");
      });
  (void)charts_file();  // compressed before the first client waits for it
  http.Get("/", [impl = impl_](const httplib::Request& req, httplib::Response& res) {
    serve_static(req, res, impl->page, "text/html; charset=utf-8");
  });
  http.Get("/vendor/echarts.min.js", [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Cache-Control", "max-age=86400");
    serve_static(req, res, charts_file(), "text/javascript; charset=utf-8");
  });
  http.Get("/vendor/echarts-LICENSE.txt", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(charts_licence()), "text/plain; charset=utf-8");
  });
  http.Post(R"(/api/([a-z]+))", [impl = impl_](const httplib::Request& req, httplib::Response& res,
                                               const httplib::ContentReader& reader) {
    std::string body;
    if (const int refused = read_body(reader, res, body)) {
      res.set_header("Connection", "close");
      return send_error(res, refused,
                        refused == 413 ? fmt::format("request body: larger than the {} byte limit",
                                                     kMaxRequestBytes)
                                       : std::string("request body: incomplete or badly framed"));
    }
    impl->http.request_read();  // read in time; the answer may take longer (a plan: seconds)
    const std::string endpoint = req.matches[1];
    i18n::Lang lang = i18n::Lang::en;
    if (req.has_param("lang")) {
      const auto asked = i18n::parse_lang(req.get_param_value("lang"));
      if (!asked)
        return send_error(res, 400,
                          InputError("lang", req.get_param_value("lang"), "en, zh").what());
      lang = *asked;
    }
    try {
      const Json request = parse_request_body(body);
      Json answer;
      {
        // A plan or a simulation whose client has gone stops at its next checkpoint instead of
        // holding a worker and a compute turn to the end (a 2 s plan for nobody).
        CancelFlag gone{false};
        const GuardedHttpServer::ClientWatch watch(impl->http, gone);
        const ComputeTurn turn(impl->computing);
        answer = handle(impl->catalog, endpoint, request, &gone, impl->options);
      }
      i18n::localize_strings(answer, lang);
      res.set_content(json_text(answer), "application/json");
    } catch (const InputError& e) {
      send_error(res, 400, e.what(), lang);
    } catch (const InfeasibleError& e) {
      send_error(res, 422, e.what(), lang);
    } catch (const Cancelled&) {
      // Nobody reads this (the client closed its connection): 499 as nginx logs a request whose
      // client closed it, and the connection is closed.
      res.status = 499;
      res.set_header("Connection", "close");
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

Json default_answers(const Catalog& catalog, const ApiOptions& options) {
  Json en = Json::object();
  for (const auto& [endpoint, request] : default_requests())
    en[endpoint] = handle(catalog, endpoint, request, nullptr, options);
  Json zh = en;
  i18n::localize_strings(zh, i18n::Lang::zh);
  zh["catalog"] = en["catalog"];
  return Json{{"en", en}, {"zh", zh}};
}

std::string served_page(const Catalog& catalog, const ApiOptions& options) {
  return insert_script(
      std::string(page()),
      "<script>window.MEMWALL_MESSAGES = " + script_safe(i18n::page_messages()) +
          ";\nwindow.MEMWALL_CATALOG = " + script_safe(handle(catalog, "catalog", Json::object(), nullptr, options)) +
          ";</script>\n");
}

std::string static_report(const Json& answers) {
  std::string html = insert_script(std::string(page()), "<script>window.MEMWALL_MESSAGES = " +
                                                            script_safe(i18n::page_messages()) +
                                                            ";\nwindow.MEMWALL_PRELOAD = " +
                                                            script_safe(Json{{"answers", answers}}) + ";</script>\n");
  // The chart library inline, so the report needs no server. A "</script" in its text (none in
  // ECharts 6.1, but it could come in a string literal) is written "<\/script", the same string.
  const std::string charts = script_safe(std::string(charts_library()), "</script");
  // The served page fetches it after its first answer (ui/index.html loadCharts); the report has
  // it in place of that placeholder.
  const std::string tag = "<script id=\"charts-library\" data-src=\"vendor/echarts.min.js\"></script>";
  const size_t at = html.find(tag);
  if (at != std::string::npos)
    html.replace(at, tag.size(), "<script id=\"charts-library\">" + charts + "</script>");
  return html;
}

}  // namespace memwall::ui
