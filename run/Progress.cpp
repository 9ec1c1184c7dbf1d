//===- Progress.cpp - What a long shard-run phase is doing ----------------===//

#include "Progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace shardc::run;

Progress::Progress(bool speaks, double after, std::string doing)
    : after(speaks && std::isfinite(after) ? after : -1),
      doing(std::move(doing)), start(std::chrono::steady_clock::now()) {
  if (this->after == 0) {
    std::fprintf(stderr, "shard-run: %s...\n", this->doing.c_str());
    std::fflush(stderr);
    spoke = true;
  } else if (this->after > 0) {
    watcher = std::thread([this] { watch(); });
  }
}

Progress::~Progress() {
  if (watcher.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
    }
    finishedChanged.notify_all();
    watcher.join();
  }
  if (spoke) {
    std::fprintf(stderr, "shard-run: %s: %.1f s\n", doing.c_str(), elapsed());
    std::fflush(stderr);
  }
}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void Progress::watch() {
  std::unique_lock<std::mutex> lock(mutex);
  double next = after;
  const double every = std::max(after, 10.0);
  while (!finished) {
    auto deadline =
        start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(next));
    if (finishedChanged.wait_until(lock, deadline, [this] { return finished; }))
      break;
    std::fprintf(stderr, "shard-run: %s... (%.0f s so far)\n", doing.c_str(),
                 elapsed());
    std::fflush(stderr);
    spoke = true;
    next += every;
  }
}
