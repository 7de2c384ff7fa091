// The readers and writers every command shares: only regular files are read (a FIFO, directory or
// device is named and refused at once, never waited on or read without end), and output that
// cannot be written (a full disk) fails the command instead of exiting 0.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "cli_test_util.h"

namespace memwall {
namespace {

using cli_test::run;

const std::string kInfer = "infer --model llama-3.1-8b --gpu h100 --input 512 --output 128";

// Each file option of every command, with a placeholder for the file.
std::vector<std::string> file_options() {
  return {
      "infer --model FILE --gpu h100 --input 512 --output 128",
      kInfer + " --catalog FILE",
      kInfer + " --calibration FILE",
      "infer --model llama-3.1-70b --gpu h100 --input 512 --output 128 --offload auto "
      "--host-profile FILE",
      "simulate --model llama-3.1-8b --gpu h100 --trace FILE",
      "simulate --model llama-3.1-8b --gpu h100 --rate 4 --requests 10 --input empirical:@FILE "
      "--output fixed:64",
      "monitor --replay FILE",
      "validate FILE",
      "catalog import FILE",
      "ui --catalog FILE --port 0",
  };
}

// Replaces "FILE" in `command` with `path`.
std::string with_file(std::string command, const std::string& path) {
  return command.replace(command.find("FILE"), 4, path);
}

// Runs memwall with a 60 s limit (a FIFO opened for reading waits for a writer forever; /dev/zero
// never ends), stdout sent to `stdout_to`; returns the exit status and what it wrote on stderr.
// 60 s, not 10: `validate --kind memory` takes 1 s in Release and over 10 s under ASan on a
// loaded 2-core machine (CI, 2026-12-02), which read as a hang.
cli_test::Result run_stderr(const std::string& args, const std::string& stdout_to) {
  cli_test::Result r;
  const std::string cmd =
      "timeout 60 " + memwall::test::memwall_binary() + " " + args + " 2>&1 >" + stdout_to;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(CliFiles, FifoDirectoryAndDeviceAreRefusedByNameForEveryFileOption) {
  const auto dir = std::filesystem::path(testing::TempDir()) / "memwall-cli-files";
  std::filesystem::create_directories(dir / "adir");
  const auto fifo = dir / "fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<std::string, std::string>> files = {
      {fifo.string(), "(this is a FIFO)"},
      {(dir / "adir").string(), "directory"},
      {"/dev/zero", "(this is a character device)"},
  };
  for (const auto& command : file_options()) {
    for (const auto& [path, kind] : files) {
      const std::string args = with_file(command, path);
      const auto r = run_stderr(args, "/dev/null");
      EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
      EXPECT_NE(r.out.find(kind), std::string::npos) << args << "\n" << r.out;
      EXPECT_NE(r.out.find(path), std::string::npos) << args << "\n" << r.out;
    }
  }
}

TEST(CliOutput, AFullDiskFailsTheCommand) {
  const std::vector<std::string> commands = {
      kInfer,
      kInfer + " --json",
      "train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 1 --global-batch 64 --seq 4096 "
      "--json",
      "plan infer --model llama-3.1-8b --concurrency 32 --input 512 --output 128 --gpus h100 "
      "--json",
      "simulate --model llama-3.1-8b --gpu h100 --rate 4 --requests 50 --json",
      "catalog show h100 --json",
      "catalog list",
      "validate --kind memory --json",
  };
  for (const auto& c : commands) {
    const auto r = run_stderr(c, "/dev/full");
    EXPECT_EQ(r.status, 1) << c << "\n" << r.out;
    EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << c << "\n" << r.out;
  }
}

TEST(CliOutput, AFullDiskFailsTheFileOptions) {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"simulate --model llama-3.1-8b --gpu h100 --rate 4 --requests 50 --timeseries /dev/full",
       "--timeseries: value '/dev/full' is not allowed; allowed: a writable file path (No space "
       "left on device)"},
      {"monitor --once --nvml-library " + memwall::test::fake_nvml_library() +
           " --record /dev/full",
       "--record: value '/dev/full' is not allowed; allowed: a writable file path (No space left "
       "on device)"},
  };
  for (const auto& [c, message] : commands) {
    const auto r = run_stderr(c, "/dev/null");
    EXPECT_EQ(r.status, 2) << c << "\n" << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << c << "\n" << r.out;
  }
}

}  // namespace
}  // namespace memwall
