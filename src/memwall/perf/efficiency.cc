#include "memwall/perf/efficiency.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/train/framework.h"

namespace memwall::perf {
namespace {

Efficiency make_default() {
  Efficiency e;
  // STREAM triad (2 loads + 1 store), 100 % occupancy rows of te42kyfo/gpu-benches gpu-stream:
  // A100-40 1360/1555 = 0.875 (HBM2); A100-80 1759/2039 = 0.863 and H100 PCIe 1832/2000 = 0.916
  // (HBM2e, mean 0.89); H200 3534/4800 = 0.736 (HBM3e); L40 768/864 = 0.889 (GDDR6). Other memory
  // types use the median of the five, 0.875.
  // H20: it streams far below its 4.0 TB/s datasheet. NVIDIA/nvbandwidth issue #48: device-local
  // copy 1116 GB/s on an H20-3e (4.8 TB/s datasheet), i.e. ~2.2 TB/s of reads + writes, 0.46. The
  // Qwen3 docs' speed benchmark (SGLang 0.4.6, batch 1; dev cases inf-qwen3doc-*) decodes at 0.39
  // of the datasheet, 0.85 of that: the share PyTorch-runtime engines' own kernels reach on an
  // H100 SXM too (engine profiles' memory_stream_fraction). A device entry, not a memory type:
  // other HBM3 parts reach ~0.9.
  e.memory_bandwidth_fraction.fallback = 0.875;
  e.memory_bandwidth_fraction.entries = {{"HBM2e", 0.89},  {"HBM2", 0.875},     {"HBM3e", 0.736},
                                         {"GDDR6", 0.889}, {"nvidia-h20", 0.46}};
  e.memory_bandwidth_fraction.evidence =
      "STREAM triad / datasheet bandwidth, te42kyfo/gpu-benches gpu-stream (A100-40, A100-80, "
      "H100 PCIe, H200, L40); unlisted memory types use the median 0.875; H20: 0.46, nvbandwidth "
      "issue #48 device-local copy";
  // Maximum achievable matmul FLOP/s over datasheet dense peak, stas00/ml-engineering MAMF finder
  // table: A100 SXM 271.2/312 = 0.869, A100 PCIe 252.9/312 = 0.811 (Ampere 0.84); H100 SXM
  // 794.5/989 = 0.803, GH200 828.6/989 = 0.838 (Hopper bf16 0.82); H100 fp8 1402.6/1979 = 0.709,
  // H200 fp8 1453.4/1979 = 0.734 (Hopper fp8 0.72); B200 1745/2250 = 0.776, GB200 1822/2500 =
  // 0.729 (Blackwell bf16 0.75), B200 fp8 3432.5/4500 = 0.763; MI300X 668.4/1300 = 0.514, MI325X
  // 784.9/1300 = 0.604 (CDNA 3: 0.56); MI355X 1565/2300 = 0.68 (CDNA 4); Gaudi 2 418.7/432 = 0.969.
  // Blackwell FP4 (block-scaled MXF4/NVFP4): cuBLASLt (cublasTest 13.3) 8192^3 on B200 5239 of
  // 9000 TFLOPS = 0.58 (DeepGEMM's own kernel 5702, 0.63; deepseek-ai/DeepGEMM PR #348, CUDA 12.9);
  // vLLM's tuned CUTLASS NVFP4 GEMM reaches 3.0-3.9 PFLOPS at 8k-16k rows (vllm PR #20646).
  // CDNA 4 FP4 (MXFP4 a4w4, block 32): AITER's tuned MI355X configs peak at 5775 of 10000 TFLOPS =
  // 0.58 (ROCm/aiter PR #2037, 2026-02); AITER on Llama training shapes 4454-5254 (AMD-AGI/
  // Primus-Turbo PR #514, 2026-09), so the bf16 fraction (0.68) does not carry over to FP4.
  // Unlisted architectures use the median of the table, 0.76.
  e.gemm_peak_fraction.fallback = 0.76;
  e.gemm_peak_fraction.entries = {
      {"Ampere", 0.84},      {"Hopper/fp8", 0.72},    {"Hopper", 0.82},
      {"Blackwell/fp8", 0.763}, {"Blackwell/fp4", 0.58}, {"Blackwell", 0.75}, {"CDNA 3", 0.56},
      {"CDNA 4/fp4", 0.58},  {"CDNA 4", 0.68},        {"Gaudi 2", 0.97}};
  e.gemm_peak_fraction.evidence =
      "MAMF finder best-shape matmul / dense peak, stas00/ml-engineering (A100, H100, GH200, H200, "
      "B200, GB200, MI300X, MI325X, MI355X, Gaudi 2); FP4: cuBLASLt/DeepGEMM on B200, AITER on "
      "MI355X; unlisted architectures use the median 0.76";
  // Sustained / burst compute on the 700 W Hopper SXM parts. Their dense peaks assume 1830 MHz
  // (stas00/ml-engineering, accelerator README, "clock speed"); under full load at the 700 W limit
  // an H200 "cannot reliably sustain" 1830 MHz and is validated at 1500 MHz instead
  // (tile-ai/TileOPs PR #1588); random operands draw more power than predictable ones and clock
  // lower (H. He, "Strangely, Matrix Multiplications on GPUs Run Faster When Given 'Predictable'
  // Data", thonking.ai); capped at 500 W an H100 sustains 546-585 TFLOPS of cuBLAS BF16 on
  // 8k-65k-row shapes (pytorch/FBGEMM PR #2546), 0.70-0.74 of its 794.5 MAMF burst. The MAMF
  // figures are best-of-many short runs per shape. The clocks above put the fraction at
  // 0.84-0.93 (1500-1650 of the ~1780 MHz a burst holds); 0.88 is the value in that range that
  // centres the dev set's 24 H100/H800 training runs (MosaicML LLM Foundry, DeepSeek-V3): median
  // signed error +10.5 % -> +0.2 % (validation/REPORT.md). The 400-600 W Hopper
  // parts (H20, PCIe, NVL) and GH200 (1000 W module) have no evidence: 1.
  e.sustained_compute_fraction.fallback = 1.0;
  e.sustained_compute_fraction.entries = {
      {"nvidia-h100-sxm", 0.88}, {"nvidia-h200-sxm", 0.88}, {"nvidia-h800-sxm", 0.88}};
  e.sustained_compute_fraction.evidence =
      "700 W Hopper SXM parts cannot hold the 1830 MHz their peaks assume under sustained load "
      "(tile-ai/TileOPs PR #1588; pytorch/FBGEMM PR #2546 at 500 W); 0.88 of the MAMF burst, "
      "centred on the dev set's H100/H800 training runs";
  // Engines: data/engines/*.json, one file per engine with its versions, each figure with its
  // source (docs/infer.md, "Engine profiles"); default.json sorts first and is the default.
  for (const auto& f : data::embedded_files()) {
    if (f.path.rfind("engines/", 0) != 0) continue;
    const std::string origin = "built-in data/" + std::string(f.path);
    for (auto& p : read_engine_profiles(parse_document(f.content, origin), origin))
      e.engines.push_back(std::move(p));
  }
  if (e.engines.empty() || e.engines.front().name != "default")
    throw InputError("built-in data/engines: the first profile must be engines/default.json");
  return e;
}

double number_in_range(const Json& v, const std::string& field, double lo, double hi) {
  if (!v.is_number()) throw InputError(field, v.dump(), "a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw InputError(field, v.dump(), "a number in [" + std::to_string(lo) + ", " +
                                          std::to_string(hi) + "]");
  return x;
}

void apply_table(FractionTable& t, const Json& v, const std::string& field) {
  if (v.is_number()) {
    t.fallback = number_in_range(v, field, 1e-3, 1.0);
    t.entries.clear();
  } else if (v.is_object()) {
    for (const auto& [key, val] : v.items()) {
      const double x = number_in_range(val, field + "." + key, 1e-3, 1.0);
      if (key == "default") {
        t.fallback = x;
        continue;
      }
      const std::string lower_key = to_lower(key);  // clang 14 cannot capture structured bindings
      auto it = std::find_if(t.entries.begin(), t.entries.end(),
                             [&](const auto& e) { return to_lower(e.first) == lower_key; });
      if (it != t.entries.end())
        it->second = x;
      else
        t.entries.emplace_back(key, x);
    }
  } else {
    throw InputError(field, v.dump(), "a fraction or an object of key -> fraction");
  }
  t.evidence = "calibration file";
}

// Dotted release numbers compared numerically ("0.9" < "0.10.2"). Each part is compared as a
// digit string (leading zeros dropped, then length, then lexicographic), so a part of any length
// compares without overflow; characters that are not digits are ignored.
bool version_less(const std::string& a, const std::string& b) {
  auto next_part = [](const std::string& s, size_t& i) {
    std::string digits;
    for (; i < s.size() && s[i] != '.'; ++i)
      if (std::isdigit(static_cast<unsigned char>(s[i])) && !(digits.empty() && s[i] == '0'))
        digits += s[i];
    ++i;
    return digits;
  };
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const std::string x = next_part(a, i), y = next_part(b, j);
    if (x.size() != y.size()) return x.size() < y.size();
    if (x != y) return x < y;
  }
  return false;
}

// A vendor's conservative prior for families without evidence (docs/infer.md "Uncalibrated
// families"). Each value stays below what published runs on that family reached, so an estimate
// on an unmeasured chip errs slow, never fast.
struct VendorPrior {
  const char* vendor;  // lower-case prefix of Accelerator::vendor
  double gemm, memory, attention, communication;
  const char* evidence;
};

// clang-format off
constexpr VendorPrior kVendorPriors[] = {
    {"intel", 0.55, 0.75, 0.40, 0.60,
     "Intel Gaudi 3 prior: no published matmul or STREAM measurement; shipping parts run the MME at "
     "1.6 of the 1.75 GHz the 1835 TFLOPS peak assumes (stas00/ml-engineering), and Gaudi 2's "
     "measured 0.97 is not carried over to a new generation"},
    {"huawei", 0.55, 0.75, 0.40, 0.50,
     "Ascend prior: memory and attention unmeasured; communication at half the line rate where the "
     "node states no measured HCCS figure (the 910B nodes do: limulidae's 8-card collectives)"},
    {"amd", 0.50, 0.80, 0.40, 0.70,
     "AMD prior for CDNA generations without a MAMF measurement: below CDNA 3's measured 0.56"},
    {"google", 0.55, 0.80, 0.45, 0.70,
     "Google TPU prior: no measurement in memwall's evidence; conservative"},
    {"aws", 0.50, 0.75, 0.40, 0.60,
     "AWS Trainium/Inferentia prior: no measurement in memwall's evidence; conservative"},
};
// clang-format on

// A measured best-shape GEMM (MAMF) for a family that otherwise runs on its vendor's prior: it
// replaces only the prior's GEMM fraction; memory and attention stay priors, so the family stays
// "uncalibrated". Matched on the accelerator's architecture prefix.
struct MeasuredGemm {
  const char* vendor;  // lower-case prefix of Accelerator::vendor
  const char* arch;    // lower-case prefix of Accelerator::arch
  double gemm;
  const char* evidence;
};
constexpr MeasuredGemm kMeasuredGemms[] = {
    // stas00's MAMF finder ported to torch_npu (github gameofdimension/gpu_benchmark README,
    // 2024-11, torch 2.4 + torch_npu): best BF16 matmul 322.5 TFLOPS on an 'Ascend910B2C', i.e.
    // 0.86 of the 910B2's 376 TFLOPS (catalog row, commonly cited); the same tool lineage's
    // limulidae README measures 328 TFLOPS on a 910B (variant not stated) and 286 on an A800
    // (0.92 of 312; A100 SXM MAMF 0.87). Every 910B variant, and the 910C (two 910B-class dies),
    // has the same Da Vinci Cube; other Huawei architectures keep the prior.
    {"huawei", "da vinci", 0.86,
     "Ascend 910B measured GEMM: MAMF 322.5 TFLOPS BF16 on a 910B2C = 0.86 of 376 (github "
     "gameofdimension/gpu_benchmark; limulidae: 328 TFLOPS on a 910B)"},
};

// Vendors with no usable published measurement (Chinese domestic accelerators): the floor of the
// priors above.
constexpr const char* kFloorVendors[] = {"cambricon", "hygon",  "kunlunxin", "baidu",   "moore threads",
                                         "metax",     "biren", "enflame",   "iluvatar"};
constexpr VendorPrior kFloorPrior = {
    "", 0.45, 0.70, 0.35, 0.50,
    "generic prior for accelerator vendors with no usable published measurement (Cambricon, Hygon, "
    "Kunlunxin, Moore Threads, MetaX, Biren, Enflame, Iluvatar): the floor of the vendor priors"};

// nullptr: a vendor memwall has no prior for (a user's own device, a CPU host).
const VendorPrior* vendor_prior(const Accelerator& a) {
  const std::string v = to_lower(a.vendor);
  if (v.empty()) return nullptr;
  for (const auto& p : kVendorPriors) {
    if (v.rfind(p.vendor, 0) == 0) return &p;
  }
  for (const char* f : kFloorVendors) {
    if (v.rfind(f, 0) == 0) return &kFloorPrior;
  }
  return nullptr;
}

}  // namespace

bool FractionTable::has_entry(const Accelerator& a, Precision p) const { return matching(a, p) > 0; }

EfficiencyPrior efficiency_for(const Efficiency& e, const Accelerator& a, Precision p) {
  EfficiencyPrior out;
  const bool file = e.gemm_peak_fraction.evidence == "calibration file";
  const bool nvidia = to_lower(a.vendor).rfind("nvidia", 0) == 0;
  out.calibrated = file || nvidia || e.gemm_peak_fraction.has_entry(a, p);
  const VendorPrior* v = out.calibrated ? nullptr : vendor_prior(a);
  if (!v) {
    out.gemm_peak_fraction = e.gemm_peak_fraction.lookup(a, p);
    out.memory_bandwidth_fraction = e.memory_bandwidth_fraction.lookup(a, p);
    out.attention_compute_fraction = e.attention_compute_fraction;
    out.communication_fraction = 1.0;  // comm/ applies its own sourced link efficiencies
    out.source = out.calibrated ? e.gemm_peak_fraction.evidence
                                : "no measurement of this family and no vendor prior: the median "
                                  "fractions of the calibrated families (" +
                                      e.gemm_peak_fraction.evidence + ")";
    return out;
  }
  out.gemm_peak_fraction = v->gemm;
  out.memory_bandwidth_fraction = v->memory;
  out.attention_compute_fraction = v->attention;
  out.communication_fraction = v->communication;
  out.source = v->evidence;
  const std::string vendor = to_lower(a.vendor), arch = to_lower(a.arch);
  for (const auto& m : kMeasuredGemms) {
    if (vendor.rfind(m.vendor, 0) != 0 || arch.rfind(m.arch, 0) != 0) continue;
    out.gemm_peak_fraction = m.gemm;
    out.source = std::string(m.evidence) + "; " + v->evidence;
    break;
  }
  return out;
}

Node with_communication_prior(Node node, const Accelerator& a, const Efficiency& e) {
  const EfficiencyPrior prior = efficiency_for(e, a, Precision::bf16);
  if (prior.calibrated || prior.communication_fraction >= 1.0 ||
      node.device_link_achievable_bandwidth_per_direction)
    return node;
  node.device_link_achievable_bandwidth_per_direction =
      node.device_link_bandwidth_per_direction * prior.communication_fraction;
  return node;
}

double FractionTable::lookup(const Accelerator& a, Precision p) const {
  const double m = matching(a, p);
  return m > 0 ? m : fallback;
}

double FractionTable::matching(const Accelerator& a, Precision p) const {
  // Compared without case; `arch/prec` is built once (precision keys are lower case).
  const std::string arch_prec = to_lower(a.arch) + "/" + std::string(info(p).peak_key);
  const std::string_view fields[] = {a.id, arch_prec, a.arch, a.memory_type, a.vendor};
  // Most specific field first; within a field, the longest matching key.
  for (int f = 0; f < 5; ++f) {
    double best = -1;
    size_t best_len = 0;
    for (const auto& entry : entries) {
      const std::string& key = entry.first;
      bool match = f == 0 ? (iequals(key, a.id) || std::any_of(a.aliases.begin(), a.aliases.end(),
                                                               [&](const std::string& al) {
                                                                 return iequals(al, key);
                                                               }))
                          : !key.empty() && istarts_with(fields[f], key);
      if (f == 2 && key.find('/') != std::string::npos) match = false;
      if (match && key.size() > best_len) {
        best = entry.second;
        best_len = key.size();
      }
    }
    if (best > 0) return best;
  }
  return -1;
}

namespace {

// "0.6", "0.10.2", "0.4.1.post2", "1.0.0rc4": digits separated by single dots, then at most a
// PEP 440 pre-, post- or dev-release tag (a, b, rc, post, dev with its number).
bool is_release_number(const std::string& v) {
  size_t i = 0;
  while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) ||
                          (v[i] == '.' && i > 0 && v[i - 1] != '.' && i + 1 < v.size() &&
                           std::isdigit(static_cast<unsigned char>(v[i + 1])))))
    ++i;
  if (i == 0) return false;
  std::string tag = v.substr(i);
  if (!tag.empty() && tag.front() == '.') tag.erase(0, 1);
  const size_t digits = tag.find_first_of("0123456789");
  const std::string word = tag.substr(0, digits);
  const bool numbered = digits != std::string::npos &&
                        tag.find_first_not_of("0123456789", digits) == std::string::npos;
  return tag.empty() || (numbered && (word == "a" || word == "b" || word == "rc" ||
                                      word == "post" || word == "dev"));
}

