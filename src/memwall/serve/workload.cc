#include "memwall/serve/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "memwall/core/document.h"
#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

constexpr int kMaxTokens = 10'000'000;  // per request; beyond any model context

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

double parse_number(const std::string& text, const std::string& field) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw InputError(field, text, "a number");
  }
  if (used != text.size() || !std::isfinite(v)) throw InputError(field, text, "a finite number");
  return v;
}

int parse_tokens(const std::string& text, const std::string& field) {
  const double v = parse_number(text, field);
  if (v < 1 || v > kMaxTokens || v != std::floor(v))
    throw InputError(field, text, fmt::format("a whole number of tokens in [1, {}]", kMaxTokens));
  return static_cast<int>(v);
}

std::vector<int> parse_token_list(const std::string& text, const std::string& field) {
  std::vector<int> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(parse_tokens(cur, field));
    cur.clear();
  };
  for (char c : text) {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else {
      cur += c;
    }
    if (out.size() > 10'000'000) throw InputError(field, "(list)", "at most 10,000,000 values");
  }
  flush();
  if (out.empty()) throw InputError(field, text, "at least one token count");
  return out;
}

}  // namespace

LengthDistribution LengthDistribution::fixed(int tokens) {
  if (tokens < 1 || tokens > kMaxTokens)
    throw InputError("length", std::to_string(tokens), "tokens in [1, 10000000]");
  LengthDistribution d;
  d.kind_ = Kind::fixed;
  d.a_ = d.b_ = tokens;
  return d;
}

LengthDistribution LengthDistribution::uniform(int lo, int hi) {
  if (lo < 1 || hi < lo || hi > kMaxTokens)
    throw InputError("length", fmt::format("uniform:{},{}", lo, hi), "1 <= LO <= HI <= 10000000");
  LengthDistribution d;
  d.kind_ = Kind::uniform;
  d.a_ = lo;
  d.b_ = hi;
  return d;
}

LengthDistribution LengthDistribution::lognormal(double mean, double cv) {
  if (!std::isfinite(mean) || mean < 1 || mean > kMaxTokens || !std::isfinite(cv) || cv <= 0 ||
      cv > 100)
    throw InputError("length", fmt::format("lognormal:{},{}", mean, cv),
                     "MEAN in [1, 10000000] tokens and CV in (0, 100]");
  LengthDistribution d;
  d.kind_ = Kind::lognormal;
  d.a_ = mean;
  d.b_ = cv;
  // Log-normal moments: CV^2 = exp(sigma^2) - 1, mean = exp(mu + sigma^2 / 2).
  d.sigma_ = std::sqrt(std::log1p(cv * cv));
  d.mu_ = std::log(mean) - 0.5 * d.sigma_ * d.sigma_;
  return d;
}

LengthDistribution LengthDistribution::empirical(std::vector<int> values) {
  if (values.empty()) throw InputError("length", "empirical:", "at least one token count");
  for (int v : values)
    if (v < 1 || v > kMaxTokens)
      throw InputError("length", std::to_string(v), "token counts in [1, 10000000]");
  LengthDistribution d;
  d.kind_ = Kind::empirical;
  d.values_ = std::move(values);
  double sum = 0;
  for (int v : d.values_) sum += v;
  d.a_ = sum / static_cast<double>(d.values_.size());
  return d;
}

LengthDistribution LengthDistribution::parse(const std::string& spec, const std::string& field) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string args = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const std::string allowed =
      "fixed:N, uniform:LO,HI, lognormal:MEAN,CV, empirical:V1,V2,... or empirical:@FILE";
  if (colon == std::string::npos || args.empty()) throw InputError(field, spec, allowed);
  const auto parts = split(args, ',');
  try {
    if (kind == "fixed" && parts.size() == 1) return fixed(parse_tokens(parts[0], field));
    if (kind == "uniform" && parts.size() == 2)
      return uniform(parse_tokens(parts[0], field), parse_tokens(parts[1], field));
    if (kind == "lognormal" && parts.size() == 2)
      return lognormal(parse_number(parts[0], field), parse_number(parts[1], field));
    if (kind == "empirical") {
      if (args[0] == '@') {
        return empirical(
            parse_token_list(read_input_file(args.substr(1), field, kMaxDocumentBytes), field));
      }
      return empirical(parse_token_list(args, field));
    }
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", field, e.what()));
  }
  throw InputError(field, spec, allowed);
}

