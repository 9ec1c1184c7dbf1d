//===- GroupTest.cpp - Named collectives within groups, on MPI ranks ------===//
//
// Run under mpirun with N ranks. Every rank draws the same random cases: a
// mesh of N devices, a tensor (uneven sizes, empty chunks), two placements
// that one named collective over mesh axes takes one to the other (chosen
// by the compiler's own classifier), a dtype and how each local block sits
// in memory (contiguous, padded, transposed, reversed). Each rank fills its
// source block from the elements' global indices, runs
// shardrt_group_collective, and compares every element of its destination
// block with the value computed here from the index (for reductions: from
// the partial copies' values), and the padding around it. Broadcasts and
// gathers over ranks too.
//
//   group-test            the cases; prints "MISMATCH" on a wrong element
//   group-test disagree   for every kind, rank 0 passes its groups in
//                         another order: every rank must fail naming the
//                         difference, 20 times per kind
//   group-test overlap    an all_gather whose sources overlap: rejected
//   group-test too-large  a call whose counts exceed MPI's ints: every rank
//                         fails alike before any data moves
//   group-test never-joins KIND  rank N-1 never makes the second call of
//                         KIND (run with a short SHARDRT_TIMEOUT_SECONDS):
//                         the others time out
//   group-test many-groups  all_gathers over more distinct groups than the
//                         runtime keeps communicators for, round after
//                         round: every element right, and (counted by
//                         wrapping MPI_Comm_split and MPI_Comm_free) at
//                         most 17 group communicators alive at any time
//                         (the 16 kept and the one being split), none after
//                         shardrt_finalize
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "shardc/Layout/Collectives.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace shardrt_test;
using namespace shardc::layout;

// The group communicators the runtime splits and frees, counted through
// MPI's profiling interface: these definitions take the place of MPI's for
// the runtime's library too.
namespace {
std::set<MPI_Comm> liveSplits;
size_t mostLiveSplits = 0;
} // namespace

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key,
                              MPI_Comm *newcomm) {
  int rc = PMPI_Comm_split(comm, color, key, newcomm);
  if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
    liveSplits.insert(*newcomm);
    mostLiveSplits = std::max(mostLiveSplits, liveSplits.size());
  }
  return rc;
}

extern "C" int MPI_Comm_free(MPI_Comm *comm) {
  liveSplits.erase(*comm);
  return PMPI_Comm_free(comm);
}