// The profile `name` selects among those of one platform; nullptr when the engine has no profile
// on that platform or none at or below the version asked (`versions` collects the known keys).
const EngineProfile* find_engine(const std::vector<EngineProfile>& engines, const std::string& n,
                                 const std::string& platform, std::vector<std::string>& versions) {
  // Exact key (id@version) or alias first, then the id's current version, then the newest
  // version at or below the one asked.
  for (const auto& e : engines)
    if (e.platform == platform &&
        (e.key() == n || e.key() == n + "/" + platform ||
         std::find(e.aliases.begin(), e.aliases.end(), n) != e.aliases.end()))
      return &e;
  const size_t at = n.find('@');
  const std::string id = n.substr(0, at);
  const EngineProfile* first = nullptr;
  for (const auto& e : engines) {
    if (e.name != id || e.platform != platform) continue;
    if (at == std::string::npos && e.current) return &e;
    if (!first) first = &e;
    versions.push_back(e.key());
  }
  if (!first || at == std::string::npos) return first;
  // The newest profile at or below the version asked ("vllm@0.10.2" -> vllm@0.6 when the
  // profiles are 0.6 and 0.11): figures change with releases, not within them. Only a release
  // number is a version, and none of a major version past the newest profile's: what it
  // changed is unknown ("-1", "0.6abc", "" and "99" are refused).
  const std::string asked = n.substr(at + 1);
  if (!is_release_number(asked)) return nullptr;
  const EngineProfile* newest = nullptr;
  for (const auto& e : engines)
    if (e.name == id && e.platform == platform &&
        (!newest || version_less(newest->version, e.version)))
      newest = &e;
  // The newest profile covers the later releases of its major version (the validation cases
  // run vLLM 0.20 on the 0.14 profile, TensorRT-LLM 1.2 on 1.0), not a later major one.
  const std::string& last = newest->through.empty() ? newest->version : newest->through;
  const std::string major = last.substr(0, last.find('.'));
  if (version_less(major, asked) && asked != major && asked.rfind(major + ".", 0) != 0)
    return nullptr;
  const EngineProfile* best = nullptr;
  for (const auto& e : engines)
    if (e.name == id && e.platform == platform && !version_less(asked, e.version) &&
        (e.through.empty() || !version_less(e.through, asked) ||
         asked.rfind(e.through + ".", 0) == 0) &&
        (!best || version_less(best->version, e.version)))
      best = &e;
  return best;
}

}  // namespace

