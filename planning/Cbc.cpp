//===- Cbc.cpp - One integer program on COIN-OR CBC, in a child process --===//
//
// See Cbc.h.
//
//===----------------------------------------------------------------------===//

#include "Cbc.h"

#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

namespace shardc::planning::cbc {

namespace {

std::string secondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

/// The relaxation by CLP's dual simplex (after its presolve) under
/// `p.iterations`: an answer where it stopped there (no solution) or its
/// optimum is integral (proven: no integer point is cheaper than the
/// relaxation's optimum), else none (CBC decides).
std::optional<Outcome> solveRelaxation(const Program &p, int &iterations) {
  if (p.iterations <= 0)
    return std::nullopt;
  std::unique_ptr<Clp_Simplex, void (*)(Clp_Simplex *)> owned(Clp_newModel(),
                                                              Clp_deleteModel);
  Clp_Simplex *m = owned.get();
  Clp_setLogLevel(m, 0);
  const int columns = static_cast<int>(p.colLb.size());
  Clp_loadProblem(m, columns, static_cast<int>(p.rowLb.size()), p.starts.data(),
                  p.index.data(), p.value.data(), p.colLb.data(),
                  p.colUb.data(), p.obj.data(), p.rowLb.data(), p.rowUb.data());
  Clp_setMaximumIterations(m, p.iterations);
  // Dual simplex after CLP's presolve: on a 29-op attention on a 2x2 mesh
  // (63,000 columns) 0.8 s where the dual simplex alone took 14 s.
  Clp_initialDualSolve(m);
  iterations = Clp_numberIterations(m);
  Outcome out;
  if (Clp_isIterationLimitReached(m)) {
    out.ran = true;
    out.iterationLimitReached = true;
    return out;
  }
  if (!Clp_isProvenOptimal(m))
    return std::nullopt;
  const double *x = Clp_primalColumnSolution(m);
  if (!x)
    return std::nullopt;
  out.solution.assign(x, x + columns);
  for (int c : p.integers) {
    const double rounded = std::round(out.solution[c]);
    if (std::fabs(out.solution[c] - rounded) > 1e-9)
      return std::nullopt;
    out.solution[c] = rounded;
  }
  out.ran = true;
  out.proven = true;
  out.objective = Clp_objectiveValue(m);
  out.bestPossible = out.objective;
  return out;
}

/// Solves in this process.
Outcome solveHere(const Program &p, bool probing) {
  int relaxed = 0;
  if (std::optional<Outcome> answer = solveRelaxation(p, relaxed))
    return *answer;
  // A fractional relaxation that took more than 1/kBranchShare of
  // `iterations`: each node re-solves an LP about as large (with strong
  // branching, several), which no deterministic limit bounds (a 30-op
  // attention under a budget: 26,796 iterations on 39,192 columns, then
  // 1.4 s a node of 20,000 allowed, past the guard); CBC branches at most
  // kLargeProgramNodes nodes there, the same on every run.
  int nodes = p.nodes;
  const bool large =
      p.iterations > 0 &&
      static_cast<int64_t>(relaxed) * kBranchShare > p.iterations;
  if (large)
    nodes =
        nodes > 0 ? std::min(nodes, kLargeProgramNodes) : kLargeProgramNodes;
  std::unique_ptr<Cbc_Model, void (*)(Cbc_Model *)> owned(Cbc_newModel(),
                                                          Cbc_deleteModel);
  Cbc_Model *m = owned.get();
  Cbc_setLogLevel(m, 0);
  const int columns = static_cast<int>(p.colLb.size());
  Cbc_loadProblem(m, columns, static_cast<int>(p.rowLb.size()), p.starts.data(),
                  p.index.data(), p.value.data(), p.colLb.data(),
                  p.colUb.data(), p.obj.data(), p.rowLb.data(), p.rowUb.data());
  for (int c : p.integers)
    Cbc_setInteger(m, c);
  if (!p.startCols.empty())
    Cbc_setMIPStartI(m, static_cast<int>(p.startCols.size()),
                     p.startCols.data(), p.startValues.data());
  // The node limit stops the search where it stops on every run (no
  // wall clock: an answer it stopped would differ from run to run).
  if (nodes > 0)
    Cbc_setMaximumNodes(m, nodes);
  Cbc_setAllowableGap(m, 1e-9);
  Cbc_setAllowableFractionGap(m, 0);
  // CBC 2.10.8's preprocessing was seen to reduce these models wrongly (an
  // objective below the true optimum, a worse choice claimed proven, in
  // ChoiceTest's random problems); without it every one matches brute force.
  Cbc_setParameter(m, "preprocess", "off");
  if (!probing)
    Cbc_setParameter(m, "probingCuts", "off");
  Cbc_solve(m);
  Outcome out;
  out.ran = true;
  out.proven = Cbc_isProvenOptimal(m);
  out.infeasible = Cbc_isProvenInfeasible(m);
  out.nodeLimitReached = Cbc_isNodeLimitReached(m);
  // (Held to fewer nodes than `nodes` asked: a limit of the user's own is
  // not the LP's size.)
  if (large && nodes != p.nodes) {
    out.nodesCapped = nodes;
    out.relaxationIterations = relaxed;
  }
  out.objective = Cbc_getObjValue(m);
  out.bestPossible = Cbc_getBestPossibleObjValue(m);
  if (const double *solution = Cbc_getColSolution(m))
    out.solution.assign(solution, solution + columns);
  return out;
}

bool writeAll(int fd, const void *data, size_t size) {
  const char *at = static_cast<const char *>(data);
  while (size > 0) {
    const ssize_t n = write(fd, at, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    at += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// The fixed part of an outcome, as the child writes it.
struct Header {
  char proven, infeasible, nodeLimitReached, iterationLimitReached;
  int nodesCapped, relaxationIterations;
  double objective, bestPossible;
  long long solutionSize;
};

/// Solves in a forked child; `crashed` says whether it died.
Outcome solveInChild(const Program &p, bool probing, bool &crashed) {
  crashed = false;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return solveHere(p, probing);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return solveHere(p, probing);
  }
  if (pid == 0) {
    // The child: nothing of the parent's runs here but the solver, and
    // it leaves by _exit (no destructor, no flush of the parent's
    // buffers). Its own messages (an assertion's) go nowhere.
    close(fds[0]);
    if (int null = open("/dev/null", O_WRONLY); null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    // Only its own pipe open (as fd 3): another thread's child of the
    // parent must not hold this one's write end, nor this child theirs
    // (each reader waits for its pipe to close).
    int out = fds[1];
    if (out != 3 && dup2(out, 3) == 3)
      out = 3;
    close_range(static_cast<unsigned>(out) + 1, ~0U, 0);
    if (out > 3)
      close_range(3, static_cast<unsigned>(out) - 1, 0);
    Outcome solved = solveHere(p, probing);
    Header h{solved.proven,
             solved.infeasible,
             solved.nodeLimitReached,
             solved.iterationLimitReached,
             solved.nodesCapped,
             solved.relaxationIterations,
             solved.objective,
             solved.bestPossible,
             static_cast<long long>(solved.solution.size())};
    const bool ok = writeAll(out, &h, sizeof h) &&
                    writeAll(out, solved.solution.data(),
                             solved.solution.size() * sizeof(double));
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  // Read what it writes, until it closes the pipe or outlives the limit.
  std::string bytes;
  const double allowed = p.killAfter >= 0 ? p.killAfter : guardSeconds();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(allowed);
  bool late = false;
  char buffer[1 << 16];
  while (true) {
    const double left = std::chrono::duration<double>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
    if (left <= 0) {
      late = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready =
        poll(&pfd, 1, static_cast<int>(std::min(left, 3600.0) * 1000) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      continue; // the deadline is checked above
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (late)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Outcome out;
  if (late) {
    out.stoppedByGuard = true;
    out.failure = "the solver ran past its guard (" + secondsText(allowed) +
                  " s) and was stopped";
    return out;
  }
  if (WIFSIGNALED(status)) {
    crashed = true;
    out.failure = std::string("CBC died (signal ") +
                  std::to_string(WTERMSIG(status)) + ": " +
                  strsignal(WTERMSIG(status)) +
                  "; CLP asserts on some models, coin-or/Clp issue 173)";
    return out;
  }
  Header h;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      bytes.size() < sizeof h) {
    out.failure = "CBC's child process gave no answer";
    return out;
  }
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.solutionSize < 0 ||
      bytes.size() !=
          sizeof h + static_cast<size_t>(h.solutionSize) * sizeof(double)) {
    out.failure = "CBC's child process gave a truncated answer";
    return out;
  }
  out.ran = true;
  out.proven = h.proven;
  out.infeasible = h.infeasible;
  out.nodeLimitReached = h.nodeLimitReached;
  out.iterationLimitReached = h.iterationLimitReached;
  out.nodesCapped = h.nodesCapped;
  out.relaxationIterations = h.relaxationIterations;
  out.objective = h.objective;
  out.bestPossible = h.bestPossible;
  out.solution.resize(static_cast<size_t>(h.solutionSize));
  std::memcpy(out.solution.data(), bytes.data() + sizeof h,
              out.solution.size() * sizeof(double));
  return out;
}

} // namespace

double guardSeconds() {
  if (const char *text = std::getenv("SHARDC_SOLVER_GUARD_SECONDS")) {
    char *end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end != text && *end == '\0' && std::isfinite(seconds) && seconds > 0)
      return std::min(seconds, 1e7);
  }
  return 600;
}

/// The factor the objective is multiplied by for the solver, at least 1:
/// one that makes its smallest nonzero term at least 1e-2 and its largest
/// at least 1, as far as the largest stays within 1e8. CBC's and CLP's
/// tolerances are absolute (an allowable gap of 1e-9, reduced costs of
/// 1e-7): with moves of 2 us and compute of 1e-7 us per op, compute fell
/// below them, and a choice whose compute was not the least was "proven
/// optimal" (totals of 3e-6 us, the moves 0); an objective of 1e-11 us per
/// move was seen proven at a choice 24% above the optimum.
static double objectiveScale(const Program &program) {
  double largest = 0, smallest = 0;
  for (double c : program.obj)
    if (std::isfinite(c) && c != 0) {
      const double a = std::fabs(c);
      largest = std::max(largest, a);
      smallest = smallest == 0 ? a : std::min(smallest, a);
    }
  if (largest == 0)
    return 1;
  const double wanted = std::max(1e-2 / smallest, 1 / largest);
  return std::max(1.0, std::min(wanted, 1e8 / largest));
}

Outcome solve(const Program &given) {
  const double scale = objectiveScale(given);
  Program scaled;
  if (scale != 1) {
    scaled = given;
    for (double &c : scaled.obj)
      c *= scale;
  }
  const Program &program = scale != 1 ? scaled : given;
  bool crashed = false;
  Outcome out = solveInChild(program, /*probing=*/true, crashed);
  if (crashed) {
    Outcome again = solveInChild(program, /*probing=*/false, crashed);
    if (again.ran) {
      again.retried = true;
      out = std::move(again);
    } else {
      out.failure += "; again without probing cuts: " + again.failure;
    }
  }
  out.objective /= scale;
  out.bestPossible /= scale;
  return out;
}

} // namespace shardc::planning::cbc