namespace {

int rank = 0, world = 1;
int failures = 0;

void report(const std::string &what) {
  std::printf("rank %d: MISMATCH %s\n", rank, what.c_str());
  std::fflush(stdout);
  ++failures;
}

std::vector<std::vector<int64_t>> meshShapes(int n) {
  std::vector<std::vector<int64_t>> shapes = {{n}};
  for (int a = 2; a < n; ++a)
    if (n % a == 0) {
      shapes.push_back({a, n / a});
      for (int b = 2; b < n / a; ++b)
        if ((n / a) % b == 0)
          shapes.push_back({a, b, n / a / b});
    }
  return shapes;
}

/// The table rows [owner, offsets..., sizes...] of device blocks.
std::vector<int64_t> tableOf(const std::vector<Block> &blocks) {
  std::vector<int64_t> rows;
  for (const Block &b : blocks) {
    rows.push_back(b.placement.rank);
    rows.insert(rows.end(), b.box.offsets.begin(), b.box.offsets.end());
    rows.insert(rows.end(), b.box.sizes.begin(), b.box.sizes.end());
  }
  return rows;
}

const Block *blockOf(const std::vector<Block> &blocks, int r) {
  for (const Block &b : blocks)
    if (b.placement.rank == r)
      return &b;
  return nullptr;
}

/// The value of a partial copy `p` of the element at linear index `i`, and
/// the reduction of `n` copies (small integers and halves: exact in every
/// dtype tested).
double partialValue(int64_t i, int64_t p) { return double(i % 5 + p); }
double reduced(int64_t i, int64_t n, shardrt_reduce op) {
  double sum = 0, product = 1, lo = 1e300, hi = -1e300;
  for (int64_t p = 0; p < n; ++p) {
    double v = partialValue(i, p);
    sum += v;
    product *= v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  switch (op) {
  case SHARDRT_SUM:
    return sum;
  case SHARDRT_AVG:
    return sum / double(n);
  case SHARDRT_MAX:
    return hi;
  case SHARDRT_MIN:
    return lo;
  case SHARDRT_PRODUCT:
    return product;
  }
  return 0;
}

struct Case {
  std::string name;
  shardrt_collective kind;
  std::vector<int64_t> shape;
  std::vector<Block> from, to;
  /// Per rank: its partial index in `from` (0 without).
  std::map<int, int64_t> partial;
  int64_t copies = 1;
  std::vector<int64_t> groups;
  int64_t root = -1;
  shardrt_reduce op = SHARDRT_SUM;
  shardrt_dtype dtype = SHARDRT_F32;
  Arrangement srcArrangement = Arrangement::Contiguous,
              dstArrangement = Arrangement::Contiguous;
};

/// Runs `c` on this rank and checks what it holds afterwards.
void run(const Case &c) {
  const size_t es = elementSize(c.dtype);
  const Block *src = blockOf(c.from, rank), *dst = blockOf(c.to, rank);
  const bool reduces = c.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER ||
                       c.kind == SHARDRT_COLLECTIVE_ALL_REDUCE;
  std::vector<int64_t> none(c.shape.size(), 0);
  StridedBuffer in(src ? src->box.sizes : none, es, c.srcArrangement);
  StridedBuffer out(dst ? dst->box.sizes : none, es, c.dstArrangement);
  auto globalIndex = [&](const Box &box, const std::vector<int64_t> &index) {
    std::vector<int64_t> g(index.size());
    for (size_t d = 0; d < index.size(); ++d)
      g[d] = box.offsets[d] + index[d];
    return linearIndex(g, c.shape);
  };
  if (src)
    forEachIndex(src->box.sizes, [&](const std::vector<int64_t> &index) {
      int64_t i = globalIndex(src->box, index);
      in.set(index,
             reduces ? exactBits(c.dtype, partialValue(i, c.partial.at(rank)))
                     : valueBits(c.dtype, i));
    });
  shardrt_tensor inT = in.tensor(c.dtype), outT = out.tensor(c.dtype);
  std::vector<int64_t> srcRows = tableOf(c.from), dstRows = tableOf(c.to);
  int status = shardrt_group_collective(
      c.kind, &inT, &outT, srcRows.data(), int64_t(c.from.size()),
      dstRows.data(), int64_t(c.to.size()), c.groups.data(),
      int64_t(c.groups.size() / 3), c.root, c.op);
  if (status != SHARDRT_SUCCESS) {
    report(c.name + ": failed: " + shardrt_last_error());
    return;
  }
  if (dst)
    forEachIndex(dst->box.sizes, [&](const std::vector<int64_t> &index) {
      int64_t i = globalIndex(dst->box, index);
      uint64_t want = reduces ? exactBits(c.dtype, reduced(i, c.copies, c.op))
                              : valueBits(c.dtype, i);
      uint64_t got = out.get(index) & elementMask(es);
      if (got != (want & elementMask(es)))
        report(c.name + ": element " + formatIndex(index) + " (global " +
               std::to_string(i) + ") is " + std::to_string(got) +
               ", expected " + std::to_string(want & elementMask(es)));
    });
  if (!out.paddingIntact())
    report(c.name + ": wrote outside its destination block");
}

const char *groupKindText(int kind) {
  static const char *names[] = {"all_gather", "reduce_scatter", "all_reduce",
                                "all_to_all", "broadcast",      "gather"};
  return names[kind];
}

std::string placementsText(const std::vector<Placement> &p) {
  std::string s = "(";
  for (size_t i = 0; i < p.size(); ++i)
    s += (i ? ", " : "") + formatPlacement(p[i]);
  return s + ")";
}

/// Random mesh cases, as every rank draws them alike.
std::vector<Case> meshCases(int count) {
  std::mt19937 rng(20261123);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const shardrt_dtype dtypes[] = {SHARDRT_F32,  SHARDRT_F64, SHARDRT_F16,
                                  SHARDRT_BF16, SHARDRT_I8,  SHARDRT_I32,
                                  SHARDRT_I64,  SHARDRT_U8,  SHARDRT_I16,
                                  SHARDRT_U16,  SHARDRT_U32, SHARDRT_U64};
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  std::vector<std::vector<int64_t>> shapes = meshShapes(world);
  std::vector<Case> cases;
  std::map<shardrt_collective, int> perKind;
  for (int attempt = 0; attempt < 200000 && int(cases.size()) < count;
       ++attempt) {
    Mesh mesh;
    mesh.shape = shapes[pick(int(shapes.size()))];
    if (pick(3) == 0) { // devices in another order
      mesh.devices.resize(world);
      for (int r = 0; r < world; ++r)
        mesh.devices[r] = r;
      std::shuffle(mesh.devices.begin(), mesh.devices.end(), rng);
    }
    int tensorRank = 1 + pick(3);
    std::vector<int64_t> shape;
    for (int d = 0; d < tensorRank; ++d)
      shape.push_back(pick(4) == 0 ? pick(3) : 1 + pick(9));
    std::vector<Placement> from, to;
    for (size_t a = 0; a < mesh.shape.size(); ++a) {
      int k = pick(3);
      from.push_back(k == 0   ? Placement::shard(pick(tensorRank))
                     : k == 1 ? Placement::replicate()
                              : Placement::partial(
                                    static_cast<Placement::Reduce>(pick(5))));
      int j = pick(3);
      to.push_back(j == 0   ? from.back()
                   : j == 1 ? Placement::replicate()
                            : Placement::shard(pick(tensorRank)));
    }
    std::optional<Collective> c = axisCollective(shape, mesh, from, to);
    if (!c)
      continue;
    // Partial values only on the group's axes (the others' would stay
    // partial), all with one reduction.
    bool ok = true;
    for (size_t a = 0; a < from.size(); ++a) {
      bool inGroup = std::find(c->axes.begin(), c->axes.end(), int64_t(a)) !=
                     c->axes.end();
      if (from[a].kind == Placement::Kind::Partial &&
          (!inGroup || !c->reduce || from[a].reduce != *c->reduce))
        ok = false;
    }
    if (!ok)
      continue;
    Case k;
    switch (c->kind) {
    case CollectiveKind::AllGather:
      k.kind = SHARDRT_COLLECTIVE_ALL_GATHER;
      break;
    case CollectiveKind::ReduceScatter:
      k.kind = SHARDRT_COLLECTIVE_REDUCE_SCATTER;
      break;
    case CollectiveKind::AllReduce:
      k.kind = SHARDRT_COLLECTIVE_ALL_REDUCE;
      break;
    case CollectiveKind::AllToAll:
      k.kind = SHARDRT_COLLECTIVE_ALL_TO_ALL;
      break;
    default:
      continue;
    }
    if (perKind[k.kind] >= count / 4 + 1)
      continue;
    ++perKind[k.kind];
    k.shape = shape;
    k.from = meshDeviceBlocks(shape, mesh, from, Device::Kind::CPU);
    k.to = meshDeviceBlocks(shape, mesh, to, Device::Kind::CPU);
    std::vector<int64_t> partial = meshPartialIndices(mesh, from);
    for (size_t i = 0; i < k.from.size(); ++i)
      k.partial[int(k.from[i].placement.rank)] = partial[i];
    k.copies = 1;
    for (int64_t a : c->axes)
      k.copies *= mesh.shape[a];
    std::vector<std::vector<int64_t>> groups = meshGroups(mesh, c->axes);
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t p = 0; p < groups[g].size(); ++p)
        k.groups.insert(k.groups.end(), {groups[g][p], int64_t(g), int64_t(p)});
    k.dtype = dtypes[pick(static_cast<int>(std::size(dtypes)))];
    if (c->reduce) {
      k.op = static_cast<shardrt_reduce>(*c->reduce);
      // avg of an even count is a half, and products grow: keep them
      // exact where the dtype holds them.
      bool floating = k.dtype == SHARDRT_F32 || k.dtype == SHARDRT_F64;
      if ((k.op == SHARDRT_AVG && !floating) ||
          (k.op == SHARDRT_PRODUCT &&
           (k.copies > 3 || k.dtype == SHARDRT_I8 || k.dtype == SHARDRT_U8 ||
            k.dtype == SHARDRT_I16 || k.dtype == SHARDRT_U16)))
        k.dtype = SHARDRT_F64;
    }
    k.srcArrangement = arrangements[pick(4)];
    k.dstArrangement = arrangements[pick(4)];
    std::string meshText = formatList(mesh.shape);
    k.name = std::string(collectiveName(c->kind)) + " over axes " +
             formatList(c->axes) + " of mesh " + meshText + ", " +
             formatList(shape) + " " + placementsText(from) + " -> " +
             placementsText(to) + " " + dtypeName(k.dtype) + " " +
             arrangementName(k.srcArrangement) + "/" +
             arrangementName(k.dstArrangement);
    cases.push_back(std::move(k));
  }
  return cases;
}

/// A broadcast of the whole tensor from rank `root` to every rank, and a
/// gather of row chunks to it.
std::vector<Case> rankCases() {
  std::vector<Case> cases;
  for (int root : {0, world - 1}) {
    Case b;
    b.kind = SHARDRT_COLLECTIVE_BROADCAST;
    b.shape = {5, 3};
    b.root = root;
    Block whole;
    whole.box = {{0, 0}, {5, 3}};
    whole.placement.rank = root;
    b.from = {whole};
    for (int r = 0; r < world; ++r) {
      whole.placement.rank = r;
      b.to.push_back(whole);
      b.groups.insert(b.groups.end(), {r, 7, r});
    }
    b.dtype = SHARDRT_I32;
    b.dstArrangement = Arrangement::Padded;
    b.name = "broadcast from rank " + std::to_string(root);
    cases.push_back(b);

    Case g;
    g.kind = SHARDRT_COLLECTIVE_GATHER;
    g.shape = {int64_t(world) + 3, 2};
    g.root = root;
    for (int r = 0; r < world; ++r) {
      Block chunk;
      int64_t split = (g.shape[0] + world - 1) / world;
      int64_t off = std::min<int64_t>(split * r, g.shape[0]);
      chunk.box = {{off, 0}, {std::min(split, g.shape[0] - off), 2}};
      chunk.placement.rank = r;
      g.from.push_back(chunk);
      g.groups.insert(g.groups.end(), {r, 0, r});
    }
    Block all;
    all.box = {{0, 0}, g.shape};
    all.placement.rank = root;
    g.to = {all};
    g.dtype = SHARDRT_F64;
    g.srcArrangement = Arrangement::Transposed;
    g.name = "gather to rank " + std::to_string(root);
    cases.push_back(g);
  }
  // 0-D tensors over ranks 0 and 1 only: the other ranks take no part (and
  // hold nothing, which a 0-D box must not be mistaken for).
  Block scalar;
  scalar.box = {{}, {}};
  Case ar;
  ar.kind = SHARDRT_COLLECTIVE_ALL_REDUCE;
  ar.op = SHARDRT_SUM;
  ar.copies = 2;
  ar.dtype = SHARDRT_I32;
  for (int r : {0, 1}) {
    scalar.placement.rank = r;
    ar.from.push_back(scalar);
    ar.to.push_back(scalar);
    ar.partial[r] = r;
    ar.groups.insert(ar.groups.end(), {r, 0, r});
  }
  ar.name = "all_reduce of a 0-D tensor over ranks 0 and 1";
  cases.push_back(ar);
  Case bc;
  bc.kind = SHARDRT_COLLECTIVE_BROADCAST;
  bc.root = 0;
  bc.dtype = SHARDRT_F64;
  scalar.placement.rank = 0;
  bc.from = {scalar};
  for (int r : {0, 1}) {
    scalar.placement.rank = r;
    bc.to.push_back(scalar);
    bc.groups.insert(bc.groups.end(), {r, 0, r});
  }
  bc.name = "broadcast of a 0-D tensor from rank 0 to ranks 0 and 1";
  cases.push_back(bc);
  return cases;
}

/// The first case of each kind: mesh cases and the broadcast and gather.
std::vector<Case> onePerKind() {
  std::vector<Case> all = meshCases(48), byKind;
  for (Case &c : rankCases())
    all.push_back(std::move(c));
  for (int kind = SHARDRT_COLLECTIVE_ALL_GATHER;
       kind <= SHARDRT_COLLECTIVE_GATHER; ++kind)
    for (const Case &c : all)
      if (c.kind == kind) {
        byKind.push_back(c);
        break;
      }
  return byKind;
}

/// For every kind, rank 0 passes its groups in the other order (a valid
/// call, but not the others'): every rank fails alike, naming "the groups",
/// 20 times per kind.
int disagree() {
  int bad = 0;
  for (Case c : onePerKind()) {
    if (rank == 0) {
      // Positions reversed within each group.
      std::map<int64_t, int64_t> sizes;
      for (size_t m = 0; m < c.groups.size(); m += 3)
        ++sizes[c.groups[m + 1]];
      for (size_t m = 0; m < c.groups.size(); m += 3)
        c.groups[m + 2] = sizes[c.groups[m + 1]] - 1 - c.groups[m + 2];
    }
    const size_t es = elementSize(c.dtype);
    const Block *src = blockOf(c.from, rank), *dst = blockOf(c.to, rank);
    std::vector<int64_t> none(c.shape.size(), 0);
    std::vector<int64_t> srcRows = tableOf(c.from), dstRows = tableOf(c.to);
    for (int run = 0; run < 20; ++run) {
      StridedBuffer in(src ? src->box.sizes : none, es,
                       Arrangement::Contiguous);
      StridedBuffer out(dst ? dst->box.sizes : none, es,
                        Arrangement::Contiguous);
      shardrt_tensor inT = in.tensor(c.dtype), outT = out.tensor(c.dtype);
      int status = shardrt_group_collective(
          c.kind, &inT, &outT, srcRows.data(), int64_t(c.from.size()),
          dstRows.data(), int64_t(c.to.size()), c.groups.data(),
          int64_t(c.groups.size() / 3), c.root, c.op);
      std::string error = shardrt_last_error();
      // A group of one member has one order: the call is the same.
      bool single = true;
      for (size_t m = 0; m < c.groups.size(); m += 3)
        single &= c.groups[m + 2] == 0;
      if (single)
        continue;
      if (status == SHARDRT_SUCCESS ||
          error.find("the ranks disagree on the call") == std::string::npos ||
          error.find("the groups") == std::string::npos) {
        std::printf("rank %d: FAILED %s, run %d: status %d: %s\n", rank,
                    c.name.c_str(), run, status, error.c_str());
        ++bad;
      }
    }
    if (bad == 0)
      std::printf("rank %d: OK, 20 disagreements on %s reported: %s\n", rank,
                  groupKindText(c.kind), shardrt_last_error());
  }
  return bad;
}

/// An all_gather of an uneven 1-D tensor over a 1-D mesh whose devices are
/// each permutation of the ranks in turn (up to `count`): one group, its
/// members in another order each time.
std::vector<Case> permutedMeshCases(int count) {
  std::vector<Case> cases;
  Mesh mesh;
  mesh.shape = {world};
  mesh.devices.resize(world);
  for (int r = 0; r < world; ++r)
    mesh.devices[r] = r;
  const std::vector<int64_t> shape = {3 * int64_t(world) - 1};
  const std::vector<Placement> from = {Placement::shard(0)},
                               to = {Placement::replicate()};
  do {
    Case k;
    k.kind = SHARDRT_COLLECTIVE_ALL_GATHER;
    k.shape = shape;
    k.from = meshDeviceBlocks(shape, mesh, from, Device::Kind::CPU);
    k.to = meshDeviceBlocks(shape, mesh, to, Device::Kind::CPU);
    std::vector<std::vector<int64_t>> groups = meshGroups(mesh, {0});
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t p = 0; p < groups[g].size(); ++p)
        k.groups.insert(k.groups.end(), {groups[g][p], int64_t(g), int64_t(p)});
    k.name = "all_gather over the mesh of devices " + formatList(mesh.devices);
    cases.push_back(std::move(k));
  } while (int(cases.size()) < count &&
           std::next_permutation(mesh.devices.begin(), mesh.devices.end()));
  return cases;
}

