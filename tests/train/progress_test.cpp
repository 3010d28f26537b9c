// The Fashion-MNIST job's progress output (examples/fashion_mnist/progress.h): plain lines every
// N steps when stdout is not a terminal (resumed epochs included), the live bar on a terminal,
// and the durations it prints.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "progress.h"

namespace fashion_mnist {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(Progress, DurationsAsMinutesOrHours) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(61.4), "1:01");
  EXPECT_EQ(format_duration(3725), "1:02:05");
  EXPECT_EQ(format_duration(NAN), "?");
  EXPECT_EQ(format_duration(-1), "?");
}

TEST(Progress, PlainLinesEveryNStepsAndAtTheEnd) {
  std::ostringstream out;
  Progress p(&out, /*tty=*/false, /*every=*/100);
  p.start(/*epoch=*/2, /*epochs=*/5, /*total=*/250, /*done=*/0);
  for (int64_t done = 1; done <= 250; ++done) p.update(done, 0.5, done * 128);
  p.finish();
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u) << out.str();
  EXPECT_EQ(lines[0].rfind("Epoch 2 Step 100/250 | Loss 0.5000 | ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("Epoch 2 Step 200/250 | ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("Epoch 2 Step 250/250 | ", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find(" img/s | ETA 0:00"), std::string::npos) << lines[2];
  EXPECT_EQ(out.str().find('\r'), std::string::npos);  // no terminal control in logs
}

TEST(Progress, AResumedEpochReportsOnlyItsOwnSteps) {
  std::ostringstream out;
  Progress p(&out, false, 100);
  p.start(0, 1, 250, /*done=*/100);  // 100 batches were done before the interruption
  p.update(100, 0.25, 0);            // the resume point itself is not a new step
  for (int64_t done = 101; done <= 250; ++done) p.update(done, 0.25, (done - 100) * 128);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u) << out.str();
  EXPECT_EQ(lines[0].rfind("Epoch 0 Step 200/250 | Loss 0.2500", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("Epoch 0 Step 250/250", 0), 0u) << lines[1];
}

TEST(Progress, TerminalBarRedrawsInPlaceAndIsClearedAtTheEnd) {
  std::ostringstream out;
  Progress p(&out, /*tty=*/true);
  p.start(1, 3, 4, 0);
  p.update(1, 0.75, 128);  // the first frame is drawn at once
  p.update(4, 0.60, 512);  // the last frame is always drawn
  p.finish();
  const std::string s = out.str();
  EXPECT_EQ(s.find('\n'), std::string::npos) << s;  // one line, redrawn with \r
  EXPECT_EQ(s.rfind("\r\033[KEpoch 1 (2 of 3) [======>", 0), 0u) << s;
  EXPECT_NE(s.find("] 1/4 | Loss 0.7500"), std::string::npos) << s;
  EXPECT_NE(s.find("[========================] 4/4 | Loss 0.6000"), std::string::npos) << s;
  EXPECT_EQ(s.substr(s.size() - 4), "\r\033[K");  // cleared for the epoch line
}

}  // namespace
}  // namespace fashion_mnist
