#include "memwall/train/config.h"

#include "memwall/core/error.h"

namespace memwall::train {

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "none";
}

Recompute parse_recompute(std::string_view s, std::string_view field) {
  if (s == "none") return Recompute::none;
  if (s == "selective") return Recompute::selective;
  if (s == "full") return Recompute::full;
  throw InputError(std::string(field), std::string(s), "none, selective, full");
}

std::string_view to_string(Schedule s) {
  return s == Schedule::dualpipe ? "dualpipe" : "1f1b";
}

Schedule parse_schedule(std::string_view s, std::string_view field) {
  if (s == "1f1b" || s == "interleaved") return Schedule::one_f_one_b;
  if (s == "dualpipe") return Schedule::dualpipe;
  throw InputError(std::string(field), std::string(s), "1f1b, dualpipe");
}

int TrainConfig::data_parallel() const {
  if (dp > 0) return dp;
  const long long mp = 1LL * tp * cp * pp;
  return mp > 0 ? int(gpus / mp) : 0;
}

int64_t TrainConfig::micro_batches() const {
  const int64_t per_step = micro_batch * data_parallel();
  return per_step > 0 ? global_batch / per_step : 0;
}

}  // namespace memwall::train