std::string engine_platform(const Accelerator& a) {
  return to_lower(a.vendor).rfind("amd", 0) == 0 ? "rocm" : "";
}

const EngineProfile& Efficiency::engine(std::string_view name, std::string_view platform) const {
  const std::string n = to_lower(name);
  std::vector<std::string> versions;
  if (!platform.empty())
    if (const EngineProfile* p = find_engine(engines, n, to_lower(platform), versions)) return *p;
  versions.clear();
  if (const EngineProfile* p = find_engine(engines, n, "", versions)) return *p;
  if (!versions.empty())
    throw InputError::unknown_name("engine version", std::string(name), versions);
  throw InputError::unknown_name("engine", std::string(name), engine_names());
}

std::vector<std::string> Efficiency::engine_names() const {
  std::vector<std::string> names;
  for (const auto& e : engines)
    if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
  return names;
}

const Efficiency& default_efficiency() {
  static const Efficiency e = make_default();
  return e;
}

Efficiency apply_calibration(const Efficiency& base, const Json& doc, const std::string& where) {
  if (!doc.is_object()) throw InputError(where, doc.type_name(), "a calibration object");
  Efficiency e = base;
  for (const auto& [key, v] : doc.items()) {
    const std::string field = where + ": " + key;
    if (key == "memory_bandwidth_fraction") {
      apply_table(e.memory_bandwidth_fraction, v, field);
    } else if (key == "gemm_peak_fraction") {
      apply_table(e.gemm_peak_fraction, v, field);
    } else if (key == "sustained_compute_fraction") {
      apply_table(e.sustained_compute_fraction, v, field);
    } else if (key == "attention_compute_fraction") {
      e.attention_compute_fraction = number_in_range(v, field, 1e-3, 1.0);
    } else if (key == "attention_bandwidth_fraction") {
      e.attention_bandwidth_fraction = number_in_range(v, field, 1e-3, 1.0);
    } else if (key == "overlap_exponent") {
      e.overlap_exponent = number_in_range(v, field, 1.0, 100.0);
    } else if (key == "tp_comm_overlap") {
      e.tp_comm_overlap = number_in_range(v, field, 0.0, 1.0);
    } else if (key == "gemm_stream_k") {
      if (!v.is_boolean()) throw InputError(field, v.dump(), "true or false");
      e.gemm_stream_k = v.get<bool>();
    } else if (key == "gqa_reread_dram_share") {
      e.gqa_reread_dram_share = number_in_range(v, field, 0.0, 1.0);
    } else if (key == "gemm_min_tile_m") {
      e.gemm_min_tile_m = static_cast<int>(number_in_range(v, field, 1, 4096));
    } else if (key == "gemm_k_overhead") {
      e.gemm_k_overhead = number_in_range(v, field, 0.0, 1e5);
    } else if (key == "probe" || key == "fitted_on") {
      // The measurements behind a profile written by `memwall probe` or `memwall calibrate`:
      // provenance, not parameters.
      if (!v.is_object()) throw InputError(field, v.dump(), "an object (the profile's provenance)");
    } else if (key == "engines") {
      if (!v.is_object()) throw InputError(field, v.dump(), "an object of engine name -> settings");
      for (const auto& [name, s] : v.items()) {
        if (!s.is_object()) throw InputError(field + "." + name, s.dump(), "an object");
        const std::string lower_name = to_lower(name);  // clang 14 cannot capture structured bindings
        // "id" calibrates every version of the engine, "id@version" one of them.
        std::vector<EngineProfile*> targets;
        for (auto& p : e.engines)
          if (p.name == lower_name || p.key() == lower_name) targets.push_back(&p);
        if (targets.empty()) {
          e.engines.push_back(e.engines.front());
          e.engines.back().name = lower_name;
          e.engines.back().version.clear();
          e.engines.back().aliases.clear();
          e.engines.back().current = true;
          targets.clear();
          for (auto& p : e.engines)
            if (p.name == lower_name) targets.push_back(&p);
        }
        for (EngineProfile* it : targets) {
          it->evidence = "calibration file";
          for (const auto& [k, x] : s.items()) {
            const std::string f = field + "." + name + "." + k;
            if (k == "kernel_overhead_us")
              it->kernel_overhead = us(number_in_range(x, f, 0.0, 1e5));
            else if (k == "step_overhead_us")
              it->step_overhead = us(number_in_range(x, f, 0.0, 1e7));
            else if (k == "step_overhead_us_per_sequence")
              it->step_overhead_per_sequence = us(number_in_range(x, f, 0.0, 1e4));
            else if (k == "fused_elementwise" && x.is_boolean())
              it->fused_elementwise = x.get<bool>();
            else if (k == "fp8_gemm_rate_scale")
              it->fp8_gemm_rate_scale = number_in_range(x, f, 0.01, 2.0);
            else if (k == "blockwise_fp8_gemm_rate_scale")
              it->blockwise_fp8_gemm_rate_scale = number_in_range(x, f, 0.01, 1.0);
            else if (k == "memory_stream_fraction")
              it->memory_stream_fraction = number_in_range(x, f, 0.05, 1.0);
            else if (k == "compute_in_situ_fraction") {
              // A measured share replaces the built-in one on every architecture.
              it->compute_in_situ_fraction = number_in_range(x, f, 0.05, 1.0);
              it->compute_in_situ_fraction_by_arch.clear();
            }
            else if (k == "fp8_library_gemm_stream_fraction")
              it->fp8_library_gemm_stream_fraction = number_in_range(x, f, 0.05, 1.0);
            else if (k == "fp8_skinny_gemm_max_tokens" && x.is_number_integer())
              it->fp8_skinny_gemm_max_tokens = static_cast<int>(number_in_range(x, f, -1, 1 << 20));
            else if (k == "gqa_shared_kv_loads" && x.is_boolean())
              it->gqa_shared_kv_loads = x.get<bool>();
            else if (k == "max_num_seqs")
              it->limits.max_num_seqs = static_cast<int>(number_in_range(x, f, 1, 1 << 20));
            else if (k == "max_num_batched_tokens")
              it->limits.max_num_batched_tokens =
                  static_cast<int64_t>(number_in_range(x, f, 1, 1 << 24));
            else if (k == "custom_all_reduce_max_mib")
              it->custom_all_reduce_max_bytes = number_in_range(x, f, 0, 1 << 20) * kMiB;
            else if (k == "moe_layer_overhead_us")
              it->moe_layer_overhead = us(number_in_range(x, f, 0.0, 1e5));
            else if (k == "frontend_us_per_request")
              it->frontend_per_request = us(number_in_range(x, f, 0.0, 1e6));
            else
              throw InputError(f, x.dump(),
                               "kernel_overhead_us, step_overhead_us, "
                               "step_overhead_us_per_sequence, max_num_seqs, "
                               "max_num_batched_tokens, custom_all_reduce_max_mib, "
                               "moe_layer_overhead_us, frontend_us_per_request (numbers), "
                               "fp8_skinny_gemm_max_tokens (a whole number), "
                               "fp8_gemm_rate_scale, blockwise_fp8_gemm_rate_scale, memory_stream_fraction, "
                               "compute_in_situ_fraction, "
                               "fp8_library_gemm_stream_fraction, "
                               "fused_elementwise or gqa_shared_kv_loads (true/false)");
          }
        }
      }
    } else if (key == "frameworks") {
      if (!v.is_object())
        throw InputError(field, v.dump(), "an object of training framework id -> settings");
      for (const auto& [name, s] : v.items()) {
        if (!s.is_object()) throw InputError(field + "." + name, s.dump(), "an object");
        const std::string id = train::training_framework(name, field).id;
        auto it = std::find_if(e.frameworks.begin(), e.frameworks.end(),
                               [&id](const FrameworkCalibration& f) { return f.framework == id; });
        if (it == e.frameworks.end()) {
          FrameworkCalibration fresh;
          fresh.framework = id;
          it = e.frameworks.insert(e.frameworks.end(), fresh);
        }
        for (const auto& [k, x] : s.items()) {
          const std::string f = field + "." + name + "." + k;
          // Bounds: what a training step can physically have (a share of the GEMM ceiling, a
          // share of an overlap window, a host time per step up to 10 s).
          if (k == "compute_in_situ_fraction")
            it->compute_in_situ_fraction = number_in_range(x, f, 0.05, 1.0);
          else if (k == "overlap_efficiency")
            it->overlap_efficiency = number_in_range(x, f, 0.0, 1.0);
          else if (k == "step_overhead_ms")
            it->step_overhead_ms = number_in_range(x, f, 0.0, 1e4);
          else
            throw InputError(f, x.dump(),
                             "compute_in_situ_fraction, overlap_efficiency, step_overhead_ms");
        }
      }
    } else {
      throw InputError(
          field, v.dump(),
          "one of memory_bandwidth_fraction, gemm_peak_fraction, "
          "sustained_compute_fraction, attention_compute_fraction, attention_bandwidth_fraction, "
          "overlap_exponent, tp_comm_overlap, gqa_reread_dram_share, "
          "gemm_min_tile_m, gemm_k_overhead, gemm_stream_k, engines, frameworks, probe, "
          "fitted_on");
    }
  }
  // What a `memwall calibrate` profile says each framework was fitted on (fitted_on.groups.
  // "framework ID".accelerators), read after the frameworks section it describes.
  const Json* groups = nullptr;
  if (const auto f = doc.find("fitted_on"); f != doc.end() && f->contains("groups"))
    groups = &f->at("groups");
  // And each engine and framework: the spread of its records around the fit
  // (fitted_on.groups.<key>: records, parameters, residual_sd_log, accelerators), for the
  // intervals of its answers.
  auto spread_of = [&](const Json& g, const std::string& field) {
    EngineProfile::CalibratedSpread spread;
    spread.records = static_cast<int>(
        number_in_range(require_field(g, "records", field), field + ".records", 1, 1e7));
    spread.residual_sd_log = number_in_range(require_field(g, "residual_sd_log", field),
                                             field + ".residual_sd_log", 0, 10);
    if (const auto ps = g.find("parameters"); ps != g.end()) {
      if (!ps->is_object()) throw InputError(field + ".parameters", ps->dump(), "an object");
      spread.fitted_parameters = static_cast<int>(ps->size());
    }
    const Json& list = require_field(g, "accelerators", field);
    if (!list.is_array())
      throw InputError(field + ".accelerators", list.dump(), "a list of accelerator ids");
    for (const Json& id : list) {
      if (!id.is_string()) throw InputError(field + ".accelerators", id.dump(), "an accelerator id");
      spread.accelerators.push_back(id.get<std::string>());
    }
    return spread;
  };
  if (groups && groups->is_object())
    for (auto& p : e.engines) {
      const auto g = groups->find(p.key());
      if (g == groups->end() || !g->is_object() || !g->contains("engine")) continue;
      p.calibrated_spread = spread_of(*g, where + ": fitted_on.groups." + p.key());
    }
  for (auto& f : e.frameworks) {
    const std::string group = "framework " + f.framework;
    if (!groups || !groups->is_object() || !groups->contains(group)) continue;
    const Json& g = groups->at(group);
    if (!g.is_object() || !g.contains("accelerators")) continue;
    const std::string field = where + ": fitted_on.groups." + group + ".accelerators";
    const Json& list = g.at("accelerators");
    if (!list.is_array()) throw InputError(field, list.dump(), "a list of accelerator ids");
    for (const Json& id : list) {
      if (!id.is_string()) throw InputError(field, id.dump(), "an accelerator id");
      f.fitted_accelerators.push_back(id.get<std::string>());
    }
    if (g.contains("records") && g.contains("residual_sd_log"))
      f.calibrated_spread = spread_of(g, where + ": fitted_on.groups." + group);
  }
  return e;
}

