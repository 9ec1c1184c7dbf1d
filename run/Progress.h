//===- Progress.h - What a long shard-run phase is doing ------*- C++ -*-===//
//
// shard-run's word on a phase that runs long (compiling, running, checking):
// rank 0 says what it is doing once the phase has run `after` seconds, then
// every `after` seconds (at least 10 apart), and how long it took when it
// ends (however it ends); a shorter phase says nothing. With `after` 0 every
// phase is announced and timed; negative: never.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUN_PROGRESS_H
#define SHARDC_RUN_PROGRESS_H

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace shardc::run {

class Progress {
public:
  /// `doing` names the phase ("compiling the partitioned program"). Only
  /// where `speaks` (rank 0).
  Progress(bool speaks, double after, std::string doing);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

private:
  double elapsed() const;
  void watch();

  const double after;
  const std::string doing;
  const std::chrono::steady_clock::time_point start;
  std::mutex mutex;
  std::condition_variable finishedChanged;
  bool finished = false;
  bool spoke = false;
  std::thread watcher;
};

} // namespace shardc::run

#endif // SHARDC_RUN_PROGRESS_H