int LengthDistribution::sample(std::mt19937_64& rng) const {
  switch (kind_) {
    case Kind::fixed:
      return static_cast<int>(a_);
    case Kind::uniform:
      return std::uniform_int_distribution<int>(static_cast<int>(a_), static_cast<int>(b_))(rng);
    case Kind::lognormal: {
      const double x = std::exp(mu_ + sigma_ * std::normal_distribution<double>(0, 1)(rng));
      // Rounded to whole tokens; at least one token, at most the representable limit.
      return static_cast<int>(std::clamp(std::round(x), 1.0, static_cast<double>(kMaxTokens)));
    }
    case Kind::empirical:
      return values_[std::uniform_int_distribution<size_t>(0, values_.size() - 1)(rng)];
  }
  return 1;
}

double LengthDistribution::mean() const {
  switch (kind_) {
    case Kind::fixed:
      return a_;
    case Kind::uniform:
      return 0.5 * (a_ + b_);
    case Kind::lognormal:
    case Kind::empirical:
      return a_;
  }
  return a_;
}

std::string LengthDistribution::describe() const {
  switch (kind_) {
    case Kind::fixed:
      return fmt::format("fixed:{}", a_);
    case Kind::uniform:
      return fmt::format("uniform:{},{}", a_, b_);
    case Kind::lognormal:
      return fmt::format("lognormal:{},{}", a_, b_);
    case Kind::empirical:
      return fmt::format("empirical ({} values, mean {:.1f})", values_.size(), a_);
  }
  return "";
}

std::vector<std::string> dataset_names() {
  return {"sharegpt", "alpaca", "fixed:IN,OUT"};
}

Dataset dataset_preset(const std::string& name) {
  // Means from Kwon et al. 2023 (PagedAttention, SOSP'23) Fig. 11: ShareGPT input 161.31 /
  // output 337.99 tokens, Alpaca 19.31 / 58.45 (OPT tokenizer). The paper gives histograms, not
  // spreads: the coefficient of variation of 1.0 is memwall's assumption for the long right tail
  // those histograms show. Samples longer than the paper's OPT context (2048 tokens in total,
  // prompts up to 1024) are drawn again, as the paper's setup filters them.
  Dataset d;
  if (name == "sharegpt") {
    d.name = "sharegpt";
    d.source =
        "Kwon et al. 2023 (PagedAttention) Fig. 11 means 161.31 in / 337.99 out tokens; "
        "log-normal with assumed CV 1.0; input <= 1024, input+output <= 2048";
    d.input = LengthDistribution::lognormal(161.31, 1.0);
    d.output = LengthDistribution::lognormal(337.99, 1.0);
    d.max_input_tokens = 1024;
    d.max_total_tokens = 2048;
    return d;
  }
  if (name == "alpaca") {
    d.name = "alpaca";
    d.source =
        "Kwon et al. 2023 (PagedAttention) Fig. 11 means 19.31 in / 58.45 out tokens; "
        "log-normal with assumed CV 1.0; input <= 1024, input+output <= 2048";
    d.input = LengthDistribution::lognormal(19.31, 1.0);
    d.output = LengthDistribution::lognormal(58.45, 1.0);
    d.max_input_tokens = 1024;
    d.max_total_tokens = 2048;
    return d;
  }
  if (name.rfind("fixed:", 0) == 0) {
    const auto parts = split(name.substr(6), ',');
    if (parts.size() == 2) {
      d.name = name;
      d.source = "fixed lengths given on the command line";
      d.input = LengthDistribution::fixed(parse_tokens(parts[0], "--dataset fixed:IN"));
      d.output = LengthDistribution::fixed(parse_tokens(parts[1], "--dataset fixed:,OUT"));
      return d;
    }
    throw InputError("--dataset", name, "fixed:IN,OUT with two token counts");
  }
  throw InputError::unknown_name("--dataset", name, dataset_names());
}

