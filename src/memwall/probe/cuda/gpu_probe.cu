// run_gpu_probe on NVIDIA GPUs: CUDA runtime, cuBLAS and cuBLASLt. Every CUDA error becomes a note
// on the device (or the report's reason) instead of an abort, so the host probe still prints.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "memwall/probe/gpu_probe.h"

namespace memwall::probe {
namespace {

struct Failure {
  std::string what;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Failure{std::string(what) + ": " + cudaGetErrorString(e)};
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Failure{std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s))};
}

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { check(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct PinnedBuffer {
  void* p = nullptr;
  explicit PinnedBuffer(size_t bytes) { check(cudaMallocHost(&p, bytes), "cudaMallocHost"); }
  ~PinnedBuffer() { cudaFreeHost(p); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};

// Best time in seconds of `launch` over `reps` runs after one warm-up, timed with CUDA events.
template <class F>
double best_seconds(int reps, F launch) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  check(cudaDeviceSynchronize(), "warm-up");
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best * 1e-3;
}

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// Values in [-1, 1) from a hash of the index: GEMMs on zeros draw less power and clock higher.
__device__ float pseudo_random(size_t i) {
  uint32_t x = static_cast<uint32_t>(i) * 2654435761u + 12345u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return static_cast<float>(x & 0xffffu) / 32768.0f - 1.0f;
}

template <class T>
__global__ void fill_kernel(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = T(pseudo_random(i));
}

template <class T>
void fill(void* p, size_t n) {
  fill_kernel<T><<<1024, 256>>>(static_cast<T*>(p), n);
  check(cudaGetLastError(), "fill kernel");
}

GpuTransfer device_copy(const GpuDevice& d, const GpuProbeOptions& o) {
  const size_t bytes = static_cast<size_t>(o.buffer_bytes) / 16 * 16;
  DeviceBuffer in(bytes), out(bytes);
  check(cudaMemset(in.p, 1, bytes), "cudaMemset");
  const size_t n = bytes / sizeof(float4);
  const int blocks = std::max(1, d.multiprocessors) * 8;
  const double s = best_seconds(o.repetitions, [&] {
    copy_kernel<<<blocks, 512>>>(static_cast<const float4*>(in.p), static_cast<float4*>(out.p), n);
  });
  // A copy reads and writes every byte (STREAM's count).
  return {"device copy", 2.0 * static_cast<double>(bytes), s};
}

std::vector<GpuTransfer> host_transfers(const GpuProbeOptions& o) {
  const size_t bytes = static_cast<size_t>(o.buffer_bytes / 4);
  PinnedBuffer host(bytes);
  DeviceBuffer dev(bytes);
  const double h2d = best_seconds(o.repetitions, [&] {
    check(cudaMemcpyAsync(dev.p, host.p, bytes, cudaMemcpyHostToDevice), "H2D");
  });
  const double d2h = best_seconds(o.repetitions, [&] {
    check(cudaMemcpyAsync(host.p, dev.p, bytes, cudaMemcpyDeviceToHost), "D2H");
  });
  return {{"host to device (pinned)", static_cast<double>(bytes), h2d},
          {"device to host (pinned)", static_cast<double>(bytes), d2h}};
}

// A square n x n GEMM C = A B through cublasGemmEx (column-major, no transposes), its operands
// filled with pseudo-random values on the device.
struct SquareGemm {
  cublasHandle_t h;
  cudaDataType_t ab, c;
  cublasComputeType_t compute;
  int n;
  DeviceBuffer a, b, out;
  SquareGemm(cublasHandle_t handle, cudaDataType_t ab_type, cudaDataType_t c_type,
             cublasComputeType_t compute_type, size_t elem, long long size)
      : h(handle), ab(ab_type), c(c_type), compute(compute_type), n(static_cast<int>(size)),
        a(count(size) * elem), b(count(size) * elem),
        out(count(size) * (c_type == CUDA_R_32F ? 4 : 2)) {
    if (ab == CUDA_R_32F) {
      fill<float>(a.p, count(size));
      fill<float>(b.p, count(size));
    } else if (ab == CUDA_R_16F) {
      fill<__half>(a.p, count(size));
      fill<__half>(b.p, count(size));
    } else {
      fill<__nv_bfloat16>(a.p, count(size));
      fill<__nv_bfloat16>(b.p, count(size));
    }
  }
  static size_t count(long long size) {
    return static_cast<size_t>(size) * static_cast<size_t>(size);
  }
  void run() const {
    const float alpha = 1.0f, beta = 0.0f;
    check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.p, ab, n, b.p, ab, n, &beta,
                       out.p, c, n, compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
  double flops() const { return 2.0 * n * n * n; }
};

// Best of `reps` calls: a burst.
GpuGemm cublas_gemm(cublasHandle_t h, const char* precision, cudaDataType_t ab, cudaDataType_t c,
                    cublasComputeType_t compute, size_t elem, long long n, int reps) {
  const SquareGemm g(h, ab, c, compute, elem, n);
  const double s = best_seconds(reps, [&] { g.run(); });
  return {precision, "cublas", n, n, n, g.flops(), s};
}

// The same GEMM back to back for `seconds`, timed in windows of `per_window` calls: the mean time
// per call over the second half of the windows, once the power limit has settled the SM clock
// (a burst of a few calls runs at the clock a cool, idle board starts with).
GpuGemm cublas_gemm_sustained(cublasHandle_t h, const char* precision, cudaDataType_t ab,
                              cudaDataType_t c, cublasComputeType_t compute, size_t elem,
                              long long n, double seconds) {
  const SquareGemm g(h, ab, c, compute, elem, n);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  const int per_window = 20;
  std::vector<float> window_ms;
  double total_ms = 0;
  while (total_ms < seconds * 1e3) {
    check(cudaEventRecord(start), "cudaEventRecord");
    for (int i = 0; i < per_window; ++i) g.run();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    window_ms.push_back(ms);
    total_ms += ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const size_t half = window_ms.size() / 2;
  double tail_ms = 0;
  for (size_t i = half; i < window_ms.size(); ++i) tail_ms += window_ms[i];
  const double calls = static_cast<double>((window_ms.size() - half) * per_window);
  GpuGemm r{precision, "cublas", n, n, n, g.flops(), tail_ms * 1e-3 / calls};
  r.sustained_seconds = total_ms * 1e-3;
  return r;
}

// FP8 (e4m3) GEMM through cuBLASLt: A transposed ("TN", the layout FP8 requires), bf16 output,
// fp32 accumulation. Needs compute capability 8.9 or newer.
GpuGemm cublaslt_fp8_gemm(long long n, int reps) {
  cublasLtHandle_t lt;
  check(cublasLtCreate(&lt), "cublasLtCreate");
  const size_t count = static_cast<size_t>(n) * static_cast<size_t>(n);
  DeviceBuffer a(count), b(count), d(count * 2), workspace(32u << 20);
  fill<__nv_fp8_e4m3>(a.p, count);
  fill<__nv_fp8_e4m3>(b.p, count);
  cublasLtMatmulDesc_t op;
  check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
  const cublasOperation_t t = CUBLAS_OP_T, nt = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "TRANSA");
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt), "TRANSB");
  cublasLtMatrixLayout_t la, lb, lc;
  const uint64_t nu = static_cast<uint64_t>(n);
  check(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, nu, nu, n), "layout A");
  check(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, nu, nu, n), "layout B");
  check(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, nu, nu, n), "layout C");
  cublasLtMatmulPreference_t pref;
  check(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
  const size_t ws = 32u << 20;
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof ws),
        "workspace");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heuristic, &found),
        "AlgoGetHeuristic");
  if (found == 0) throw Failure{"cuBLASLt has no fp8 algorithm for this device"};
  const float alpha = 1.0f, beta = 0.0f;
  const double s = best_seconds(reps, [&] {
    check(cublasLtMatmul(lt, op, &alpha, a.p, la, b.p, lb, &beta, d.p, lc, d.p, lc,
                         &heuristic.algo, workspace.p, ws, 0),
          "cublasLtMatmul");
  });
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
  return {"fp8_e4m3", "cublaslt", n, n, n, 2.0 * n * n * n, s};
}

