// The Python module `memwall`: a thin face over the library for notebooks, like the CLI. Each
// function takes the CLI's options as keyword arguments, calls the same library entry point the
// matching subcommand calls, and returns the same JSON object as `memwall <subcommand> --json`,
// converted to Python dicts, lists, numbers and strings. Bad input raises memwall.InputError (a
// ValueError) and a configuration that cannot run raises memwall.InfeasibleError (a
// RuntimeError), each with the CLI's message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <type_traits>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/core/precision.h"
#include "memwall/core/version.h"
#include "memwall/hw/hw_io.h"
#include "memwall/cost/prices.h"
#include "memwall/infer/request.h"
#include "memwall/measure/calibrate.h"
#include "memwall/measure/import.h"
#include "memwall/measure/record.h"
#include "memwall/model/zoo.h"
#include "memwall/net/request.h"
#include "memwall/offload/request.h"
#include "memwall/perf/efficiency.h"
#include "memwall/plan/estimator.h"
#include "memwall/plan/fleet.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/plan_json.h"
#include "memwall/plan/query.h"
#include "memwall/plan/verify.h"
#include "memwall/plan/workload.h"
#include "memwall/serve/request.h"
#include "memwall/serve/serving.h"
#include "memwall/train/offload_request.h"
#include "memwall/train/request.h"

namespace py = pybind11;

namespace memwall::python {
namespace {

using Files = std::vector<std::string>;

// JSON -> the Python value json.loads would give for the same text (NaN stays a float).
py::object to_python(const Json& j) {
  switch (j.type()) {
    case Json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(j.get<int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(j.get<uint64_t>());
    case Json::value_t::number_float:
      return py::float_(j.get<double>());
    case Json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(to_python(v));
      return out;
    }
    case Json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return out;
    }
    default:
      return py::none();
  }
}

// The built-in catalog, or the built-in one extended by the user's files (the CLI's --catalog).
class CatalogRef {
 public:
  explicit CatalogRef(const std::optional<Files>& files) {
    if (files && !files->empty()) owned_ = Catalog::with_user_files(*files);
  }
  const Catalog& get() const { return owned_ ? *owned_ : Catalog::builtin(); }

