#include "memwall/validate/names.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::validate {
namespace {

// The hardware texts of the dev validation cases resolve to catalog entries by id or alias.
TEST(ValidateNames, CaseHardwareTextsResolve) {
  const Catalog& c = Catalog::builtin();
  std::string note;
  EXPECT_EQ(hardware_id("RTX 6000 Ada 48GB", c, note), "nvidia-rtx-6000-ada");
  EXPECT_EQ(hardware_id("NVIDIA GH200 SXM (900W, 141GiB HBM3e)", c, note), "nvidia-gh200-144gb");
  EXPECT_EQ(hardware_id("NVIDIA L40", c, note), "nvidia-l40");
  EXPECT_EQ(hardware_id("NVIDIA L40S", c, note), "nvidia-l40s");
  EXPECT_EQ(hardware_id("H200 SXM", c, note), "nvidia-h200-sxm");  // not taken for a GH200
  EXPECT_TRUE(note.empty()) << note;
  EXPECT_THROW(hardware_id("Quadro RTX 6000", c, note), InputError);  // Turing: not in catalog
}

}  // namespace
}  // namespace memwall::validate