void measure_gemms(GpuDevice& d, const GpuProbeOptions& o) {
  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  const long long n = o.gemm_size;
  struct Case {
    const char* precision;
    cudaDataType_t ab, c;
    cublasComputeType_t compute;
    size_t elem;
    int min_major;  // tensor-core path from this compute capability
  };
  const Case cases[] = {
      {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 0},
      {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 8},
      {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 7},
      {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 8},
  };
  for (const Case& c : cases) {
    if (d.compute_capability_major < c.min_major) {
      d.notes.push_back(std::string(c.precision) + " GEMM skipped: needs sm_" +
                        std::to_string(c.min_major) + "0 or newer");
      continue;
    }
    try {
      d.gemms.push_back(cublas_gemm(h, c.precision, c.ab, c.c, c.compute, c.elem, n,
                                    o.repetitions));
    } catch (const Failure& f) {
      d.notes.push_back(std::string(c.precision) + " GEMM failed: " + f.what);
    }
  }
  // The sustained rate of the 16-bit path inference and training run on (bf16 from sm_80), on
  // device 0 only (the profile's fractions describe device 0).
  if (o.sustained_seconds > 0 && d.index == 0 && d.compute_capability_major >= 7) {
    const bool bf16 = d.compute_capability_major >= 8;
    try {
      d.gemms.push_back(cublas_gemm_sustained(h, bf16 ? "bf16" : "fp16",
                                              bf16 ? CUDA_R_16BF : CUDA_R_16F,
                                              bf16 ? CUDA_R_16BF : CUDA_R_16F, CUBLAS_COMPUTE_32F,
                                              2, n, o.sustained_seconds));
    } catch (const Failure& f) {
      d.notes.push_back(std::string("sustained GEMM failed: ") + f.what);
    }
  }
  cublasDestroy(h);
  const int cc = d.compute_capability_major * 10 + d.compute_capability_minor;
  if (cc < 89) {
    d.notes.push_back("fp8 GEMM skipped: needs sm_89 or newer");
    return;
  }
  try {
    d.gemms.push_back(cublaslt_fp8_gemm(n, o.repetitions));
  } catch (const Failure& f) {
    d.notes.push_back(std::string("fp8 GEMM failed: ") + f.what);
  }
}

}  // namespace