 private:
  std::optional<Catalog> owned_;
};

std::optional<Precision> precision(const std::optional<std::string>& s, const char* field) {
  if (!s) return std::nullopt;
  return parse_precision_or_throw(*s, field);
}

// A Python int as int64, InputError naming `field` when it does not fit.
int64_t batch_size(const py::handle& v, const py::object& whole) {
  try {
    return v.cast<int64_t>();
  } catch (const py::cast_error&) {
    throw InputError("batch", py::str(whole).cast<std::string>(), "sizes from 1 to 16777216");
  }
}

// batch: an int, "max", a comma list "1,2,4", or a list of ints.
infer::BatchSpec batch_spec(const py::object& batch) {
  if (py::isinstance<py::bool_>(batch))
    throw InputError("batch", py::str(batch).cast<std::string>(), "an int, 'max' or a list");
  if (py::isinstance<py::int_>(batch)) return infer::BatchSpec{false, {batch_size(batch, batch)}};
  if (py::isinstance<py::str>(batch))
    return infer::parse_batch_spec(batch.cast<std::string>(), "batch");
  if (py::isinstance<py::list>(batch) || py::isinstance<py::tuple>(batch)) {
    infer::BatchSpec out{false, {}};
    for (const auto& b : batch) {
      if (!py::isinstance<py::int_>(b) || py::isinstance<py::bool_>(b))
        throw InputError("batch", py::str(batch).cast<std::string>(), "a list of ints");
      out.sizes.push_back(batch_size(b, batch));
    }
    return out;
  }
  throw InputError("batch", py::str(batch).cast<std::string>(), "an int, 'max' or a list of ints");
}

py::object infer_py(const std::string& model, const std::string& gpu, int64_t input,
                    int64_t output, const py::object& batch, int tp, int pp, int ep, int dp,
                    const std::optional<std::string>& weight_precision,
                    const std::optional<std::string>& activation_precision,
                    const std::optional<std::string>& kv_precision,
                    const std::optional<std::string>& fp8_recipe,
                    const std::optional<int>& weight_group_size, const std::string& engine,
                    const std::optional<std::string>& engine_version,
                    const std::optional<double>& memory_utilization, int scheduler_steps,
                    const std::optional<std::string>& node,
                    const std::optional<std::string>& fabric,
                    const std::optional<std::string>& calibration, bool explain,
                    const std::optional<Files>& catalog, const std::string& offload_strategy,
                    const std::optional<std::string>& cpu,
                    const std::optional<double>& host_memory_gb) {
  infer::Request r;
  r.deployment.model = model;
  r.deployment.gpu = gpu;
  r.deployment.tp = tp;
  r.deployment.pp = pp;
  r.deployment.ep = ep;
  r.deployment.dp = dp;
  r.deployment.weight_precision = precision(weight_precision, "weight_precision");
  r.deployment.activation_precision = precision(activation_precision, "activation_precision");
  r.deployment.kv_precision = precision(kv_precision, "kv_precision");
  if (fp8_recipe) r.deployment.fp8_recipe = parse_fp8_recipe(*fp8_recipe, "fp8_recipe");
  r.deployment.weight_group_size = weight_group_size;
  r.deployment.engine = engine;
  r.deployment.engine_version = engine_version;
  r.deployment.memory_utilization = memory_utilization;
  r.deployment.scheduler_steps = scheduler_steps;
  r.deployment.node = node;
  r.deployment.fabric = fabric;
  r.deployment.calibration_file = calibration;
  r.batch = batch_spec(batch);
  r.input_tokens = input;
  r.output_tokens = output;
  Json j;
  {
    py::gil_scoped_release unlocked;  // the estimate touches no Python object
    const CatalogRef c(catalog);
    offload::Request o{r, offload::parse_strategy(offload_strategy, "offload"), {}};
    o.host.cpu = cpu;
    o.host.host_memory_gb = host_memory_gb;
    j = offload::to_json(offload::answer(c.get(), o), explain);
  }
  return to_python(j);
}

py::object train_py(const std::string& model, const std::string& gpu, int gpus,
                    int64_t micro_batch, int64_t global_batch, int64_t seq, int tp, int pp, int cp,
                    int ep, const std::optional<int>& dp, int vpp, const std::string& precision_name,
                    const std::optional<std::string>& recompute,
                    const std::optional<bool>& sequence_parallel, const std::optional<int>& zero,
                    const std::optional<std::string>& framework,
                    const std::optional<std::string>& node,
                    const std::optional<std::string>& fabric,
                    const std::optional<double>& tokens,
                    const std::optional<double>& price_per_gpu_hour,
                    const std::optional<double>& pue,
                    const std::optional<std::string>& calibration, bool flash_attention,
                    const std::optional<int>& flash_attention_version, bool fused_elementwise,
                    bool dropout,
                    bool fp32_grad_accumulation, bool overlap_tp_comm, bool overlap_grad_reduce,
                    bool overlap_param_gather, const std::string& offload_spec,
                    const std::optional<std::string>& cpu,
                    const std::optional<double>& host_memory_gb,
                    const std::optional<int>& nvme_drives, bool delayed_update,
                    const std::optional<Files>& catalog) {
  train::Request r;
  r.model = model;
  r.gpu = gpu;
  r.node = node;
  r.fabric = fabric;
  r.calibration_file = calibration;
  r.tokens = tokens;
  r.price_per_gpu_hour = price_per_gpu_hour;
  r.pue = pue;
  train::TrainConfig& c = r.config;
  c.gpus = gpus;
  c.tp = tp;
  c.pp = pp;
  c.cp = cp;
  c.ep = ep;
  c.dp = dp.value_or(0);
  c.vpp = vpp;
  c.micro_batch = micro_batch;
  c.global_batch = global_batch;
  c.seq = seq;
  c.precision = parse_precision_or_throw(precision_name, "precision");
  // Not given (None): the framework defaults, chosen and stated as `memwall train` does.
  r.recompute = recompute;
  r.flash_attention_version = flash_attention_version;
  r.sequence_parallel = sequence_parallel;
  r.zero = zero;
  r.framework = framework;
  c.flash_attention = flash_attention;
  c.fused_elementwise = fused_elementwise;
  c.dropout = dropout;
  c.fp32_grad_accumulation = fp32_grad_accumulation;
  c.overlap_tp_comm = overlap_tp_comm;
  c.overlap_grad_reduce = overlap_grad_reduce;
  c.overlap_param_gather = overlap_param_gather;
  Json j;
  {
    py::gil_scoped_release unlocked;
    const CatalogRef cat(catalog);
    // With an offload (DeepSpeed ZeRO-Offload / ZeRO-Infinity): `memwall train --offload`.
    train::OffloadRequest o{r, train::parse_offload(offload_spec, "offload"), {}, nvme_drives};
    o.spec.delayed_update = delayed_update;
    o.host.cpu = cpu;
    o.host.host_memory_gb = host_memory_gb;
    j = train::to_json(train::answer(cat.get(), o));
  }
  return to_python(j);
}

template <class T>
std::vector<std::string> ids_of(const std::vector<T>& entries) {
  std::vector<std::string> out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.push_back(e.id);
  return out;
}

// A list of names: a Python list/tuple of str, or one comma-separated str.
std::vector<std::string> names(const py::object& v, const char* field) {
  std::vector<std::string> out;
  if (v.is_none()) return out;
  if (py::isinstance<py::str>(v)) {
    std::stringstream in(v.cast<std::string>());
    for (std::string item; std::getline(in, item, ',');)
      if (!item.empty()) out.push_back(item);
    return out;
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    for (const auto& item : v) {
      if (!py::isinstance<py::str>(item))
        throw InputError(field, py::str(v).cast<std::string>(), "a list of strings");
      out.push_back(item.cast<std::string>());
    }
    return out;
  }
  throw InputError(field, py::str(v).cast<std::string>(), "a list of strings or a comma list");
}

// Message sizes for net: an int (bytes), a str ("1K..8G", "1M,1G", "64M") or a list of them.
std::string sizes_text(const py::object& v) {
  if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v))
    return std::to_string(v.cast<int64_t>());
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string out;
    for (const auto& item : v) {
      if (!out.empty()) out += ",";
      out += sizes_text(py::reinterpret_borrow<py::object>(item));
    }
    return out;
  }
  throw InputError("sizes", py::str(v).cast<std::string>(),
                   "bytes as an int, a str such as '1K..8G' or '1M,1G', or a list");
}

