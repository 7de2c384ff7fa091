#include "memwall/plan/workload.h"

#include <algorithm>
#include <cmath>
#include <vector>
#include <sstream>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

double parse_seconds(const std::string& text, const std::string& field) {
  std::string t = text;
  double scale = 1.0;
  if (t.size() > 2 && t.substr(t.size() - 2) == "ms") {
    scale = 1e-3;
    t = t.substr(0, t.size() - 2);
  } else if (!t.empty() && t.back() == 's') {
    t.pop_back();
  }
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size()) throw InputError(field, text, "seconds, e.g. 1, 0.05 or 50ms");
  return require_positive(v * scale, field);
}

bool is_preset(const std::string& s) { return s == "sharegpt" || s == "alpaca"; }

serve::LengthDistribution one_distribution(const std::string& spec, const std::string& field) {
  if (!spec.empty() && std::all_of(spec.begin(), spec.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (spec.size() > 9) throw InputError(field, spec, "a token count up to 999,999,999");
    const int n = std::stoi(spec);
    if (n < 1) throw InputError(field, spec, "a positive token count");
    return serve::LengthDistribution::fixed(n);
  }
  return serve::LengthDistribution::parse(spec, field);
}

double percentile(std::vector<int>& v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

// The sorted lengths at the midpoints of quantile bands, equal ones merged: bands of 0.2 % up to
// the 2 % quantile and 0.8 % up to 10 %, where the short requests that set a per-request p99 lie,
// then 5 % (38 bands; a planner's operating point evaluates its tail over every one).
std::vector<WeightedLength> quantile_points(const std::vector<int>& sorted) {
  std::vector<double> edges = {0};
  for (int i = 1; i <= 10; ++i) edges.push_back(0.002 * i);
  for (int i = 1; i <= 10; ++i) edges.push_back(0.02 + 0.008 * i);
  for (int i = 1; i <= 18; ++i) edges.push_back(0.10 + 0.05 * i);
  std::vector<WeightedLength> points;
  for (size_t i = 1; i < edges.size(); ++i) {
    const double q = 0.5 * (edges[i - 1] + edges[i]), weight = edges[i] - edges[i - 1];
    const auto at = static_cast<size_t>(q * static_cast<double>(sorted.size()));
    const double tokens = sorted[std::min(at, sorted.size() - 1)];
    if (!points.empty() && points.back().tokens == tokens) {
      points.back().weight += weight;
    } else {
      points.push_back({tokens, weight});
    }
  }
  return points;
}

}  // namespace

serve::Dataset parse_lengths(const std::string& input, const std::string& output) {
  serve::Dataset d;
  if (is_preset(input) || is_preset(output)) {
    const serve::Dataset preset = serve::dataset_preset(is_preset(input) ? input : output);
    d.max_input_tokens = preset.max_input_tokens;
    d.max_total_tokens = preset.max_total_tokens;
    d.source = preset.source;
  }
  d.input = is_preset(input) ? serve::dataset_preset(input).input : one_distribution(input, "--input");
  d.output = is_preset(output) ? serve::dataset_preset(output).output : one_distribution(output, "--output");
  d.name = input == output ? input : input + " / " + output;
  if (d.source.empty()) d.source = "distributions given on the command line";
  return d;
}

void summarize_lengths(const serve::Dataset& d, Lengths& input, Lengths& output,
                       InferenceWorkload* in_flight) {
  serve::WorkloadSpec spec;
  spec.lengths = d;
  spec.requests = 20000;
  spec.seed = 1;
  serve::RequestSource source(spec);
  std::vector<int> in, out;
  serve::Request r;
  // Context moments of a sequence in flight, weighted by its output (its time in flight): at a
  // uniform point u of its output the context is in + u out, so E[ctx] = in + out / 2 and
  // E[ctx^2] = in^2 + in out + out^2 / 3 for that sequence.
  double in_sum = 0, out_sum = 0, weighted_context = 0, weighted_square = 0;
  while (source.next(r)) {
    in.push_back(r.input_tokens);
    out.push_back(r.output_tokens);
    in_sum += r.input_tokens;
    out_sum += r.output_tokens;
    const double i = r.input_tokens, o = r.output_tokens;
    weighted_context += o * (i + o / 2.0);
    weighted_square += o * (i * i + i * o + o * o / 3.0);
  }
  const double n = static_cast<double>(in.size());
  // percentile() sorts, so quantile_points reads them sorted.
  input = {in_sum / n, percentile(in, 0.99), d.input.describe(), {}};
  input.points = quantile_points(in);
  output = {out_sum / n, percentile(out, 0.99), d.output.describe(), {}};
  output.points = quantile_points(out);
  if (in_flight && out_sum > 0) {
    const double mean = weighted_context / out_sum;
    in_flight->context_in_flight = mean;
    in_flight->context_in_flight_sd =
        std::sqrt(std::max(0.0, weighted_square / out_sum - mean * mean));
  }
}

Sla parse_sla(const std::string& spec) {
  Sla sla;
  bool ttft = false, tpot = false;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError("--sla", item, "key=value pairs: ttft_p99, tpot_p99, e2e_p99");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "ttft_p99" || key == "ttft") {
      sla.ttft_p99 = Seconds(parse_seconds(value, "--sla ttft_p99"));
      ttft = true;
    } else if (key == "tpot_p99" || key == "tpot") {
      sla.tpot_p99 = Seconds(parse_seconds(value, "--sla tpot_p99"));
      tpot = true;
    } else if (key == "e2e_p99" || key == "e2e") {
      sla.e2e_p99 = Seconds(parse_seconds(value, "--sla e2e_p99"));
    } else {
      throw InputError::unknown_name("--sla key", key, {"ttft_p99", "tpot_p99", "e2e_p99"});
    }
  }
  if (!ttft || !tpot) throw InputError("--sla", spec, "both ttft_p99=... and tpot_p99=...");
  return sla;
}

void InferenceWorkload::validate() const {
  if (load.rate_per_s.has_value() == load.concurrency.has_value()) {
    throw InputError("load", "rate and concurrency", "exactly one of --rate or --concurrency");
  }
  if (load.rate_per_s) require_positive(*load.rate_per_s, "--rate");
  if (load.concurrency) require_positive(*load.concurrency, "--concurrency");
  if (load.rate_per_s && *load.rate_per_s > 1e7) throw InputError("--rate", std::to_string(*load.rate_per_s), "at most 1e7 requests/s");
  if (load.concurrency && *load.concurrency > 1e8) throw InputError("--concurrency", std::to_string(*load.concurrency), "at most 1e8");
  require_positive(input.mean, "--input mean");
  require_positive(output.mean, "--output mean");
  require_positive(input.p99, "--input p99");
  require_positive(sla.ttft_p99.value(), "--sla ttft_p99");
  require_positive(sla.tpot_p99.value(), "--sla tpot_p99");
}

}  // namespace memwall::plan
