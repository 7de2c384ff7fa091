// Physical quantities as distinct types, so a byte count can never be passed where a FLOP count or
// a time is expected. Each is a double in SI base units (bytes, FLOPs, seconds, watts, US dollars).
#pragma once

#include <cmath>
#include <compare>

namespace memwall {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : v_(v) {}
  constexpr double value() const { return v_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(v_ + o.v_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(v_ - o.v_); }
  constexpr Quantity& operator+=(Quantity o) { v_ += o.v_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { v_ -= o.v_; return *this; }
  constexpr Quantity operator*(double k) const { return Quantity(v_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(v_ / k); }
  constexpr Quantity& operator*=(double k) { v_ *= k; return *this; }
  constexpr double operator/(Quantity o) const { return v_ / o.v_; }  // a dimensionless ratio
  constexpr auto operator<=>(const Quantity&) const = default;
  friend constexpr Quantity operator*(double k, Quantity q) { return Quantity(k * q.v_); }

 private:
  double v_ = 0.0;
};

using Bytes = Quantity<struct BytesTag>;
using Flops = Quantity<struct FlopsTag>;
using Seconds = Quantity<struct SecondsTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;
using Watts = Quantity<struct WattsTag>;
using Joules = Quantity<struct JoulesTag>;
using Dollars = Quantity<struct DollarsTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.value() / r.value()); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.value() / r.value()); }
constexpr BytesPerSecond operator/(Bytes b, Seconds s) { return BytesPerSecond(b.value() / s.value()); }
constexpr FlopsPerSecond operator/(Flops f, Seconds s) { return FlopsPerSecond(f.value() / s.value()); }
constexpr Bytes operator*(BytesPerSecond r, Seconds s) { return Bytes(r.value() * s.value()); }
constexpr Flops operator*(FlopsPerSecond r, Seconds s) { return Flops(r.value() * s.value()); }
constexpr Joules operator*(Watts p, Seconds s) { return Joules(p.value() * s.value()); }

// Decimal (SI) and binary prefixes. Vendors quote memory bandwidth and link rates in decimal units
// (1 GB/s = 1e9 B/s) and HBM capacity in "GB" that is usually GiB-sized; datasheet units are kept.
inline constexpr double kKilo = 1e3, kMega = 1e6, kGiga = 1e9, kTera = 1e12, kPeta = 1e15;
inline constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;

constexpr Bytes gib(double x) { return Bytes(x * kGiB); }
constexpr Bytes gb(double x) { return Bytes(x * kGiga); }
constexpr BytesPerSecond gb_per_s(double x) { return BytesPerSecond(x * kGiga); }
constexpr FlopsPerSecond tflop_per_s(double x) { return FlopsPerSecond(x * kTera); }
constexpr Seconds ms(double x) { return Seconds(x * 1e-3); }
constexpr Seconds us(double x) { return Seconds(x * 1e-6); }

}  // namespace memwall