py::object net_py(const std::optional<std::string>& node, const std::optional<std::string>& fabric,
                  int nodes, const std::string& op, const py::object& sizes,
                  const std::optional<int>& ranks, const std::string& algo,
                  const std::optional<double>& oversubscription,
                  const std::optional<int>& nodes_per_leaf, const std::optional<int>& tiers,
                  bool explain, const std::optional<std::vector<std::string>>& compare,
                  const std::optional<Files>& catalog) {
  net::Request r;
  r.fabric = fabric;
  r.nodes = nodes;
  r.op = op;
  r.sizes = sizes_text(sizes);
  r.ranks = ranks;
  r.algo = algo;
  r.oversubscription = oversubscription;
  r.nodes_per_leaf = nodes_per_leaf;
  r.tiers = tiers;
  r.explain = explain;
  if (compare) {
    if (compare->size() != 2)
      throw InputError("compare", std::to_string(compare->size()) + " node types", "two: [A, B]");
    if (node) throw InputError("node", *node, "no node with compare=[A, B]");
    if (explain) throw InputError("explain", "with compare", "explain on one cluster (node=)");
  } else {
    if (!node) throw InputError("node", "(missing)", "a node type, e.g. node='hgx-h100'");
    r.node = *node;
  }
  Json j;
  {
    py::gil_scoped_release unlocked;
    const CatalogRef c(catalog);
    j = compare ? net::to_json(net::compare(c.get(), r, (*compare)[0], (*compare)[1]))
                : net::to_json(net::curve(c.get(), r));
  }
  return to_python(j);
}

// ---- plan infer: the library's search, its result converted here (the CLI's JSON keys) ----

py::object plan_infer_py(const std::string& model, const std::optional<double>& rate,
                         const std::optional<double>& concurrency, const py::object& input,
                         const py::object& output, const std::string& sla,
                         const std::optional<double>& budget,
                         const std::optional<double>& power_cap_kw, const py::object& vendors,
                         bool domestic_only, const std::optional<int>& max_gpus,
                         const std::string& objective, int top, const py::object& gpus,
                         const py::object& weight_precisions, const py::object& kv_precisions,
                         const std::string& fabric, const std::string& serving,
                         const std::string& pricing,
                         const std::optional<double>& price_per_gpu_hour,
                         const std::optional<double>& capex,
                         const std::optional<double>& electricity,
                         const std::optional<double>& pue, const std::optional<double>& life_years,
                         const std::optional<double>& hosting_per_kw_month,
                         const std::optional<double>& idle_power_fraction, double tco_years,
                         int verify, int64_t verify_requests,
                         const std::optional<double>& confidence,
                         const std::string& quality, const std::optional<double>& min_recovery,
                         const std::optional<std::string>& calibration,
                         const std::optional<Files>& catalog) {
  plan::InferenceQuery a;
  a.calibration = calibration;
  a.model = model;
  a.rate = rate;
  a.concurrency = concurrency;
  a.input = py::str(input).cast<std::string>();    // "sharegpt", 512, "lognormal:800,1.2" ...
  a.output = py::str(output).cast<std::string>();
  a.sla = sla;
  a.budget_usd = budget;
  a.power_cap_kw = power_cap_kw;
  a.vendors = names(vendors, "vendors");
  a.domestic_only = domestic_only;
  a.max_gpus = max_gpus;
  a.objective = objective;
  a.top = top;
  a.verify = verify;
  a.verify_requests = verify_requests;
  a.confidence = confidence;
  a.quality = quality;
  a.min_recovery = min_recovery;
  a.gpus = names(gpus, "gpus");
  a.weight_precisions = names(weight_precisions, "weight_precisions");
  a.kv_precisions = names(kv_precisions, "kv_precisions");
  a.fabric = fabric;
  a.serving = serving;
  a.cost.basis = cost::parse_pricing_basis(pricing);
  a.cost.price_per_gpu_hour = price_per_gpu_hour;
  a.cost.capex_usd = capex;
  a.cost.electricity_usd_per_kwh = electricity;
  a.cost.pue = pue;
  a.cost.life_years = life_years;
  a.cost.hosting_usd_per_kw_month = hosting_per_kw_month;
  a.cost.idle_power_fraction = idle_power_fraction;
  a.cost.tco_years = tco_years;
  Json j;
  {
    py::gil_scoped_release unlocked;
    const CatalogRef c(catalog);
    const cost::PriceBook prices =
        catalog ? cost::PriceBook::with_user_files(*catalog) : cost::PriceBook::builtin();
    j = plan::to_json(*plan::answer_inference(c.get(), prices, a));
  }
  return to_python(j);
}