void validate(const WorkloadSpec& s) {
  const auto& a = s.arrival;
  if (a.kind == ArrivalKind::poisson || a.kind == ArrivalKind::gamma) {
    if (!std::isfinite(a.rate_per_s) || a.rate_per_s <= 0 || a.rate_per_s > 1e9)
      throw InputError("--rate", fmt::format("{}", a.rate_per_s), "requests/s in (0, 1e9]");
  }
  if (a.kind == ArrivalKind::gamma && (!std::isfinite(a.cv) || a.cv <= 0 || a.cv > 100))
    throw InputError("--cv", fmt::format("{}", a.cv), "a coefficient of variation in (0, 100]");
  if (a.kind == ArrivalKind::closed_loop && (a.concurrency < 1 || a.concurrency > 10'000'000))
    throw InputError("--concurrency", std::to_string(a.concurrency), "clients in [1, 10000000]");
  if (!(a.ramp_s >= 0) || !std::isfinite(a.ramp_s) || a.ramp_s > 1e7)
    throw InputError("ramp", std::to_string(a.ramp_s), "seconds in [0, 1e7]");
  if (a.kind == ArrivalKind::trace) {
    if (s.trace.empty())
      throw InputError("--trace", "(empty)", "a trace with at least one request");
  } else if (s.requests < 1 || s.requests > 100'000'000) {
    throw InputError("--requests", std::to_string(s.requests), "a count in [1, 100000000]");
  }
  if (!std::isfinite(s.prefix_share) || s.prefix_share < 0 || s.prefix_share > 1)
    throw InputError("--prefix-hit-rate", fmt::format("{}", s.prefix_share),
                     "a share of each prompt in [0, 1]");
  if (s.prefix_pool < 1 || s.prefix_pool > 1'000'000'000)
    throw InputError("--prefix-pool", std::to_string(s.prefix_pool), "contexts in [1, 1e9]");
  const auto& d = s.lengths;
  if (d.max_total_tokens > 0 && d.max_total_tokens < 2)
    throw InputError("--max-len", std::to_string(d.max_total_tokens), "at least 2 tokens");
}

RequestSource::RequestSource(const WorkloadSpec& spec)
    : spec_(spec),
      length_rng_(spec.seed),
      arrival_rng_(spec.seed ^ 0x9E3779B97F4A7C15ull),
      prefix_rng_(spec.seed ^ 0xC2B2AE3D27D4EB4Full) {
  for (const Request& r : spec_.trace) prefix_base_ = std::max(prefix_base_, r.prefix_id + 1);
  validate(spec_);
  if (spec_.arrival.kind == ArrivalKind::trace) {
    std::stable_sort(spec_.trace.begin(), spec_.trace.end(),
                     [](const Request& x, const Request& y) { return x.arrival_s < y.arrival_s; });
    total_ = static_cast<int64_t>(spec_.trace.size());
  } else {
    total_ = spec_.requests;
  }
}

bool RequestSource::next(Request& out) {
  if (produced_ >= total_) return false;
  if (spec_.arrival.kind == ArrivalKind::trace) {
    out = spec_.trace[static_cast<size_t>(produced_++)];
    assign_prefix(out);
    return true;
  }
  const Dataset& d = spec_.lengths;
  out = Request{};
  // Draw again while over the dataset's limits (bounded: a limit nothing satisfies is an error).
  for (int attempt = 0;; ++attempt) {
    out.input_tokens = d.input.sample(length_rng_);
    out.output_tokens = d.output.sample(length_rng_);
    const bool input_ok = d.max_input_tokens == 0 || out.input_tokens <= d.max_input_tokens;
    const bool total_ok =
        d.max_total_tokens == 0 || out.input_tokens + out.output_tokens <= d.max_total_tokens;
    if (input_ok && total_ok) break;
    if (attempt > 10'000)
      throw InputError("--max-len", std::to_string(d.max_total_tokens),
                       fmt::format("a limit that lengths {} / {} can meet", d.input.describe(),
                                   d.output.describe()));
  }
  const auto& a = spec_.arrival;
  if (a.kind == ArrivalKind::poisson) {
    if (produced_ > 0)
      clock_s_ += std::exponential_distribution<double>(a.rate_per_s)(arrival_rng_);
  } else if (a.kind == ArrivalKind::gamma) {
    // Gamma gaps with mean 1/rate and coefficient of variation cv: shape 1/cv^2, scale cv^2/rate.
    const double shape = 1.0 / (a.cv * a.cv);
    if (produced_ > 0)
      clock_s_ +=
          std::gamma_distribution<double>(shape, 1.0 / (a.rate_per_s * shape))(arrival_rng_);
  }
  out.arrival_s = clock_s_;
  ++produced_;
  assign_prefix(out);
  return true;
}

void RequestSource::assign_prefix(Request& r) {
  if (spec_.prefix_share <= 0 || r.prefix_id >= 0) return;
  const auto tokens = static_cast<int32_t>(std::floor(spec_.prefix_share * r.input_tokens));
  const auto k = std::uniform_int_distribution<int64_t>(0, spec_.prefix_pool - 1)(prefix_rng_);
  if (tokens < 1) return;
  r.prefix_id = static_cast<int32_t>(prefix_base_ + k);
  r.prefix_tokens = tokens;
}

}  // namespace memwall::serve
