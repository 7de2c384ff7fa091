// Test helper: runs the built memwall binary (memwall::test::memwall_binary()) with arguments and
// captures its exit status and standard output, for the CLI contract tests beside each subcommand.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "memwall/core/test_paths.h"

namespace memwall::cli_test {

struct Result {
  int status = -1;
  std::string out;  // stdout only
};

// `redirect` is appended to the command line (stderr is discarded by default).
inline Result run(const std::string& args, const std::string& redirect = "2>/dev/null") {
  Result r;
  const std::string cmd = memwall::test::memwall_binary() + " " + args + " " + redirect;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace memwall::cli_test