/// More distinct groups than the runtime keeps communicators for, round
/// after round: every element checked (run), and never more than 17 group
/// communicators alive (the 16 kept, and the one split before the least
/// recently used is freed), none after finalize.
int manyGroups() {
  const std::vector<Case> cases = permutedMeshCases(24);
  const int rounds = 20;
  for (int round = 0; round < rounds; ++round)
    for (const Case &c : cases)
      run(c);
  const size_t most = mostLiveSplits;
  shardrt_finalize();
  const bool ok =
      failures == 0 && cases.size() > 16 && most <= 17 && liveSplits.empty();
  std::printf("rank %d: %s: %zu all_gathers over distinct groups, %d rounds, "
              "%d mismatches; at most %zu group communicators alive (16 "
              "kept), %zu after finalize\n",
              rank, ok ? "OK" : "FAILED", cases.size(), rounds, failures, most,
              liveSplits.size());
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (shardrt_init() != SHARDRT_SUCCESS) {
    std::printf("MISMATCH: shardrt_init failed: %s\n", shardrt_last_error());
    return 1;
  }
  rank = shardrt_rank();
  world = shardrt_world_size();
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "disagree")
    return disagree() == 0 ? 0 : 1;
  if (mode == "many-groups")
    return manyGroups();
  if (mode == "overlap") {
    // An all_gather whose group's sources overlap ([0, 2) and [1, 2)) and
    // leave [2, 3) uncovered, while their sizes add up to the destination's:
    // every rank rejects it alike instead of leaving part of its
    // destination unwritten.
    std::vector<int64_t> src, dst, groups;
    const int64_t offsets[3] = {0, 1, 3}, sizes[3] = {2, 1, 1};
    for (int r = 0; r < world; ++r) {
      src.insert(src.end(), {r, offsets[r], sizes[r]});
      dst.insert(dst.end(), {r, 0, 4});
      groups.insert(groups.end(), {r, 0, r});
    }
    std::vector<float> in(2, 1.0f), out(4, 0.0f);
    int64_t inSize = src[3 * rank + 2], outSize = 4, stride = 1;
    shardrt_tensor inT{in.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU,
                       1,         &inSize,     &stride};
    shardrt_tensor outT{out.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU,
                        1,          &outSize,    &stride};
    int status = shardrt_group_collective(
        SHARDRT_COLLECTIVE_ALL_GATHER, &inT, &outT, src.data(), world,
        dst.data(), world, groups.data(), world, -1, SHARDRT_SUM);
    std::string error = shardrt_last_error();
    bool ok = status == SHARDRT_ERROR_INVALID_ARGUMENT &&
              error.find("is not the union of its group's source blocks") !=
                  std::string::npos;
    std::printf("rank %d: %s: %s\n", rank, ok ? "OK" : "FAILED", error.c_str());
    return ok ? 0 : 1;
  }
  if (mode == "too-large") {
    // A gather of 2^31 elements to rank 0: each rank sends a chunk MPI's
    // ints hold, but the root's destination block does not. The root's
    // checks reject it before the ranks agree, so every rank fails alike
    // instead of the others waiting in MPI_Gatherv (no buffer is touched).
    const int64_t n = int64_t(1) << 31;
    std::vector<int64_t> src, dst, groups;
    const int64_t chunk = n / world;
    for (int r = 0; r < world; ++r) {
      src.insert(src.end(),
                 {r, r * chunk, r + 1 == world ? n - r * chunk : chunk});
      groups.insert(groups.end(), {r, 0, r});
    }
    dst.insert(dst.end(), {0, 0, n});
    float in = 0, out = 0;
    int64_t inSize = src[3 * rank + 2], outSize = rank == 0 ? n : 0, stride = 1;
    shardrt_tensor inT{&in, SHARDRT_F32, SHARDRT_DEVICE_CPU,
                       1,   &inSize,     &stride};
    shardrt_tensor outT{&out, SHARDRT_F32, SHARDRT_DEVICE_CPU,
                        1,    &outSize,    &stride};
    int status = shardrt_group_collective(
        SHARDRT_COLLECTIVE_GATHER, &inT, rank == 0 ? &outT : nullptr,
        src.data(), world, dst.data(), 1, groups.data(), world, 0, SHARDRT_SUM);
    std::string error = shardrt_last_error();
    bool ok = status == SHARDRT_ERROR_INVALID_ARGUMENT &&
              error.find(rank == 0 ? "MPI's int counts"
                                   : "rank 0 rejected its arguments") !=
                  std::string::npos;
    std::printf("rank %d: %s: %s\n", rank, ok ? "OK" : "FAILED", error.c_str());
    return ok ? 0 : 1;
  }
  if (mode == "never-joins") {
    // Every rank runs the case of the kind named once; then rank N-1 stays
    // away from the second run.
    std::string kind = argc > 2 ? argv[2] : "all_gather";
    for (const Case &c : onePerKind()) {
      if (kind != groupKindText(c.kind))
        continue;
      run(c);
      if (rank == world - 1) {
        std::this_thread::sleep_for(std::chrono::seconds(300));
        return 0;
      }
      run(c); // the watchdog aborts
      return 1;
    }
    std::printf("FAILED: no case of %s\n", kind.c_str());
    return 1;
  }
  std::vector<Case> cases = meshCases(48);
  for (Case &c : rankCases())
    cases.push_back(std::move(c));
  for (const Case &c : cases)
    run(c);
  // Every case again: a repeat runs from the call cache.
  for (const Case &c : cases)
    run(c);
  std::printf("rank %d: %zu group collectives run twice, %d mismatches\n", rank,
              cases.size(), failures);
  shardrt_finalize();
  return failures == 0 ? 0 : 1;
}
