#include "memwall/comm/comm_json.h"

namespace memwall::comm {
Json to_json(Bytes size, const CollectiveEstimate& e) {
  return Json{{"bytes", size.value()},
              {"time_s", e.time.value()},
              {"latency_s", e.latency_time.value()},
              {"algbw_gbps", e.algorithm_bandwidth.value() / kGiga},
              {"busbw_gbps", e.bus_bandwidth.value() / kGiga},
              {"algorithm", e.algorithm},
              {"protocol", e.protocol},
              {"bottleneck", e.bottleneck},
              {"bottleneck_utilisation", e.bottleneck_utilisation}};
}

Json to_json(const Explanation& x) {
  Json levels = Json::array();
  for (const auto& l : x.levels)
    levels.push_back(Json{{"link", l.name},
                          {"kind", to_string(l.kind)},
                          {"nominal_gbps_per_direction", l.nominal_per_direction.value() / kGiga},
                          {"efficiency", l.efficiency},
                          {"flows_per_link", l.flows},
                          {"per_rank_gbps", l.per_rank_bandwidth.value() / kGiga},
                          {"utilisation", l.utilisation}});
  Json ups = Json::array();
  for (const auto& u : x.upgrades)
    ups.push_back(Json{{"change", u.change}, {"time_s", u.time.value()}, {"speedup", u.speedup}});
  Json cands = Json::array();
  for (const auto& c : x.candidates)
    cands.push_back(Json{{"algorithm", c.algorithm}, {"protocol", c.protocol}, {"time_s", c.time.value()},
                         {"busbw_gbps", c.bus_bandwidth.value() / kGiga}});
  return Json{{"ranks", x.ranks},
              {"ranks_per_node", x.ranks_per_node},
              {"nodes_spanned", x.nodes_spanned},
              {"leaf_groups_spanned", x.leaf_groups_spanned},
              {"bottleneck", x.estimate.bottleneck},
              {"bottleneck_utilisation", x.estimate.bottleneck_utilisation},
              {"path", x.example_path},
              {"links", levels},
              {"candidates", cands},
              {"upgrades", ups}};
}

}  // namespace memwall::comm
