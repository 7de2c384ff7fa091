// The JSON API behind `memwall ui`: each endpoint takes one JSON request and answers with the same
// JSON the matching CLI command prints with --json (the library's own *_json functions), so the web
// page, the CLI and the Python bindings show one set of numbers. Sockets live in the CLI face
// (tools/memwall/cmd_ui.cc); this file is testable without them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/cancel.h"
#include "memwall/core/document.h"

namespace memwall::ui {

// Endpoints: "catalog", "infer", "train", "plan", "net", "simulate". Request fields (all optional,
// defaults in docs/ui.md; an unknown field is an InputError naming it):
//   infer: model, gpu, tp, pp, batch, input, output, weight_precision, kv_precision, sweep
//   ("1,2,4") train: model, gpu, node, fabric, gpus, tp, pp, cp, ep, dp, vpp, micro_batch,
//   global_batch, seq,
//          precision, recompute, sequence_parallel, zero, tokens, price_per_gpu_hour
//   plan:  model, concurrency | rate, input, output, sla, gpus [ids], serving, top
//   net:   node, fabric, nodes, op, sizes ("1K..8G")
//   simulate: model, gpu, tp, rate | concurrency, dataset, requests (<= 50000), scheduler, kv, sla,
//          preempt, host_kv_cache (GiB), prefix_hit_rate
// Throws InputError for an unknown endpoint or a bad field (HTTP 400) and InfeasibleError for a
// configuration that cannot run (HTTP 422), with the same messages as the CLI. Plan, compare,
// fleet and simulate stop with Cancelled once `cancel` is set (the server's client went away).
// What the server applies to every request, set when it starts (`memwall ui --calibration FILE`):
// a request never names a file the server reads.
struct ApiOptions {
  // A calibration profile (memwall calibrate / probe) every infer, train, plan, fleet, compare and
  // simulate answer is timed with, as the CLI's --calibration; the catalog answer says which.
  std::optional<std::string> calibration;
};

Json handle(const Catalog& catalog, const std::string& endpoint, const Json& request,
            const CancelFlag* cancel = nullptr, const ApiOptions& options = {});

// A POST body as the server reads it: empty is {}; more than kMaxRequestBytes, nesting deeper than
// kMaxDocumentDepth, a field given twice, a number past double's range or text that is not JSON
// (invalid UTF-8 included) is an InputError (HTTP 400) with the reason.
inline constexpr size_t kMaxRequestBytes = size_t{1} << 20;
Json parse_request_body(std::string_view body);

std::vector<std::string> endpoints();

// The request fields `endpoint` reads; any other field is an InputError naming it.
std::vector<std::string> request_fields(const std::string& endpoint);

}  // namespace memwall::ui

namespace memwall::ui {
// The single-page web app (ui/index.html, compiled in): it calls POST /api/<endpoint>.
std::string_view page();
// ECharts (ui/node_modules/echarts/dist/echarts.min.js, compiled in; empty when the build had no
// npm packages) and the licences of what that file bundles.
std::string_view charts_library();
std::string_view charts_licence();
}  // namespace memwall::ui
