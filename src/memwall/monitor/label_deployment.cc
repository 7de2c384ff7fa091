#include "memwall/monitor/label_deployment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "memwall/core/error.h"
#include "memwall/core/precision.h"
#include "memwall/monitor/advisor.h"

namespace memwall::monitor {
namespace {

// The largest tensor- or pipeline-parallel size a label may give.
constexpr int kMaxParallelSize = 1024;

// The one value of a label over the pod's series; nullopt where absent, or (named in
// `unmapped`) where the series disagree.
std::optional<std::string> one_value(const DeploymentLabels& labels, const std::string& name,
                                     std::vector<std::string>& unmapped) {
  const auto it = labels.find(name);
  if (it == labels.end() || it->second.empty()) return std::nullopt;
  if (it->second.size() > 1) {
    unmapped.push_back(
        fmt::format("{}: the pod's series disagree ({})", name, fmt::join(it->second, ", ")));
    return std::nullopt;
  }
  return *it->second.begin();
}

std::optional<int> whole_number(const std::string& v) {
  if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int n = std::stoi(v);
  if (n < 1 || n > kMaxParallelSize) return std::nullopt;
  return n;
}

void merge(const DeploymentLabels& from, DeploymentLabels& into) {
  for (const auto& [k, values] : from) into[k].insert(values.begin(), values.end());
}

}  // namespace

std::string prometheus_label_name(std::string_view kubernetes_label) {
  std::string out(kubernetes_label);
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  return out;
}

const std::vector<std::string>& deployment_label_names() {
  static const std::vector<std::string> names = {
      "memwall_io_model", "memwall_io_accelerator",      "memwall_io_tp",
      "memwall_io_pp",    "memwall_io_weight_precision", "memwall_io_kv_precision"};
  return names;
}

LabelDeployment deployment_from_labels(const DeploymentLabels& labels,
                                       const std::set<std::string>& model_names,
                                       const infer::DeploymentOptions& base, const Catalog& c) {
  LabelDeployment d;
  d.options = base;
  auto& unmapped = d.unmapped;
  if (const auto v = one_value(labels, "memwall_io_model", unmapped)) {
    if (const ModelSpec* m = c.find_model(*v)) {
      d.options.model = m->id;
      d.used.push_back(fmt::format("model {} (memwall_io_model={})", m->id, *v));
    } else {
      unmapped.push_back(fmt::format(
          "memwall_io_model='{}': no zoo model has that id (memwall catalog list)", *v));
    }
  }
  if (model_names.size() > 1) {
    unmapped.push_back(
        fmt::format("model_name: the pod's engine series serve several models ({}): not one "
                    "deployment",
                    fmt::join(model_names, ", ")));
  } else if (model_names.size() == 1) {
    const std::string& v = *model_names.begin();
    const ModelSpec* m = c.find_model(v);
    if (!m) m = c.find_model_by_hf_repo(v);
    if (!m)
      unmapped.push_back(
          fmt::format("model_name='{}': no zoo model has that id or Hugging Face repository", v));
    else if (d.options.model.empty()) {
      d.options.model = m->id;
      d.used.push_back(fmt::format("model {} (model_name={})", m->id, v));
    } else if (m->id != d.options.model) {
      unmapped.push_back(fmt::format(
          "model_name='{}' (zoo model {}) disagrees with memwall_io_model: memwall_io_model used",
          v, m->id));
    }
  }
  if (const auto v = one_value(labels, "memwall_io_accelerator", unmapped)) {
    if (const Accelerator* a = c.find_accelerator(*v)) {
      d.options.gpu = a->id;
      d.used.push_back(fmt::format("accelerator {} (memwall_io_accelerator={})", a->id, *v));
    } else {
      unmapped.push_back(fmt::format(
          "memwall_io_accelerator='{}': no catalog accelerator has that id or alias (memwall "
          "catalog list)",
          *v));
    }
  }
  const std::pair<const char*, int*> sizes[] = {{"tp", &d.options.tp}, {"pp", &d.options.pp}};
  for (const auto& [size, field] : sizes) {
    const std::string name = std::string("memwall_io_") + size;
    const auto v = one_value(labels, name, unmapped);
    if (!v) continue;
    if (const auto n = whole_number(*v)) {
      *field = *n;
      d.used.push_back(fmt::format("{} {} ({}={})", size, *n, name, *v));
    } else {
      unmapped.push_back(
          fmt::format("{}='{}': not a whole number from 1 to {}", name, *v, kMaxParallelSize));
    }
  }
  const std::pair<const char*, std::optional<Precision>*> precisions[] = {
      {"weight_precision", &d.options.weight_precision}, {"kv_precision", &d.options.kv_precision}};
  for (const auto& [what, field] : precisions) {
    const std::string name = std::string("memwall_io_") + what;
    const auto v = one_value(labels, name, unmapped);
    if (!v) continue;
    if (const auto p = parse_precision(*v)) {
      *field = *p;
      d.used.push_back(fmt::format("{} {} ({}={})", what, to_string(*p), name, *v));
    } else {
      unmapped.push_back(fmt::format("{}='{}': not a precision memwall knows", name, *v));
    }
  }
  const auto& known = deployment_label_names();
  for (const auto& [name, values] : labels)
    if (std::find(known.begin(), known.end(), name) == known.end())
      unmapped.push_back(fmt::format("{}='{}': not a label memwall's deploy emitter writes ({})",
                                     name, fmt::join(values, "', '"), fmt::join(known, ", ")));
  return d;
}

EngineDeployment engine_deployment(const EngineOperatingPoint& p,
                                   const measure::ImportOptions& flags, const Catalog& c) {
  EngineDeployment out;
  out.options = flags;
  if (p.deployment_labels.empty()) return out;
  // The labels alone (no model_name: the records read it), over an empty base, so that each
  // field set below is the labels' own.
  infer::DeploymentOptions none;
  none.tp = 0;
  none.pp = 0;
  const LabelDeployment d = deployment_from_labels(p.deployment_labels, {}, none, c);
  out.unmapped = d.unmapped;
  // Each mapped label fills the field its flag left unset; `used` names the label of each.
  auto used_for = [&](const std::string& what) {
    for (const auto& u : d.used)
      if (u.rfind(what + " ", 0) == 0) out.used.push_back(u);
  };
  if (!flags.model && !d.options.model.empty()) {
    out.options.model = d.options.model;
    used_for("model");
  }
  if (!flags.accelerator && !d.options.gpu.empty()) {
    out.options.accelerator = d.options.gpu;
    used_for("accelerator");
  }
  if (!flags.tp && d.options.tp > 0) {
    out.options.tp = d.options.tp;
    used_for("tp");
  }
  if (!flags.pp && d.options.pp > 0) {
    out.options.pp = d.options.pp;
    used_for("pp");
  }
  if (!flags.weight_precision && d.options.weight_precision) {
    out.options.weight_precision = to_string(*d.options.weight_precision);
    used_for("weight_precision");
  }
  if (!flags.kv_precision && d.options.kv_precision) {
    out.options.kv_precision = to_string(*d.options.kv_precision);
    used_for("kv_precision");
  }
  return out;
}

std::optional<OperatingPointEstimate> estimate_engine_point(const EngineOperatingPoint& p,
                                                            const measure::ImportOptions& flags,
                                                            const std::string& where,
                                                            const Catalog& c,
                                                            const measure::PredictOptions& po) {
  const EngineDeployment d = engine_deployment(p, flags, c);
  if (!d.options.accelerator) {
    if (p.deployment_labels.empty()) return std::nullopt;
    OperatingPointEstimate none;
    none.not_estimated = "the series name no accelerator (memwall_io_accelerator, or --gpu)" +
                         (d.unmapped.empty() ? std::string()
                                             : fmt::format("; {}", fmt::join(d.unmapped, "; ")));
    return none;
  }
  OperatingPointEstimate e = estimate_operating_point(p, d.options, where, c, po);
  std::vector<std::string> notes;
  for (const auto& u : d.used) notes.push_back("deployment from the engine's labels: " + u);
  for (const auto& u : d.unmapped) notes.push_back("label not used: " + u);
  e.notes.insert(e.notes.begin(), notes.begin(), notes.end());
  return e;
}

std::map<std::string, JobDeployment> job_deployments(
    const Fleet& f, const std::vector<EngineOperatingPoint>& engines,
    const infer::DeploymentOptions& base, const FlagWorkload& w, const Catalog& c) {
  // The GPU jobs, each with its pod and the deployment labels of its GPUs' series.
  std::map<std::string, std::pair<std::string, DeploymentLabels>> jobs;
  for (const auto& g : f.gpus) {
    auto& job = jobs[g.job];
    if (!g.pod.empty()) job.first = g.pod;
    merge(g.deployment_labels, job.second);
  }
  std::map<std::string, JobDeployment> out;
  for (const auto& [job, entry] : jobs) {
    const std::string& pod = entry.first;
    DeploymentLabels labels = entry.second;
    std::set<std::string> models;
    std::vector<const EngineOperatingPoint*> pod_engines;
    for (const auto& p : engines) {
      if (pod.empty() ? p.job != job : p.pod != pod) continue;
      merge(p.deployment_labels, labels);
      if (!p.model.empty()) models.insert(p.model);
      pod_engines.push_back(&p);
    }
    if (labels.empty() && models.empty()) continue;
    LabelDeployment d = deployment_from_labels(labels, models, base, c);
    JobDeployment jd;
    jd.unmapped = d.unmapped;
    // One engine on the pod: its profile (the series' own names say which engine) and workload.
    const EngineOperatingPoint* e = pod_engines.size() == 1 ? pod_engines.front() : nullptr;
    if (e && base.engine == "default") {
      d.options.engine = e->engine;
      d.used.push_back(fmt::format("engine {} (its {}:* series)", e->engine, e->set));
    }
    infer::Workload workload;
    std::vector<std::string> missing;
    if (d.options.model.empty())
      missing.push_back(
          "the labels name no model (memwall_io_model or an engine's model_name; or --model)");
    if (d.options.gpu.empty())
      missing.push_back("the labels name no accelerator (memwall_io_accelerator; or --gpu)");
    if (w.batch > 0) {
      workload.batch = w.batch;
    } else if (e && e->running_requests) {
      workload.batch = std::max<int64_t>(1, std::llround(*e->running_requests));
      d.used.push_back(
          fmt::format("batch {} (the engine's mean running requests)", workload.batch));
    }
    auto length = [&](int64_t flag, const std::optional<double>& mean, const char* what,
                      const char* option, int64_t& into) {
      if (flag > 0) {
        into = flag;
      } else if (mean && *mean >= 1) {
        into = std::llround(*mean);
        d.used.push_back(
            fmt::format("{} {} tokens (the engine's {}-length histogram mean)", what, into, what));
      } else {
        missing.push_back(
            fmt::format("no {} and no {}-length histogram of one engine on the pod", option, what));
      }
    };
    length(w.input, e ? e->mean_prompt_tokens : std::nullopt, "prompt", "--input",
           workload.input_tokens);
    length(w.output, e ? e->mean_generation_tokens : std::nullopt, "generation", "--output",
           workload.output_tokens);
    jd.used = d.used;
    if (missing.empty()) {
      try {
        jd.expected = expect(c, d.options, workload);
      } catch (const InputError& x) {
        jd.notes.push_back(x.what());
      } catch (const InfeasibleError& x) {
        jd.notes.push_back(x.what());
      }
    } else {
      jd.notes = missing;
    }
    out[job] = jd;
  }
  return out;
}

}  // namespace memwall::monitor