py::object simulate_py(const serve::SimulateRequest& r, const std::optional<Files>& catalog) {
  Json j;
  {
    py::gil_scoped_release unlocked;
    const CatalogRef c(catalog);
    j = serve::to_json(serve::simulate(c.get(), r));
  }
  return to_python(j);
}

// simulate(**options): each keyword sets the SimulateRequest field of the same name.
using SimulateSetter = void (*)(serve::SimulateRequest&, py::handle);
#define MEMWALL_FIELD(name)                                        \
  {                                                                \
    #name, [](serve::SimulateRequest& r, py::handle v) {           \
      r.name = v.cast<std::remove_reference_t<decltype(r.name)>>(); \
    }                                                              \
  }
const std::map<std::string, SimulateSetter>& simulate_fields() {
  static const std::map<std::string, SimulateSetter> fields = {
      MEMWALL_FIELD(node),           MEMWALL_FIELD(tp),
      MEMWALL_FIELD(pp),             MEMWALL_FIELD(replicas),
      MEMWALL_FIELD(router),         MEMWALL_FIELD(rate),
      MEMWALL_FIELD(arrival),        MEMWALL_FIELD(cv),
      MEMWALL_FIELD(concurrency),    MEMWALL_FIELD(trace),
      MEMWALL_FIELD(dataset),        MEMWALL_FIELD(input),
      MEMWALL_FIELD(output),         MEMWALL_FIELD(requests),
      MEMWALL_FIELD(seed),           MEMWALL_FIELD(max_len),
      MEMWALL_FIELD(scheduler),      MEMWALL_FIELD(max_batch),
      MEMWALL_FIELD(token_budget),   MEMWALL_FIELD(batch_timeout_s),
      MEMWALL_FIELD(kv),             MEMWALL_FIELD(block),
      MEMWALL_FIELD(watermark),      MEMWALL_FIELD(preempt),
      MEMWALL_FIELD(swap_space_gib), MEMWALL_FIELD(swap_bandwidth_gbps),
      MEMWALL_FIELD(max_waiting),    MEMWALL_FIELD(prefill_replicas),
      MEMWALL_FIELD(decode_replicas), MEMWALL_FIELD(link_bandwidth_gbps),
      MEMWALL_FIELD(link_latency_us), MEMWALL_FIELD(kv_capacity_tokens),
      MEMWALL_FIELD(memory_utilization), MEMWALL_FIELD(weight_precision),
      MEMWALL_FIELD(kv_precision),   MEMWALL_FIELD(fp8_recipe),
      MEMWALL_FIELD(sla),
      MEMWALL_FIELD(engine),         MEMWALL_FIELD(engine_version),
      // --calibration FILE, as the CLI spells it.
      {"calibration", [](serve::SimulateRequest& r, py::handle v) {
         r.calibration_file = v.cast<std::optional<std::string>>();
       }},
      MEMWALL_FIELD(engine_limits),  MEMWALL_FIELD(scheduler_steps),
      MEMWALL_FIELD(host_kv_cache_gib),
      MEMWALL_FIELD(prefix_hit_rate), MEMWALL_FIELD(prefix_pool),
      MEMWALL_FIELD(cpu),            MEMWALL_FIELD(host_memory_gb)};
  return fields;
}
#undef MEMWALL_FIELD