GpuReport run_gpu_probe(const GpuProbeOptions& o) {
  GpuReport r;
  r.built = true;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    r.reason = e != cudaSuccess ? std::string("no usable GPU: ") + cudaGetErrorString(e)
                                : "no GPU found";
    return r;
  }
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  r.runtime = "CUDA runtime " + std::to_string(runtime / 1000) + "." +
              std::to_string(runtime % 1000 / 10) + ", driver " + std::to_string(driver / 1000) +
              "." + std::to_string(driver % 1000 / 10);
  // Quick runs measure device 0 only.
  const int measured = o.quick ? 1 : count;
  for (int i = 0; i < measured; ++i) {
    GpuDevice d;
    d.index = i;
    cudaDeviceProp p{};
    if (cudaSetDevice(i) != cudaSuccess || cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      d.notes.push_back("cannot open device");
      r.devices.push_back(d);
      continue;
    }
    d.name = p.name;
    d.compute_capability_major = p.major;
    d.compute_capability_minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    d.memory_bytes = static_cast<double>(p.totalGlobalMem);
    try {
      d.transfers.push_back(device_copy(d, o));
      for (auto& t : host_transfers(o)) d.transfers.push_back(t);
    } catch (const Failure& f) {
      d.notes.push_back("bandwidth: " + f.what);
    }
    measure_gemms(d, o);
    r.devices.push_back(d);
  }
  // Peer copies between every pair that allows peer access.
  for (int i = 0; i < measured; ++i)
    for (int j = 0; j < count; ++j) {
      int can = 0;
      if (i == j || cudaDeviceCanAccessPeer(&can, i, j) != cudaSuccess || !can) continue;
      try {
        const size_t bytes = static_cast<size_t>(o.buffer_bytes / 4);
        check(cudaSetDevice(j), "cudaSetDevice");
        DeviceBuffer dst(bytes);
        check(cudaSetDevice(i), "cudaSetDevice");
        DeviceBuffer src(bytes);
        const cudaError_t pe = cudaDeviceEnablePeerAccess(j, 0);
        if (pe != cudaSuccess && pe != cudaErrorPeerAccessAlreadyEnabled)
          check(pe, "cudaDeviceEnablePeerAccess");
        cudaGetLastError();  // clear "already enabled"
        const double s = best_seconds(o.repetitions, [&] {
          check(cudaMemcpyPeerAsync(dst.p, j, src.p, i, bytes), "cudaMemcpyPeerAsync");
        });
        r.peers.push_back({"peer " + std::to_string(i) + " -> " + std::to_string(j),
                           static_cast<double>(bytes), s});
      } catch (const Failure& f) {
        r.devices[static_cast<size_t>(i)].notes.push_back("peer " + std::to_string(i) + " -> " +
                                                          std::to_string(j) + ": " + f.what);
      }
    }
  r.ran = !r.devices.empty();
  return r;
}

}  // namespace memwall::probe
