// dist::elastic: the worker side of ember-run's failure reports (torchelastic's error file).
#include <ember/distributed/elastic.h>
#include <ember/error.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace {

namespace fs = std::filesystem;
using namespace ember::dist::elastic;

class ErrorFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ember-elastic-XXXXXX";
    dir_ = mkdtemp(pattern);
    path_ = (dir_ / "attempt_0" / "1" / "error.json").string();  // parents do not exist yet
    setenv("TORCHELASTIC_ERROR_FILE", path_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TORCHELASTIC_ERROR_FILE");
    fs::remove_all(dir_);
  }
  nlohmann::json written() const {
    std::ifstream in(path_);
    return nlohmann::json::parse(in);
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(ErrorFileTest, RecordWritesTorchelasticLayoutAndReturnsOne) {
  const int status = record([]() -> int { ember::fail("all_reduce #3", "rank 0: rank 1 died"); });
  EXPECT_EQ(status, 1);
  const nlohmann::json doc = written();
  EXPECT_EQ(doc["message"]["message"], "ember::Error: [all_reduce #3] rank 0: rank 1 died");
  EXPECT_EQ(doc["message"]["extraInfo"]["py_callstack"], doc["message"]["message"]);
  const std::string timestamp = doc["message"]["extraInfo"]["timestamp"];
  EXPECT_GT(std::stoll(timestamp), 1'600'000'000);
  const auto back = read_error_file(path_);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, "ember::Error: [all_reduce #3] rank 0: rank 1 died");
  EXPECT_EQ(back->timestamp, std::stoll(timestamp));
}

TEST_F(ErrorFileTest, RecordNamesTheDynamicTypeAndPassesTheStatusThrough) {
  EXPECT_EQ(record([] { return 7; }), 7);
  EXPECT_FALSE(fs::exists(path_));  // no exception, no file
  EXPECT_EQ(record([]() -> int { throw std::out_of_range("index 9"); }), 1);
  EXPECT_EQ(read_error_file(path_)->message, "std::out_of_range: index 9");
  EXPECT_EQ(record([]() -> int { throw 42; }), 1);
  EXPECT_EQ(read_error_file(path_)->message, "int (not derived from std::exception)");
}

TEST_F(ErrorFileTest, ReadsWhatPyTorchsRecordWrites) {
  // torch/distributed/elastic/multiprocessing/errors/error_handler.py, as measured with 1.13
  // (shared/reference/pytorch-1.13-facts.md §6.3).
  fs::create_directories(fs::path(path_).parent_path());
  std::ofstream(path_) << R"({"message": {"message": "ValueError: boom from rank 1", "extraInfo": )"
                       << R"({"py_callstack": "Traceback (most recent call last):\n  ...\nValueError: )"
                       << R"(boom from rank 1\n", "timestamp": "1796297513"}}})";
  const auto back = read_error_file(path_);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, "ValueError: boom from rank 1");
  EXPECT_EQ(back->details.rfind("Traceback (most recent call last):", 0), 0u);
  EXPECT_EQ(back->timestamp, 1796297513);
}

TEST_F(ErrorFileTest, MissingOrForeignFilesAreNotRecords) {
  EXPECT_FALSE(read_error_file(path_));
  fs::create_directories(fs::path(path_).parent_path());
  std::ofstream(path_) << "not json";
  EXPECT_FALSE(read_error_file(path_));
  std::ofstream(path_) << R"({"other": 1})";
  EXPECT_FALSE(read_error_file(path_));
}

TEST_F(ErrorFileTest, WithoutTheVariableNothingIsWritten) {
  unsetenv("TORCHELASTIC_ERROR_FILE");
  EXPECT_FALSE(write_error_file("x"));
  EXPECT_EQ(record([]() -> int { throw std::runtime_error("no launcher"); }), 1);
  EXPECT_FALSE(fs::exists(path_));
}

// An exception escaping a thread ends in std::terminate: the handler record() installs writes
// it before the process aborts.
TEST_F(ErrorFileTest, TerminateHandlerWritesTheFileBeforeAborting) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork only: the child writes where SetUp said
  EXPECT_DEATH(
      {
        record([] {
          std::thread([] { throw std::runtime_error("escaped from a thread"); }).join();
          return 0;
        });
      },
      "escaped from a thread");
  const auto back = read_error_file(path_);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, "terminate called after throwing std::runtime_error: escaped from a thread");
}

}  // namespace