serve::SimulateRequest simulate_request(const std::string& model, const std::string& gpu,
                                        const py::kwargs& options) {
  serve::SimulateRequest r;
  r.model = model;
  r.gpu = gpu;
  const auto& fields = simulate_fields();
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key).cast<std::string>();
    if (name == "catalog") continue;
    const auto it = fields.find(name);
    if (it == fields.end()) {
      std::vector<std::string> known;
      for (const auto& f : fields) known.push_back(f.first);
      throw InputError::unknown_name("simulate option", name, known);
    }
    try {
      it->second(r, value);
    } catch (const py::cast_error&) {
      throw InputError(name, py::repr(value).cast<std::string>(),
                       "a value of the option's type (see docs/python.md)");
    }
  }
  return r;
}

}  // namespace
// `memwall plan fleet --json`: `demand` is a CSV path (hour,rate_per_s[,input_tokens,
// output_tokens]) or a list of requests/s per hour.
py::object plan_fleet_py(const std::string& model, const py::object& demand, const py::object& input,
                         const py::object& output, const std::string& sla, const py::object& gpus,
                         const py::object& vendors, bool domestic_only,
                         const py::object& weight_precisions, const py::object& kv_precisions,
                         const std::string& fabric, const std::string& engine,
                         const std::string& quality, const std::optional<double>& min_recovery,
                         const std::optional<std::string>& calibration, double growth_percent,
                         int months, double availability,
                         const std::optional<double>& failures_per_device_year,
                         const std::optional<double>& repair_hours,
                         const std::optional<double>& startup_s,
                         const std::optional<double>& rent_per_gpu_hour, int min_replicas,
                         int64_t check_requests, const std::optional<double>& capex,
                         const std::optional<double>& electricity, const std::optional<double>& pue,
                         const std::optional<double>& life_years,
                         const std::optional<double>& hosting_per_kw_month,
                         const std::optional<Files>& catalog) {
  plan::FleetQuery q;
  q.base.model = model;
  q.base.input = py::str(input).cast<std::string>();
  q.base.output = py::str(output).cast<std::string>();
  q.base.sla = sla;
  q.base.gpus = names(gpus, "gpus");
  q.base.vendors = names(vendors, "vendors");
  q.base.domestic_only = domestic_only;
  q.base.weight_precisions = names(weight_precisions, "weight_precisions");
  q.base.kv_precisions = names(kv_precisions, "kv_precisions");
  q.base.fabric = fabric;
  q.base.engine = engine;
  q.base.quality = quality;
  q.base.min_recovery = min_recovery;
  q.base.calibration = calibration;
  q.base.cost.capex_usd = capex;
  q.base.cost.electricity_usd_per_kwh = electricity;
  q.base.cost.pue = pue;
  q.base.cost.life_years = life_years;
  q.base.cost.hosting_usd_per_kw_month = hosting_per_kw_month;
  q.base.cost.validate();
  if (catalog) q.base.catalog_files = *catalog;
  if (py::isinstance<py::str>(demand)) {
    const std::string path = demand.cast<std::string>();
    q.demand = plan::parse_demand_csv(read_input_file(path, "demand", kMaxDocumentBytes), path);
  } else if (py::isinstance<py::list>(demand) || py::isinstance<py::tuple>(demand)) {
    std::vector<double> values;
    for (const auto& v : demand) {
      if (!py::isinstance<py::float_>(v) && !py::isinstance<py::int_>(v))
        throw InputError(fmt::format("demand[{}]", values.size()), py::str(v).cast<std::string>(),
                         "requests per second (a number)");
      values.push_back(v.cast<double>());
    }
    q.demand = plan::demand_from_rates(values, "demand");
  } else {
    throw InputError("demand", py::str(demand).cast<std::string>(),
                     "a CSV path or a list of requests per second per hour");
  }
  q.growth_per_month = growth_percent / 100.0;
  q.months = months;
  q.availability = availability;
  if (failures_per_device_year) q.failures_per_device_year = *failures_per_device_year;
  q.repair_hours = repair_hours;
  q.startup_s = startup_s;
  q.rent_per_gpu_hour = rent_per_gpu_hour;
  q.min_replicas = min_replicas;
  q.check_requests = check_requests;
  Json j;
  {
    py::gil_scoped_release unlocked;
    const CatalogRef c(catalog);
    const cost::PriceBook prices =
        catalog ? cost::PriceBook::with_user_files(*catalog) : cost::PriceBook::builtin();
    j = plan::to_json(plan::plan_fleet(c.get(), prices, q));
  }
  return to_python(j);
}

// `memwall import FILE --format F --json`: the records document and the notes the CLI prints on
// stderr, as {"records": ..., "notes": [...]}.
py::object import_benchmark_py(const std::string& path, const std::string& format,
                               const measure::ImportOptions& flags,
                               const std::optional<Files>& catalog) {
  measure::ImportOptions o = flags;
  o.format = format;
  const CatalogRef c(catalog);
  std::vector<std::string> notes;
  const auto records = measure::import_file(path, o, c.get(), notes);
  return to_python(Json{{"records", measure::to_json(records)}, {"notes", notes}});
}

// `memwall calibrate FILE... [--out PROFILE] --json`: the fit, and the profile written to `out`.
py::object calibrate_py(const Files& files, const std::optional<std::string>& out,
                        const std::optional<Files>& catalog) {
  if (files.empty()) throw InputError("files", "[]", "one or more measurement record files");
  const CatalogRef c(catalog);
  std::vector<measure::Record> records;
  for (const auto& f : files) {
    auto part = measure::parse_measurements(load_document(f), f, c.get());
    records.insert(records.end(), part.begin(), part.end());
  }
  measure::CalibrateOptions co;
  co.files = files;
  const measure::CalibrationFit fit = measure::calibrate(records, c.get(), co);
  (void)perf::apply_calibration(perf::default_efficiency(), fit.profile, "the fitted profile");
  Json j = measure::to_json(fit);
  if (out) {
    std::ofstream f(*out);
    f << fit.profile.dump(2) << "\n";
    f.flush();
    if (!f) throw InputError("out", *out, "a writable file path");
    j["profile_file"] = *out;
  }
  return to_python(j);
}

}  // namespace memwall::python

