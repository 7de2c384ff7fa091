#include "memwall/hw/host.h"

namespace memwall {

std::optional<BytesPerSecond> Host::memory_bandwidth() const {
  if (memory_bandwidth_per_socket_stated) return *memory_bandwidth_per_socket_stated * sockets;
  if (!memory_channels_per_socket || !memory_mt_s) return std::nullopt;
  // A DDR4/DDR5 channel is 64 bits wide (DDR5: two 32-bit sub-channels): 8 bytes per transfer.
  return BytesPerSecond(double(sockets) * *memory_channels_per_socket * *memory_mt_s * 1e6 * 8.0);
}

std::optional<Bytes> Host::installed_memory() const {
  if (!installed_memory_per_socket) return std::nullopt;
  return *installed_memory_per_socket * sockets;
}

std::optional<Bytes> Host::max_memory() const {
  if (!max_memory_per_socket) return std::nullopt;
  return *max_memory_per_socket * sockets;
}

std::string Host::peak_path(Precision weight) const {
  const double b = bytes_per_element(weight);
  if (b <= 1.0 && int8_per_cycle) return "int8";
  if (b <= 2.0 && bf16_per_cycle) return "bf16";
  return "fp32";
}

std::optional<FlopsPerSecond> Host::peak(Precision weight) const {
  if (!cores_per_socket || !base_clock_ghz) return std::nullopt;
  const std::string path = peak_path(weight);
  const std::optional<double> per_cycle =
      path == "int8" ? int8_per_cycle : (path == "bf16" ? bf16_per_cycle : fp32_per_cycle);
  if (!per_cycle) return std::nullopt;
  return FlopsPerSecond(double(cores()) * *base_clock_ghz * 1e9 * *per_cycle);
}

}  // namespace memwall