Efficiency load_calibration(const std::string& path) {
  return apply_calibration(default_efficiency(), load_document(path), path);
}

Json to_json(const Efficiency& e) {
  auto table = [](const FractionTable& t) {
    Json j = Json::object();
    j["default"] = t.fallback;
    for (const auto& [k, v] : t.entries) j[k] = v;
    return j;
  };
  Json engines = Json::object();
  for (const auto& p : e.engines) engines[p.key()] = to_json(p);
  Json frameworks = Json::object();
  for (const auto& f : e.frameworks) {
    Json j = Json::object();
    if (f.compute_in_situ_fraction) j["compute_in_situ_fraction"] = *f.compute_in_situ_fraction;
    if (f.overlap_efficiency) j["overlap_efficiency"] = *f.overlap_efficiency;
    if (f.step_overhead_ms) j["step_overhead_ms"] = *f.step_overhead_ms;
    frameworks[f.framework] = j;
  }
  return Json{{"memory_bandwidth_fraction", table(e.memory_bandwidth_fraction)},
              {"gemm_peak_fraction", table(e.gemm_peak_fraction)},
              {"sustained_compute_fraction", table(e.sustained_compute_fraction)},
              {"attention_compute_fraction", e.attention_compute_fraction},
              {"attention_bandwidth_fraction", e.attention_bandwidth_fraction},
              {"overlap_exponent", e.overlap_exponent},
              {"tp_comm_overlap", e.tp_comm_overlap},
              {"gqa_reread_dram_share", e.gqa_reread_dram_share},
              {"gemm_min_tile_m", e.gemm_min_tile_m},
              {"gemm_k_overhead", e.gemm_k_overhead},
              {"gemm_stream_k", e.gemm_stream_k},
              {"engines", engines},
              {"frameworks", frameworks}};
}

const FrameworkCalibration* Efficiency::framework(std::string_view framework) const {
  for (const auto& f : frameworks)
    if (f.framework == framework) return &f;
  return nullptr;
}

}  // namespace memwall::perf