PYBIND11_MODULE(memwall, m) {
  using namespace memwall;
  using namespace memwall::python;
  using py::arg;
  m.doc() =
      "memwall: what hardware an LLM workload needs and how fast it runs. Each function returns "
      "the JSON object of the matching `memwall <subcommand> --json` as Python dicts and lists. "
      "Bad input raises memwall.InputError (a ValueError); a configuration that cannot run raises "
      "memwall.InfeasibleError (a RuntimeError). See docs/python.md.";
  m.attr("__version__") = std::string(memwall::version());
  m.attr("__commit__") = std::string(memwall::build_commit());
  // Python str must be valid UTF-8, and a message may quote bytes of a binary file, so messages
  // are repaired before they cross (pybind11's register_exception would raise UnicodeDecodeError).
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<InfeasibleError> infeasible_error(m, "InfeasibleError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(to_valid_utf8(e.what()).c_str());
    } catch (const InfeasibleError& e) {
      infeasible_error(to_valid_utf8(e.what()).c_str());
    }
  });

  const auto none = py::none();
  // Catalog: one entry by id or alias, in the catalog file format (`memwall catalog show --json`).
  m.def(
      "accelerator",
      [](const std::string& id, const std::optional<Files>& catalog) {
        return to_python(accelerator_to_json(CatalogRef(catalog).get().accelerator(id)));
      },
      "An accelerator's catalog entry (datasheet fields, sources; null = unknown).", arg("id"),
      py::kw_only(), arg("catalog") = none);
  m.def(
      "node",
      [](const std::string& id, const std::optional<Files>& catalog) {
        return to_python(node_to_json(CatalogRef(catalog).get().node(id)));
      },
      "A node's catalog entry (devices, topology, links, NICs).", arg("id"), py::kw_only(),
      arg("catalog") = none);
  m.def(
      "fabric",
      [](const std::string& id, const std::optional<Files>& catalog) {
        return to_python(fabric_to_json(CatalogRef(catalog).get().fabric(id)));
      },
      "A fabric's catalog entry (technology, port bandwidth, tiers, oversubscription).", arg("id"),
      py::kw_only(), arg("catalog") = none);
  m.def(
      "model",
      [](const std::string& id, const std::optional<Files>& catalog) {
        return to_python(model_to_json(CatalogRef(catalog).get().model(id)));
      },
      "A model's shape: a built-in id or a path to a Hugging Face config.json.", arg("id"),
      py::kw_only(), arg("catalog") = none);
  m.def(
      "accelerators",
      [](const std::optional<Files>& catalog) {
        return ids_of(CatalogRef(catalog).get().accelerators());
      },
      "Ids of every accelerator in the catalog.", py::kw_only(), arg("catalog") = none);
  m.def(
      "nodes",
      [](const std::optional<Files>& catalog) { return ids_of(CatalogRef(catalog).get().nodes()); },
      "Ids of every node in the catalog.", py::kw_only(), arg("catalog") = none);
  m.def(
      "fabrics",
      [](const std::optional<Files>& catalog) {
        return ids_of(CatalogRef(catalog).get().fabrics());
      },
      "Ids of every fabric in the catalog.", py::kw_only(), arg("catalog") = none);
  m.def(
      "models",
      [](const std::optional<Files>& catalog) {
        return ids_of(CatalogRef(catalog).get().models());
      },
      "Ids of every built-in model.", py::kw_only(), arg("catalog") = none);

  m.def("infer", &infer_py,
        "Inference estimate: the object `memwall infer --json` prints (ttft_s, tpot_s, e2e_s, "
        "throughput_tokens_per_s, memory_per_gpu_bytes, max_batch, bound, mfu, mbu, memory, "
        "prefill, decode, deployment, batching, continuous ...). batch: an int (a static batch), "
        "'max' (continuous batching at saturation under the engine's limits), or a list of ints "
        "(a sweep: the last batch's estimate plus 'sweep', one object per batch that fits). "
        "engine: a data/engines profile id (vllm, sglang, trtllm, ...), engine_version its version. "
        "offload: none | auto | layers:N | experts | kv | weights-stream | cpu, with cpu (host "
        "id, NxID) and host_memory_gb (docs/offload.md); the answer then has 'offload'.",
        arg("model"), arg("gpu"), py::kw_only(), arg("input"), arg("output"), arg("batch") = 1,
        arg("tp") = 1, arg("pp") = 1, arg("ep") = 1, arg("dp") = 1,
        arg("weight_precision") = none, arg("activation_precision") = none,
        arg("kv_precision") = none, arg("fp8_recipe") = none, arg("weight_group_size") = none,
        arg("engine") = "default", arg("engine_version") = none,
        arg("memory_utilization") = none, arg("scheduler_steps") = 1,
        arg("node") = none, arg("fabric") = none, arg("calibration") = none,
        arg("explain") = false, arg("catalog") = none, arg("offload") = "none",
        arg("cpu") = none, arg("host_memory_gb") = none);

  m.def("train", &train_py,
        "Training estimate of one configuration: the object `memwall train --json` prints "
        "(step_time_s, tokens_per_s_per_gpu, model_tflops_per_gpu, mfu, hfu, "
        "memory_per_gpu_bytes, breakdown, memory_breakdown, and 'train' when tokens is given; "
        "'offload' with offload='optimizer:cpu' etc., as `memwall train --offload`).",
        arg("model"), arg("gpu"), py::kw_only(), arg("gpus"), arg("micro_batch"),
        arg("global_batch"), arg("seq"), arg("tp") = 1, arg("pp") = 1, arg("cp") = 1,
        arg("ep") = 1, arg("dp") = none, arg("vpp") = 1, arg("precision") = "bf16",
        arg("recompute") = none, arg("sequence_parallel") = none, arg("zero") = none,
        arg("framework") = none, arg("node") = none, arg("fabric") = none, arg("tokens") = none,
        arg("price_per_gpu_hour") = none, arg("pue") = none, arg("calibration") = none,
        arg("flash_attention") = true, arg("flash_attention_version") = none,
        arg("fused_elementwise") = true, arg("dropout") = false,
        arg("fp32_grad_accumulation") = false, arg("overlap_tp_comm") = false,
        arg("overlap_grad_reduce") = true, arg("overlap_param_gather") = true,
        arg("offload") = "none", arg("cpu") = none, arg("host_memory_gb") = none,
        arg("nvme_drives") = none, arg("delayed_update") = false, arg("catalog") = none);
  m.def("net", &net_py,
        "Collective communication on a cluster: the object `memwall net --json` prints (rows "
        "of bytes, time_s, algbw_gbps, busbw_gbps, algorithm, protocol, bottleneck; 'explain' "
        "with the path and what-ifs). compare=[A, B] instead of node: two node types side by "
        "side (`memwall net --compare A B --json`). sizes: bytes per rank, an int, a str such "
        "as '1K..8G' or '1M,1G', or a list.",
        arg("node") = none, py::kw_only(), arg("fabric") = none, arg("nodes") = 1,
        arg("op") = "allreduce", arg("sizes") = "1K..8G", arg("ranks") = none,
        arg("algo") = "auto", arg("oversubscription") = none, arg("nodes_per_leaf") = none,
        arg("tiers") = none, arg("explain") = false, arg("compare") = none,
        arg("catalog") = none);

  m.def("plan_infer", &plan_infer_py,
        "Inference plans from the workload backwards: the object `memwall plan infer --json` "
        "prints (requirements, plans ranked by the objective, pareto_throughput, "
        "pareto_cost_latency, not_feasible: the binding reason per accelerator; 'verified' in the "
        "first `verify` plans: the serving simulator's re-check). "
        "Exactly one of rate (requests/s) or concurrency (users). No feasible plan is not an "
        "error here: 'plans' is empty and 'not_feasible' says why. Every plan has 'intervals' "
        "(80 %); confidence=c keeps plans whose SLA holds at the high end of their c interval. "
        "quality='lossless'|'near-lossless'|'any' or min_recovery=P: the model-quality floor "
        "(docs/plan.md \"Model quality\"); every plan carries 'quality'.",
        arg("model") = "qwen2.5-72b", py::kw_only(), arg("rate") = none,
        arg("concurrency") = none, arg("input") = "sharegpt", arg("output") = "sharegpt",
        arg("sla") = "ttft_p99=1,tpot_p99=0.05", arg("budget") = none,
        arg("power_cap_kw") = none, arg("vendors") = none, arg("domestic_only") = false,
        arg("max_gpus") = none, arg("objective") = "cost", arg("top") = 10, arg("gpus") = none,
        arg("weight_precisions") = "bf16,fp8,int4", arg("kv_precisions") = "bf16,fp8",
        arg("fabric") = "ib-ndr", arg("serving") = "both", arg("pricing") = "owned",
        arg("price_per_gpu_hour") = none, arg("capex") = none, arg("electricity") = none,
        arg("pue") = none, arg("life_years") = none, arg("hosting_per_kw_month") = none,
        arg("idle_power_fraction") = none, arg("tco_years") = 3.0, arg("verify") = 0,
        arg("verify_requests") = 0, arg("confidence") = none, arg("quality") = "near-lossless",
        arg("min_recovery") = none, arg("calibration") = none, arg("catalog") = none);

  m.def(
      "import_benchmark",
      [](const std::string& path, const std::string& format,
         const std::optional<std::string>& model, const std::optional<std::string>& gpu,
         std::optional<int> gpus, std::optional<int> tp, std::optional<int> pp,
         std::optional<int> ep, std::optional<int> dp, const std::optional<std::string>& node,
         const std::optional<std::string>& fabric, const std::optional<std::string>& cpu,
         const std::optional<std::string>& engine, const std::optional<std::string>& engine_version,
         const std::optional<std::string>& weight_precision,
         const std::optional<std::string>& activation_precision,
         const std::optional<std::string>& kv_precision, std::optional<int64_t> max_num_seqs,
         std::optional<int64_t> max_num_batched_tokens, std::optional<double> memory_utilization,
         const std::optional<std::string>& input, const std::optional<std::string>& output,
         std::optional<int64_t> batch, const std::optional<std::string>& framework,
         const std::optional<std::string>& framework_version, std::optional<int> cp,
         std::optional<int> vpp, std::optional<int> zero,
         const std::optional<std::string>& precision, const std::optional<std::string>& recompute,
         std::optional<int64_t> micro_batch, std::optional<int64_t> global_batch,
         std::optional<int64_t> seq_len, const std::optional<Files>& catalog) {
        measure::ImportOptions o;
        o.model = model;
        o.accelerator = gpu;
        o.devices = gpus;
        o.tp = tp;
        o.pp = pp;
        o.ep = ep;
        o.dp = dp;
        o.node = node;
        o.fabric = fabric;
        o.host_cpu = cpu;
        o.engine = engine;
        o.engine_version = engine_version;
        o.weight_precision = weight_precision;
        o.activation_precision = activation_precision;
        o.kv_precision = kv_precision;
        o.max_num_seqs = max_num_seqs;
        o.max_num_batched_tokens = max_num_batched_tokens;
        o.memory_fraction = memory_utilization;
        o.input = input;
        o.output = output;
        o.batch = batch;
        o.framework = framework;
        o.framework_version = framework_version;
        o.cp = cp;
        o.vpp = vpp;
        o.zero = zero;
        o.training_precision = precision;
        o.recompute = recompute;
        o.micro_batch = micro_batch;
        o.global_batch = global_batch;
        o.seq_len = seq_len;
        return import_benchmark_py(path, format, o, catalog);
      },
      "A benchmark result file read into measurement records, as `memwall import FILE --format F "
      "--json`: {'records': the records document, 'notes': what was not imported or came from a "
      "keyword}. format: vllm-serve | vllm-throughput | vllm-latency | sglang-serve | "
      "llama-bench | guidellm | inference-perf | llm-d-report | genai-perf | aiperf | megatron-log "
      "| torchtitan-log | nanotron-log; the keywords are the CLI's flags (gpu, engine, "
      "engine_version, tp, input, output; training logs: gpus, micro_batch, global_batch, "
      "seq_len, precision, recompute ...; no load_type yet, so rate stages of inference-perf and "
      "llm-d-report are CLI-only; "
      "docs/measurements.md \"Importers\").",
      arg("path"), py::kw_only(), arg("format"), arg("model") = none, arg("gpu") = none,
      arg("gpus") = none, arg("tp") = none, arg("pp") = none, arg("ep") = none, arg("dp") = none,
      arg("node") = none, arg("fabric") = none, arg("cpu") = none, arg("engine") = none,
      arg("engine_version") = none, arg("weight_precision") = none,
      arg("activation_precision") = none, arg("kv_precision") = none, arg("max_num_seqs") = none,
      arg("max_num_batched_tokens") = none, arg("memory_utilization") = none, arg("input") = none,
      arg("output") = none, arg("batch") = none, arg("framework") = none,
      arg("framework_version") = none, arg("cp") = none, arg("vpp") = none, arg("zero") = none,
      arg("precision") = none, arg("recompute") = none, arg("micro_batch") = none,
      arg("global_batch") = none, arg("seq_len") = none, arg("catalog") = none);
  m.def("plan_fleet", &plan_fleet_py,
        "A fleet for a demand curve, as `memwall plan fleet --json` (unit, hours: replicas "
        "needed, spares, running, owned, rented and the simulator's check per hour; chosen, "
        "all_rented, peak_owned: the costs; saving_usd; assumptions). demand: a CSV path "
        "(hour,rate_per_s[,input_tokens,output_tokens]) or a list of requests/s per hour; "
        "growth_percent per month over months (docs/plan.md \"Fleet\").",
        arg("model") = "qwen2.5-72b", py::kw_only(), arg("demand"), arg("input") = "sharegpt",
        arg("output") = "sharegpt", arg("sla") = "ttft_p99=1,tpot_p99=0.05", arg("gpus") = none,
        arg("vendors") = none, arg("domestic_only") = false,
        arg("weight_precisions") = "bf16,fp8,int4", arg("kv_precisions") = "bf16,fp8",
        arg("fabric") = "ib-ndr", arg("engine") = "", arg("quality") = "near-lossless",
        arg("min_recovery") = none, arg("calibration") = none, arg("growth_percent") = 0.0,
        arg("months") = 1, arg("availability") = 0.999, arg("failures_per_device_year") = none,
        arg("repair_hours") = none, arg("startup_s") = none, arg("rent_per_gpu_hour") = none,
        arg("min_replicas") = 1, arg("check_requests") = 1000, arg("capex") = none,
        arg("electricity") = none, arg("pue") = none, arg("life_years") = none,
        arg("hosting_per_kw_month") = none, arg("catalog") = none);
  m.def("calibrate", &calibrate_py,
        "Fit the engine parameters measurement records identify, as `memwall calibrate FILE... "
        "--json` (groups: each parameter before/after with its 80 % interval, every record's "
        "error; profile: what calibration=... takes). out: write the profile there, as --out.",
        arg("files"), py::kw_only(), arg("out") = none, arg("catalog") = none);

  m.def(
      "simulate",
      [](const std::string& model, const std::string& gpu, const py::kwargs& options) {
        std::optional<Files> catalog;
        if (options.contains("catalog") && !options["catalog"].is_none())
          catalog = options["catalog"].cast<Files>();
        return simulate_py(simulate_request(model, gpu, options), catalog);
      },
      "Serving simulation under load: the object `memwall simulate --json` prints (ttft, tpot, "
      "e2e percentiles, throughput, goodput, KV shares, preemptions). Keywords are the CLI's "
      "options with underscores (rate or concurrency or trace, dataset, input, output, requests, "
      "scheduler, max_batch, kv, sla, tp, replicas ...; see docs/python.md).",
      arg("model"), arg("gpu"));
}
