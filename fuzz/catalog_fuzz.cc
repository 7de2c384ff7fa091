// Fuzzes user catalog files (--catalog FILE): arbitrary bytes, read as JSON and as YAML, loaded on
// top of the built-in catalog. Any input must load or raise InputError, never crash or hang; what
// is accepted must be findable by every id and alias and survive a round trip through the file
// format unchanged. The same file's "support" key (the support matrix) must load or raise
// InputError too, and what it accepts must answer every query. Read as an uncertainty model
// (data/uncertainty.json), it must load or raise InputError, and give finite, non-negative
// interval half-widths. Its "prices" key must load into the price book or raise InputError, and
// every catalog host priced from it must cost a finite, non-negative amount or stay unknown.
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/cost/host_cost.h"
#include "memwall/core/error.h"
#include "memwall/hw/host_io.h"
#include "memwall/hw/hw_io.h"
#include "memwall/hw/support.h"
#include "memwall/uncertainty/model.h"

namespace {

void check_accepted(const memwall::Catalog& c) {
  for (const auto& a : c.accelerators()) {
    if (c.find_accelerator(a.id) != &a) std::abort();
    for (const auto& alias : a.aliases)
      if (c.find_accelerator(alias) != &a) std::abort();
    const memwall::Json j = memwall::accelerator_to_json(a);
    if (memwall::accelerator_to_json(memwall::accelerator_from_json(j, "roundtrip")) != j)
      std::abort();
  }
  for (const auto& h : c.hosts()) {
    if (c.find_host(h.id) != &h) std::abort();
    for (const auto& alias : h.aliases)
      if (c.find_host(alias) != &h) std::abort();
    const memwall::Json j = memwall::host_to_json(h);
    if (memwall::host_to_json(memwall::host_from_json(j, "roundtrip")) != j) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* origin : {"fuzz/catalog.json", "fuzz/catalog.yaml"}) {
    memwall::Catalog c = memwall::Catalog::builtin();
    try {
      c.load(memwall::parse_document(text, origin), origin);
    } catch (const memwall::InputError&) {
      continue;
    }
    check_accepted(c);
  }
  try {
    memwall::cost::PriceBook book = memwall::cost::PriceBook::builtin();
    book.load(memwall::parse_document(text, "fuzz/prices.json"), "fuzz/prices.json");
    for (memwall::Host h : memwall::Catalog::builtin().hosts()) {
      h.sockets = 2;
      const auto c = memwall::cost::host_cost(h, memwall::Bytes(1e12), memwall::Bytes(1e12), 0.5, book, {});
      if (c.hour.total && (!std::isfinite(c.hour.total->value()) || c.hour.total->value() < 0)) std::abort();
    }
  } catch (const memwall::InputError&) {
  }
  try {
    memwall::SupportMatrix m;
    m.load(memwall::parse_document(text, "fuzz/support.json"), "fuzz/support.json");
    const memwall::Catalog& c = memwall::Catalog::builtin();
    for (const auto& a : c.accelerators()) {
      for (const auto& engine : m.engines_for(a)) {
        (void)m.weights(a, memwall::Precision::int4, engine).describe();
        (void)m.kv(a, memwall::Precision::fp8_e4m3, engine).describe();
        (void)m.feature(a, "paged_kv", engine).describe();
      }
    }
  } catch (const memwall::InputError&) {
  }
  try {
    const auto m = memwall::uncertainty::model_from_json(
        memwall::parse_document(text, "fuzz/uncertainty.json"), "fuzz/uncertainty.json");
    for (const auto& [kind, k] : m.kinds) {
      memwall::uncertainty::Regime r;
      r.kind = kind;
      r.devices = 1 << 20;
      r.parameters = 1e13;
      for (const auto& [dim, values] : k.factors)
        r.set(dim, values.empty() ? "unseen" : values.begin()->first);
      const double h = m.interval(r).half_width;
      if (!std::isfinite(h) || h < 0) std::abort();
    }
  } catch (const memwall::InputError&) {
  }
  return 0;
}
