// WorkerException: what a DataLoader throws on the main thread when a worker thread's
// get_batch threw; it keeps the original exception (original_exception, rethrowable) and says
// its message. It is an ember::Error (so c10::Error and std::exception handlers catch it).
#pragma once

#include <exception>
#include <string>

#include "ember/error.h"

namespace torch::data {

struct WorkerException : public ember::Error {
  explicit WorkerException(std::exception_ptr original)
      : ember::Error(describe(original)), original_exception(std::move(original)) {}

  std::exception_ptr original_exception;

 private:
  static std::string describe(const std::exception_ptr& original) {
    std::string message = "[DataLoader] caught an exception in a DataLoader worker thread";
    try {
      std::rethrow_exception(original);
    } catch (const std::exception& e) {
      message += ". Original message: ";
      message += e.what();
    } catch (...) {
      message += " (not a std::exception)";
    }
    return message;
  }
};

}  // namespace torch::data
