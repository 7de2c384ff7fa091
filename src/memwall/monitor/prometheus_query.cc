#include "memwall/monitor/prometheus_query.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "memwall/core/document.h"
#include "memwall/core/error.h"

namespace memwall::monitor {
namespace {

// Bounds against corrupt or hostile answers only: far above any fleet memwall advises on.
constexpr size_t kMaxSeries = 200'000;
constexpr size_t kMaxLabelChars = 1024;

std::string shown(const Json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

const Json& member(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object()) throw InputError(where, shown(j), "a JSON object");
  const auto it = j.find(key);
  if (it == j.end())
    throw InputError(where + "." + key, "missing", "present in a Prometheus API answer");
  return *it;
}

double timestamp(const Json& v, const std::string& where) {
  // The API writes sample times as numbers of Unix seconds (with a fraction).
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw InputError(where, shown(v), "Unix seconds (a non-negative number)");
  return v.get<double>();
}

std::pair<double, double> sample(const Json& v, const std::string& where) {
  if (!v.is_array() || v.size() != 2 || !v[1].is_string())
    throw InputError(where, shown(v), "[time, \"value\"] (the value a string)");
  return {timestamp(v[0], where + "[0]"),
          parse_sample_value(v[1].get<std::string>(), where + "[1]")};
}

PromSeries series(const Json& r, bool matrix, const std::string& where) {
  PromSeries s;
  const Json& metric = member(r, "metric", where);
  if (!metric.is_object()) throw InputError(where + ".metric", shown(metric), "a label object");
  for (const auto& [k, v] : metric.items()) {
    if (!v.is_string() || k.size() > kMaxLabelChars || v.get<std::string>().size() > kMaxLabelChars)
      throw InputError(where + ".metric." + k, shown(v),
                       fmt::format("a string label of at most {} characters", kMaxLabelChars));
    s.labels[k] = v.get<std::string>();
  }
  if (matrix) {
    const Json& values = member(r, "values", where);
    if (!values.is_array()) throw InputError(where + ".values", shown(values), "an array");
    s.points.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      s.points.push_back(sample(values[i], fmt::format("{}.values[{}]", where, i)));
  } else {
    s.points.push_back(sample(member(r, "value", where), where + ".value"));
  }
  return s;
}

struct Endpoint {
  std::string scheme_host_port, prefix;
};

Endpoint parse_url(const std::string& url) {
  static const std::regex re(
      R"(^(https?://[A-Za-z0-9.\-]+|https?://\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[^?#\s]*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, re))
    throw InputError("--prometheus", url,
                     "http://HOST[:PORT][/PATH] or https://... (the Prometheus server, e.g. "
                     "http://localhost:9090)");
  Endpoint e{m[1].str() + m[2].str(), m[3].str()};
  while (!e.prefix.empty() && e.prefix.back() == '/') e.prefix.pop_back();
  return e;
}

std::string format_time(double t) {
  return fmt::format("{:.3f}", t);
}

}  // namespace

double parse_sample_value(const std::string& text, const std::string& where) {
  // Prometheus writes floats with Go's strconv.FormatFloat: decimal or exponent, NaN, +Inf, -Inf.
  if (text == "NaN") return std::nan("");
  if (text == "+Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  static const std::regex number(R"(^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$)");
  if (text.size() > 64 || !std::regex_match(text, number))
    throw InputError(where, text, "a number as a string: decimal, \"NaN\", \"+Inf\" or \"-Inf\"");
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v))
    throw InputError(where, text, "a finite number, \"NaN\", \"+Inf\" or \"-Inf\"");
  return v;
}

std::vector<PromSeries> parse_query_response(std::string_view body, const std::string& where) {
  Json j;
  try {
    j = Json::parse(body);
  } catch (const Json::parse_error&) {
    throw InputError(where, std::string(body.substr(0, 40)), "a JSON answer of the Prometheus API");
  }
  const Json& status = member(j, "status", where);
  if (status == "error") {
    const auto type = j.value("errorType", std::string("error"));
    const auto error = j.value("error", std::string("(no message)"));
    throw InputError(fmt::format("{}: Prometheus answered {}: {}", where, type, error));
  }
  if (status != "success") throw InputError(where + ".status", shown(status), "\"success\"");
  const Json& data = member(j, "data", where);
  const Json& type = member(data, "resultType", where + ".data");
  if (type != "vector" && type != "matrix")
    throw InputError(where + ".data.resultType", shown(type),
                     "\"vector\" or \"matrix\" (a query selecting series)");
  const Json& result = member(data, "result", where + ".data");
  if (!result.is_array()) throw InputError(where + ".data.result", shown(result), "an array");
  if (result.size() > kMaxSeries)
    throw InfeasibleError(
        fmt::format("{}: {} series, more than the {} memwall reads at once; "
                    "narrow the query with --job",
                    where, result.size(), kMaxSeries));
  std::vector<PromSeries> out;
  out.reserve(result.size());
  for (size_t i = 0; i < result.size(); ++i)
    out.push_back(series(result[i], type == "matrix", fmt::format("{}.data.result[{}]", where, i)));
  return out;
}

struct PrometheusClient::Impl {
  Endpoint endpoint;
  PromClientOptions options;
  httplib::Client client;

