// memwall ui: placeholder registration until the capability lands; says so and exits 2.
#include <iostream>

#include "commands.h"

namespace memwall::cli {

void register_ui(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand("ui", "(not yet available in this build)");
  add_global_options(*sub, g);
  sub->callback([&run] {
    run = [] {
      std::cerr << "memwall ui: not yet available in this build\n";
      return 2;
    };
  });
}

}  // namespace memwall::cli
