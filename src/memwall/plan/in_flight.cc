#include "memwall/plan/in_flight.h"

#include <algorithm>
#include <cmath>

namespace memwall::plan {

namespace {

constexpr double kZ99 = 2.3263478740408408;  // standard normal 0.99 quantile

// The standard normal quantile, by bisection on Phi(z) = erfc(-z / sqrt 2) / 2.
double normal_quantile(double probability) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 80; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < probability ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

double poisson_quantile(double mean, double probability) {
  if (!(mean > 0)) return 0;
  if (mean > 500) {
    const double z = normal_quantile(probability);
    return std::ceil(mean + z * std::sqrt(mean) + (z * z - 1) / 6);
  }
  // P(N = k) = e^-mean mean^k / k!, summed from k = 0 (e^-500 is still a normal double).
  double pmf = std::exp(-mean), cdf = pmf;
  double k = 0;
  while (cdf < probability && pmf > 0) {
    k += 1;
    pmf *= mean / k;
    cdf += pmf;
  }
  return k;
}

double poisson_exceeds(double mean, double k) {
  if (k < 0) return 1;
  if (!(mean > 0)) return 0;
  k = std::floor(k);
  if (k > mean + 12 * std::sqrt(mean) + 40) return 0;
  if (mean > 500) return 0.5 * std::erfc((k + 0.5 - mean) / std::sqrt(2 * mean));
  double pmf = std::exp(-mean), cdf = pmf;
  for (double i = 1; i <= k; i += 1) {
    pmf *= mean / i;
    cdf += pmf;
  }
  return std::max(0.0, 1.0 - cdf);
}

double sequences_to_hold(double mean_in_flight) {
  return poisson_quantile(mean_in_flight, 0.999);
}

int sequences_within_kv(double capacity_tokens, double mean_context, double sd_context) {
  if (!(capacity_tokens > 0) || !(mean_context > 0)) return 0;
  const double zs = kZ99 * std::max(0.0, sd_context);
  const double root =
      (-zs + std::sqrt(zs * zs + 4 * mean_context * capacity_tokens)) / (2 * mean_context);
  return static_cast<int>(std::min(std::floor(root * root + 1e-9), double(1 << 30)));
}

}  // namespace memwall::plan
