#include "memwall/core/document.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "memwall/core/error.h"

namespace memwall {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// Nine levels of nine aliases: 9^9 = 387,420,489 "lol" leaves from about 300 bytes.
std::string billion_laughs(const std::string& top_key) {
  std::string text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const char p = static_cast<char>(c - 1);
    text += fmt::format("{0}: &{0} [*{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}]\n", c, p);
  }
  return text + top_key + ": *i\n";
}

TEST(Document, YamlAliasBombIsRefusedAtOnceNamingTheFileAndTheLimit) {
  for (const std::string key : {"accelerators", "description"}) {
    const auto start = std::chrono::steady_clock::now();
    const std::string msg =
        message_of([&] { (void)parse_document(billion_laughs(key), "bomb.yaml"); });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(msg.find("bomb.yaml: YAML aliases expand the document beyond 65536"),
              std::string::npos)
        << msg;
    // Refused while expanding, not after: the whole expansion (9^9 = 387 M nodes) would take
    // minutes and gigabytes. 5 s leaves room for sanitizers on a loaded 2-core machine (CI's
    // ASan run took 0.54 s against the former 0.5 s bound).
    EXPECT_LT(seconds, 5.0) << key;
  }
}

TEST(Document, YamlAnchorsUsedAsShorthandStillExpand) {
  const Json j = parse_document(
      "base: &b {memory_gb: 80, tflops: {bf16: 989}}\nx: *b\ny: *b\nz: [*b, *b]\n", "ok.yaml");
  EXPECT_EQ(j["z"][1]["tflops"]["bf16"], 989);
  EXPECT_EQ(j["y"]["memory_gb"], 80);
}

TEST(Document, OnlyRegularFilesAreRead) {
  const auto dir = std::filesystem::path(testing::TempDir()) / "memwall-doc-dir";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(message_of([&] { (void)load_document(dir.string()); }),
            fmt::format("file: value '{}' is not allowed; allowed: a regular file (this is a "
                        "directory)",
                        dir.string()));
  const auto fifo = std::filesystem::path(testing::TempDir()) / "memwall-doc-fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Returns at once (a blocking open would wait for a writer forever).
  EXPECT_NE(message_of([&] { (void)load_document(fifo.string()); }).find("(this is a FIFO)"),
            std::string::npos);
  EXPECT_NE(message_of([&] { (void)load_document("/dev/zero"); })
                .find("'/dev/zero' is not allowed; allowed: a regular file (this is a character "
                      "device)"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)load_document(dir.string() + "/missing.json");
            }).find("allowed: a readable file (No such file or directory)"),
            std::string::npos);
}

TEST(Document, SizeLimitHoldsForTheBytesRead) {
  const auto path = std::filesystem::path(testing::TempDir()) / "memwall-doc-big.json";
  std::ofstream(path) << std::string(1 << 20, ' ') << "{}";
  EXPECT_EQ(read_input_file(path.string(), "--x", 2 << 20).size(), (1u << 20) + 2);
  EXPECT_EQ(message_of([&] { (void)read_input_file(path.string(), "--x", 1 << 20); }),
            fmt::format("--x: {}: the file is larger than the 1 MiB limit", path.string()));
}

}  // namespace
}  // namespace memwall