  Impl(const Endpoint& e, const PromClientOptions& o)
      : endpoint(e), options(o), client(e.scheme_host_port) {
    const auto us = static_cast<long long>(o.timeout.value() * 1e6);
    client.set_connection_timeout(us / 1'000'000, us % 1'000'000);
    client.set_read_timeout(us / 1'000'000, us % 1'000'000);
    client.set_write_timeout(us / 1'000'000, us % 1'000'000);
    client.set_follow_location(false);
  }

  std::vector<PromSeries> get(const std::string& api, const httplib::Params& params,
                              const std::string& url) {
    const std::string where = "prometheus " + api.substr(api.rfind('/') + 1);
    std::string body;
    bool too_big = false;
    int status = 0;
    auto res = client.Get(
        endpoint.prefix + api, params, httplib::Headers{{"Accept", "application/json"}},
        [&](const httplib::Response& r) {
          status = r.status;
          return true;
        },
        [&](const char* data, size_t n) {
          if (body.size() + n > options.max_response_bytes) {
            too_big = true;
            return false;
          }
          body.append(data, n);
          return true;
        });
    if (too_big)
      throw InfeasibleError(
          fmt::format("{}: the answer from {} is over {} bytes; narrow the "
                      "query with --job or a shorter --window",
                      where, url, options.max_response_bytes));
    if (!res)
      throw InfeasibleError(fmt::format("{}: cannot reach Prometheus at {}: {} (timeout {} s)",
                                        where, url, httplib::to_string(res.error()),
                                        options.timeout.value()));
    // 400 (bad_data) and 422 (execution) answers carry the API's error object; parse names it.
    if (status == 200 || status == 400 || status == 422) {
      auto out = parse_query_response(body, where);
      if (status != 200) throw InputError(where, fmt::format("HTTP {}", status), "a 200 answer");
      return out;
    }
    throw InfeasibleError(fmt::format("{}: Prometheus at {} answered HTTP {}{}", where, url, status,
                                      body.empty() ? "" : ": " + body.substr(0, 200)));
  }
};

PrometheusClient::PrometheusClient(const std::string& url, const PromClientOptions& o)
    : impl_(std::make_unique<Impl>(parse_url(url), o)), url_(url) {
  if (!(o.timeout.value() > 0) || o.timeout.value() > 3600)
    throw InputError("--timeout", fmt::format("{}", o.timeout.value()), "seconds in (0, 3600]");
}

PrometheusClient::~PrometheusClient() = default;

std::vector<PromSeries> PrometheusClient::query(const std::string& expr,
                                                std::optional<double> time_s) {
  httplib::Params p{{"query", expr}};
  if (time_s) p.emplace("time", format_time(*time_s));
  return impl_->get("/api/v1/query", p, url_);
}

std::vector<PromSeries> PrometheusClient::query_range(const std::string& expr, double start_s,
                                                      double end_s, double step_s) {
  httplib::Params p{{"query", expr},
                    {"start", format_time(start_s)},
                    {"end", format_time(end_s)},
                    {"step", format_time(step_s)}};
  return impl_->get("/api/v1/query_range", p, url_);
}

}  // namespace memwall::monitor
