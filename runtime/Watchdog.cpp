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
// Arming and disarming cost three plain stores (no fence, no read-modify-
// write: a fence would wait for every store of the call before it) and the
// calling thread reads no clock: the watchdog times how long it has seen
// the same call in flight. MPI is used with at most one call in flight per
// process (MPI_THREAD_SERIALIZED), so one slot suffices.
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
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace shardc {
namespace rt {

namespace {

using Clock = std::chrono::steady_clock;

/// The call in flight. Never destroyed: the watchdog thread outlives main.
struct WatchState {
  /// The call in flight, or null; the number of calls armed so far (which
  /// tells a new call from a repeat of the same cached one).
  std::atomic<const Collective *> call{nullptr};
  std::atomic<uint64_t> armed{0};
  /// Set by the watchdog while it reads the call to report it: the calling
  /// thread does not leave a call (which may destroy it) while it is set.
  std::atomic<bool> firing{false};
  /// Written by the calling thread only, read by the watchdog when it fires.
  std::atomic<const char *> step{""};
  /// 1 while the watchdog asks the calling thread which ranks have not
  /// joined the call, 2 once it answered (in `missing`), 0 otherwise.
  std::atomic<int> asking{0};
  std::mutex missingMutex;
  std::string missing;
  std::once_flag threadStarted;
  std::mutex hooksMutex;
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

/// How long the abort hooks may take before MPI_Abort goes ahead.
constexpr int kHookSeconds = 5;

/// How long the watchdog waits for the calling thread to say which ranks
/// have not joined (it answers from the loop that waits for them; a thread
/// blocked in an MPI call does not).
constexpr double kAskSeconds = 1.0;

[[noreturn]] void fire(WatchState &s, const Collective *c, double elapsed) {
  const CallTimeout &timeout = callTimeout();
  s.asking.store(1);
  const auto askDeadline =
      Clock::now() + std::chrono::duration<double>(kAskSeconds);
  while (s.asking.load() != 2 && Clock::now() < askDeadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::string missing;
  if (s.asking.load() == 2) {
    std::lock_guard<std::mutex> lock(s.missingMutex);
    missing = s.missing;
  }
  std::string message =
      c->prefix + "timed out after " +
      formatNumber(std::floor(elapsed * 10) / 10) +
      " s (SHARDRT_TIMEOUT_SECONDS=" + formatNumber(timeout.seconds) + ") " +
      s.step.load(std::memory_order_relaxed);
  if (c->checked)
    message += "; " + c->describeCounts();
  const bool one = missing.find_first_not_of("0123456789") == std::string::npos;
  if (!missing.empty())
    message += ". Not heard from in this call: rank" +
               std::string(one ? " " : "s ") + missing +
               (one ? " (it failed, exited, or waits in another call"
                    : " (each failed, exited, or waits in another call");
  else
    message += ". A rank of the group has not joined this call (it failed, "
               "exited, or waits in another call";
  if (agreeMode().kind == AgreeMode::FirstCall)
    message += "; with SHARDRT_AGREE=first-call, ranks making different "
               "repeated calls end here";
  message += "); aborting every rank (MPI_Abort) instead of waiting forever";
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::vector<void (*)()> hooks;
  {
    std::lock_guard<std::mutex> lock(s.hooksMutex);
    hooks = s.abortHooks;
  }
  // The hooks (ncclCommAbort joins NCCL's threads and frees device memory)
  // get a few seconds on a thread of their own: a device stuck in them must
  // not keep the abort that ends the hang from happening.
  if (!hooks.empty()) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread([hooks, done] {
      for (void (*hook)() : hooks)
        hook();
      done->store(true);
    }).detach();
    const auto deadline = Clock::now() + std::chrono::seconds(kHookSeconds);
    while (!done->load() && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!done->load()) {
      std::fprintf(stderr,
                   "%sthe backends' abort hooks (ncclCommAbort) did not "
                   "return within %d s; aborting without them\n",
                   c->prefix.c_str(), kHookSeconds);
      std::fflush(stderr);
    }
  }
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
  // Wake 20 times per timeout, at most every second, at least every 10 ms:
  // a call is reported between `limit` and `limit` plus one wake after it
  // began.
  const double interval = std::clamp(limit / 20, 0.01, 1.0);
  uint64_t seen = 0;
  Clock::time_point since = Clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    const uint64_t armed = s.armed.load();
    const Clock::time_point now = Clock::now();
    if (!s.call.load() || armed != seen) {
      // No call, or another one since the last wake: start timing it.
      seen = armed;
      since = now;
      continue;
    }
    const double elapsed = std::chrono::duration<double>(now - since).count();
    if (elapsed < limit)
      continue;
    // Hold the call in place while reading it, if it is still the same.
    s.firing.store(true);
    const Collective *c = s.call.load();
    if (c && s.armed.load() == seen)
      fire(s, c, elapsed);
    s.firing.store(false);
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

CallWatch::CallWatch(const Collective &c, bool outlivesCall)
    : outlivesCall(outlivesCall) {
  if (!c.watched)
    return;
  WatchState &s = watchState();
  std::call_once(s.threadStarted, [] { std::thread(watch).detach(); });
  // Only this thread writes `armed`: no read-modify-write, no fence.
  s.step.store("", std::memory_order_relaxed);
  s.armed.store(s.armed.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
  s.call.store(&c, std::memory_order_release);
  armed = true;
}

CallWatch::~CallWatch() {
  if (!armed)
    return;
  watchState().call.store(nullptr, std::memory_order_release);
  // A call that is destroyed on return must not be read by a watchdog that
  // is reporting it; a cached one is destroyed later (forgetWatchedCall).
  if (!outlivesCall)
    forgetWatchedCall();
}

void forgetWatchedCall() {
  WatchState &s = watchState();
  // Pairs with the watchdog's seq_cst store of `firing` and load of `call`:
  // either the watchdog reads the call in flight now (not the one to be
  // destroyed), or this thread sees it firing, and it aborts the process.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  while (s.firing.load(std::memory_order_relaxed))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

bool watchAsksWhoIsMissing() {
  return watchState().asking.load(std::memory_order_relaxed) == 1;
}

void watchTellMissing(const std::string &ranks) {
  WatchState &s = watchState();
  {
    std::lock_guard<std::mutex> lock(s.missingMutex);
    s.missing = ranks;
  }
  s.asking.store(2);
}

std::string rankList(const std::vector<int> &ranks) {
  constexpr size_t kListed = 16;
  std::string text;
  const size_t listed = std::min(ranks.size(), kListed);
  for (size_t i = 0; i < listed; ++i) {
    if (i > 0)
      text += i + 1 == listed && listed == ranks.size() ? " and " : ", ";
    text += std::to_string(ranks[i]);
  }
  if (listed < ranks.size())
    text += " and " + std::to_string(ranks.size() - listed) + " more";
  return text;
}

void watchStep(const char *what) {
  watchState().step.store(what, std::memory_order_relaxed);
}

void addAbortHook(void (*hook)()) {
  WatchState &s = watchState();
  std::lock_guard<std::mutex> lock(s.hooksMutex);
  if (std::find(s.abortHooks.begin(), s.abortHooks.end(), hook) ==
      s.abortHooks.end())
    s.abortHooks.push_back(hook);
}

} // namespace rt
} // namespace shardc
