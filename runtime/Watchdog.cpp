//===- Watchdog.cpp - Aborting calls that wait too long -------------------===//
//
// A collective waits for every rank of its group. A rank that never joins
// (it crashed, it took another branch, it waits on something else) would
// leave the others waiting forever, each holding its GPUs. The watchdog is a
// thread that wakes a few times per timeout: when the call in flight has run
// longer than SHARDRT_TIMEOUT_SECONDS, it prints what the call was doing
// (rank, collective, group, sizes, dtype, the step it waits in), runs the
// backends' abort hooks (ncclCommAbort) and aborts every rank with MPI_Abort.
//
// Arming and disarming cost one uncontended mutex each; nothing else runs on
// the call's path. MPI is used with at most one call in flight per process
// (MPI_THREAD_SERIALIZED), so one slot suffices.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace shardc {
namespace rt {

namespace {

using Clock = std::chrono::steady_clock;

/// The call in flight. Never destroyed: the watchdog thread outlives main.
struct WatchState {
  std::mutex mutex;
  bool armed = false;
  const Collective *call = nullptr;
  const std::string *prefix = nullptr;
  Clock::time_point start;
  /// Written by the calling thread only, read by the watchdog under `mutex`
  /// when it fires.
  std::atomic<const char *> step{""};
  std::once_flag threadStarted;
  std::vector<void (*)()> abortHooks;
};

WatchState &watchState() {
  static WatchState *s = new WatchState();
  return *s;
}

/// "2", "0.5".
std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

[[noreturn]] void fire(WatchState &s, double elapsed) {
  const CallTimeout &timeout = callTimeout();
  std::string message =
      *s.prefix + "timed out after " +
      formatNumber(std::floor(elapsed * 10) / 10) +
      " s (SHARDRT_TIMEOUT_SECONDS=" + formatNumber(timeout.seconds) + ") " +
      s.step.load(std::memory_order_relaxed);
  const Collective *c = s.call;
  if (c && c->checked)
    message += "; " + c->describeCounts();
  message += ". A rank of the group has not joined this call (it failed, "
             "exited, or waits in another call";
  if (agreeMode().kind == AgreeMode::FirstCall)
    message += "; with SHARDRT_AGREE=first-call, ranks making different "
               "repeated calls end here";
  message += "); aborting every rank (MPI_Abort) instead of waiting forever";
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  for (void (*hook)() : s.abortHooks)
    hook();
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  _exit(1);
}

void watch() {
  WatchState &s = watchState();
  const double limit = callTimeout().seconds;
  // Wake 20 times per timeout, at most every second, at least every 10 ms.
  const double interval = std::clamp(limit / 20, 0.01, 1.0);
  for (;;) {
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.armed)
      continue;
    const double elapsed =
        std::chrono::duration<double>(Clock::now() - s.start).count();
    if (elapsed > limit)
      fire(s, elapsed);
  }
}

} // namespace

const CallTimeout &callTimeout() {
  static const CallTimeout timeout = [] {
    CallTimeout t;
    const char *text = std::getenv("SHARDRT_TIMEOUT_SECONDS");
    if (!text || !*text)
      return t;
    errno = 0;
    char *end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !std::isfinite(seconds) ||
        seconds < 0 || seconds > 1e9) {
      t.problem = std::string("SHARDRT_TIMEOUT_SECONDS is '") + text +
                  "'; expected a number of seconds from 0 (no timeout) to "
                  "1e9";
      return t;
    }
    t.seconds = seconds;
    return t;
  }();
  return timeout;
}

const AgreeMode &agreeMode() {
  static const AgreeMode mode = [] {
    AgreeMode m;
    const char *text = std::getenv("SHARDRT_AGREE");
    const std::string value = text ? text : "";
    if (value.empty() || value == "every-call")
      return m;
    if (value == "allreduce") {
      m.kind = AgreeMode::Allreduce;
      return m;
    }
    if (value == "first-call") {
      m.kind = AgreeMode::FirstCall;
      return m;
    }
    m.problem = "SHARDRT_AGREE is '" + value +
                "'; expected every-call (the default), allreduce or "
                "first-call";
    return m;
  }();
  return mode;
}

CallWatch::CallWatch(const Collective &c) {
  const double limit = callTimeout().seconds;
  if (limit <= 0)
    return;
  WatchState &s = watchState();
  std::call_once(s.threadStarted, [] { std::thread(watch).detach(); });
  std::lock_guard<std::mutex> lock(s.mutex);
  s.call = &c;
  s.prefix = &c.prefix;
  s.start = Clock::now();
  s.step.store("", std::memory_order_relaxed);
  s.armed = true;
  armed = true;
}

CallWatch::~CallWatch() {
  if (!armed)
    return;
  WatchState &s = watchState();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.armed = false;
  s.call = nullptr;
  s.prefix = nullptr;
}

void watchStep(const char *what) {
  watchState().step.store(what, std::memory_order_relaxed);
}

void addAbortHook(void (*hook)()) {
  WatchState &s = watchState();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (std::find(s.abortHooks.begin(), s.abortHooks.end(), hook) ==
      s.abortHooks.end())
    s.abortHooks.push_back(hook);
}

} // namespace rt
} // namespace shardc
