#include "memwall/ui/server.h"

#include <httplib.h>

#include "memwall/core/error.h"
#include "memwall/ui/api.h"

namespace memwall::ui {

struct Server::Impl {
  const Catalog& catalog;
  httplib::Server http;
  explicit Impl(const Catalog& c) : catalog(c) {}
};

Server::Server(const Catalog& catalog) : impl_(new Impl(catalog)) {
  auto& http = impl_->http;
  const Catalog& c = catalog;
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(page()), "text/html; charset=utf-8");
  });
  http.Post(R"(/api/([a-z]+))", [&c](const httplib::Request& req, httplib::Response& res) {
    const std::string endpoint = req.matches[1];
    try {
      const Json body = req.body.empty() ? Json::object() : Json::parse(req.body);
      res.set_content(handle(c, endpoint, body).dump(), "application/json");
    } catch (const Json::parse_error& e) {
      res.status = 400;
      res.set_content(Json{{"error", std::string("request body: not JSON: ") + e.what()}}.dump(), "application/json");
    } catch (const InputError& e) {
      res.status = 400;
      res.set_content(Json{{"error", e.what()}}.dump(), "application/json");
    } catch (const InfeasibleError& e) {
      res.status = 422;
      res.set_content(Json{{"error", e.what()}}.dump(), "application/json");
    }
  });
}

Server::~Server() { delete impl_; }

void Server::run(const std::string& host, int port, const std::function<void(int)>& on_ready) {
  auto& http = impl_->http;
  const int bound = port == 0 ? http.bind_to_any_port(host.c_str()) : (http.bind_to_port(host.c_str(), port) ? port : -1);
  if (bound <= 0) throw InputError("--port", std::to_string(port), "a free TCP port on " + host);
  if (on_ready) on_ready(bound);
  http.listen_after_bind();
}

void Server::stop() { impl_->http.stop(); }

Json default_answers(const Catalog& catalog) {
  return Json{{"catalog", handle(catalog, "catalog", Json::object())},
              {"infer", handle(catalog, "infer", Json::object())},
              {"plan", handle(catalog, "plan", Json::object())},
              {"net", handle(catalog, "net", Json::object())},
              {"simulate", handle(catalog, "simulate", Json::object())}};
}

std::string static_report(const Json& answers) {
  std::string json = answers.dump();
  // "</" inside a <script> would end it early; "<\/" is the same string to JavaScript.
  for (size_t i = json.find("</"); i != std::string::npos; i = json.find("</", i + 2)) json.replace(i, 2, "<\\/");
  std::string html(page());
  const std::string marker = "<script>\n\"use strict\";";
  const size_t at = html.find(marker);
  const std::string preload = "<script>window.MEMWALL_PRELOAD = " + json + ";</script>\n";
  if (at == std::string::npos) return preload + html;
  return html.insert(at, preload);
}

}  // namespace memwall::ui
