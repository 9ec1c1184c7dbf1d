//===- MlirEntryPoints.cpp - The functions MLIR-generated code calls ------===//
//
// An argument of type memref<*xT> arrives as its rank and a pointer to the
// ranked descriptor {T *allocated; T *aligned; int64_t offset; int64_t
// sizes[rank]; int64_t strides[rank];}. These entry points turn descriptors
// into shardrt_tensor views, call the C functions, and on failure print the
// message and abort every rank: generated code has no error path.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace shardc {
namespace rt {
namespace {

/// The fixed head of a ranked memref descriptor; sizes and strides follow.
struct DescriptorHead {
  void *allocated;
  void *aligned;
  int64_t offset;
};

/// A view of a memref descriptor as a shardrt_tensor (which points into the
/// descriptor for its sizes and strides).
shardrt_tensor decode(int64_t rank, void *descriptor, shardrt_dtype dtype,
                      int32_t device) {
  shardrt_tensor t{};
  t.dtype = dtype;
  t.device = device;
  t.rank = rank;
  if (!descriptor)
    return t;
  auto *head = static_cast<DescriptorHead *>(descriptor);
  const int64_t *dims = reinterpret_cast<const int64_t *>(head + 1);
  t.data = static_cast<char *>(head->aligned) +
           head->offset * static_cast<int64_t>(elementSize(dtype));
  t.sizes = dims;
  t.strides = dims + rank;
  return t;
}

/// Prints the last error and stops every rank.
[[noreturn]] void abortAll() {
  std::fprintf(stderr, "%s\n", shardrt_last_error());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

/// Reads the block table memref<N x (1 + 2R) x i64> into `rows` (row-major),
/// honouring its strides. Fails (setting the last error) when its shape does
/// not fit a global tensor of rank `globalRank`.
bool readTable(int64_t tableRank, void *descriptor, int64_t globalRank,
               const std::string &prefix, std::vector<int64_t> &rows,
               int64_t &numBlocks, const std::string &what = "block table") {
  if (tableRank != 2 || !descriptor) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the " + what + " is a memref of rank " +
             std::to_string(tableRank) + "; expected memref<N x " +
             std::to_string(1 + 2 * globalRank) + " x i64>");
    return false;
  }
  shardrt_tensor t = decode(tableRank, descriptor, SHARDRT_I64, 0);
  const int64_t columns = 1 + 2 * globalRank;
  if (t.sizes[0] < 0 || t.sizes[1] != columns) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the " + what + " has shape [" + std::to_string(t.sizes[0]) +
             ", " + std::to_string(t.sizes[1]) +
             "] but a global tensor of rank " + std::to_string(globalRank) +
             " needs " + std::to_string(columns) + " columns (owner, " +
             std::to_string(globalRank) + " offsets, " +
             std::to_string(globalRank) + " sizes)");
    return false;
  }
  numBlocks = t.sizes[0];
  if (numBlocks > 0 && !t.data) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT, prefix + "the " + what + " has " +
                                             std::to_string(numBlocks) +
                                             " rows but a NULL data pointer");
    return false;
  }
  rows.resize(numBlocks * columns);
  const int64_t *data = static_cast<const int64_t *>(t.data);
  for (int64_t b = 0; b < numBlocks; ++b)
    for (int64_t k = 0; k < columns; ++k)
      rows[b * columns + k] = data[b * t.strides[0] + k * t.strides[1]];
  return true;
}

/// A rank that holds no block of the destination (one outside the mesh, in
/// a world larger than it) still passes its memref, of the local type the
/// program gives every rank; the call writes nothing there. On host memory
/// its elements are zeroed, so that what the rank computes from them (an
/// index read from a gathered tensor, say) reads defined values instead of
/// whatever the buffer held.
void zeroUnheld(const shardrt_tensor &dst, const std::vector<int64_t> &dstRows,
                int64_t numDst, int64_t tensorRank) {
  if (dst.device != SHARDRT_DEVICE_CPU || !dst.data || dst.rank < 0)
    return;
  const int me = worldRank();
  const int64_t columns = 1 + 2 * tensorRank;
  for (int64_t b = 0; b < numDst; ++b)
    if (dstRows[b * columns] == me)
      return;
  // The view's rows of contiguous bytes (Pack.h's plan of a copy onto
  // itself), each zeroed.
  const std::vector<int64_t> sizes(dst.sizes, dst.sizes + dst.rank);
  const std::vector<int64_t> strides(dst.strides, dst.strides + dst.rank);
  const CopyPlan plan(sizes, strides, strides, elementSize(dst.dtype));
  char *data = static_cast<char *>(dst.data);
  plan.forEach([&](const Copy2D &c) {
    for (int64_t r = 0; r < c.height; ++r)
      std::memset(data + c.dstOffset + r * c.dstPitch, 0,
                  static_cast<size_t>(c.width));
  });
}

/// all_gather, or (`toWorld`) the exchange to the whole tensor on every rank.
void mlirAllGather(shardrt_dtype dtype, int64_t localRank, void *localDesc,
                   int64_t globalRank, void *globalDesc, int64_t tableRank,
                   void *tableDesc, int32_t device, bool toWorld = false) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    abortAll();
  std::vector<int64_t> rows;
  int64_t numBlocks = 0;
  if (!readTable(tableRank, tableDesc, globalRank,
                 callPrefix(OpKind::AllGather, dtype, device, 0), rows,
                 numBlocks))
    abortAll();
  shardrt_tensor local = decode(localRank, localDesc, dtype, device);
  shardrt_tensor global = decode(globalRank, globalDesc, dtype, device);
  if ((toWorld
           ? shardrt_exchange_to_world(&local, &global, rows.data(), numBlocks)
           : shardrt_all_gather(&local, &global, rows.data(), numBlocks)) !=
      SHARDRT_SUCCESS)
    abortAll();
}

void mlirScatter(shardrt_dtype dtype, int64_t globalRank, void *globalDesc,
                 int64_t localRank, void *localDesc, int64_t tableRank,
                 void *tableDesc, int64_t root, int32_t device) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    abortAll();
  std::vector<int64_t> rows;
  int64_t numBlocks = 0;
  if (!readTable(tableRank, tableDesc, globalRank,
                 callPrefix(OpKind::Scatter, dtype, device, root), rows,
                 numBlocks))
    abortAll();
  shardrt_tensor global = decode(globalRank, globalDesc, dtype, device);
  shardrt_tensor local = decode(localRank, localDesc, dtype, device);
  if (shardrt_scatter(&global, &local, rows.data(), numBlocks, root) !=
      SHARDRT_SUCCESS)
    abortAll();
  zeroUnheld(local, rows, numBlocks, globalRank);
}

/// The tables and views of a redistribution's entry point: the tensor's rank
/// R from the source table's width (1 + 2R), both tables read, and both
/// memrefs checked to have rank R. Fails (setting the last error) otherwise.
bool readRedistribution(int64_t srcRank, int64_t dstRank, int64_t srcTableRank,
                        void *srcTableDesc, int64_t dstTableRank,
                        void *dstTableDesc, const std::string &prefix,
                        std::vector<int64_t> &srcRows, int64_t &numSrc,
                        std::vector<int64_t> &dstRows, int64_t &numDst) {
  int64_t rank = srcRank;
  if (srcTableRank == 2 && srcTableDesc) {
    const int64_t columns =
        decode(srcTableRank, srcTableDesc, SHARDRT_I64, 0).sizes[1];
    if (columns < 1 || columns % 2 == 0) {
      fail(SHARDRT_ERROR_INVALID_ARGUMENT,
           prefix + "the source block table has " + std::to_string(columns) +
               " columns; expected 1 + 2R (owner, R offsets, R sizes)");
      return false;
    }
    rank = (columns - 1) / 2;
  }
  if (!readTable(srcTableRank, srcTableDesc, rank, prefix, srcRows, numSrc,
                 "source block table") ||
      !readTable(dstTableRank, dstTableDesc, rank, prefix, dstRows, numDst,
                 "destination block table"))
    return false;
  if ((srcRank != rank && srcRank != 1) || (dstRank != rank && dstRank != 1)) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the source and destination memrefs have ranks " +
             std::to_string(srcRank) + " and " + std::to_string(dstRank) +
             " but the block tables' " + std::to_string(1 + 2 * rank) +
             " columns are those of a tensor of rank " + std::to_string(rank) +
             " (or 1, for blocks packed one after the other)");
    return false;
  }
  return true;
}

/// Whether this rank passes its blocks packed: it owns several blocks of a
/// table, or a memref's rank is not the tensor's (1-D: packed).
bool packedCall(const std::vector<int64_t> &srcRows, int64_t numSrc,
                const std::vector<int64_t> &dstRows, int64_t numDst,
                int64_t tensorRank, int64_t srcRank, int64_t dstRank) {
  if (srcRank != tensorRank || dstRank != tensorRank)
    return true;
  const int me = worldRank();
  const int64_t columns = 1 + 2 * tensorRank;
  for (const auto &[rows, n] :
       {std::make_pair(&srcRows, numSrc), std::make_pair(&dstRows, numDst)}) {
    int64_t mine = 0;
    for (int64_t b = 0; b < n; ++b)
      mine += (*rows)[b * columns] == me;
    if (mine > 1)
      return true;
  }
  return false;
}

bool packedData(const shardrt_tensor &t, const std::string &prefix,
                const char *what, void *&data);

/// Whether this rank passes its blocks packed (packedCall); if so, sets
/// `srcData` and `dstData` to the memrefs' data, aborting every rank when
/// one is not contiguous.
bool packedBuffers(const shardrt_tensor &src, const shardrt_tensor &dst,
                   const std::vector<int64_t> &srcRows, int64_t numSrc,
                   const std::vector<int64_t> &dstRows, int64_t numDst,
                   int64_t tensorRank, const std::string &prefix,
                   void *&srcData, void *&dstData) {
  if (!packedCall(srcRows, numSrc, dstRows, numDst, tensorRank, src.rank,
                  dst.rank))
    return false;
  if (!packedData(src, prefix, "source", srcData) ||
      !packedData(dst, prefix, "destination", dstData))
    abortAll();
  return true;
}

/// The rank of the tensor a (checked) block table describes.
int64_t tensorRankOf(int64_t tableRank, void *tableDesc) {
  return (decode(tableRank, tableDesc, SHARDRT_I64, 0).sizes[1] - 1) / 2;
}

/// The data of a memref holding packed blocks: it must be contiguous
/// (row-major strides); fails, setting the last error, otherwise.
bool packedData(const shardrt_tensor &t, const std::string &prefix,
                const char *what, void *&data) {
  int64_t expected = 1;
  for (int64_t d = t.rank; d-- > 0;) {
    if (t.sizes[d] > 1 && t.strides[d] != expected) {
      fail(SHARDRT_ERROR_INVALID_ARGUMENT,
           prefix + "the " + what +
               " memref holds several blocks packed but is not contiguous "
               "(strides " +
               layout::formatList(
                   std::vector<int64_t>(t.strides, t.strides + t.rank)) +
               ")");
      return false;
    }
    expected *= t.sizes[d];
  }
  data = t.data;
  return true;
}

void mlirRedistribute(shardrt_dtype dtype, int64_t srcRank, void *srcDesc,
                      int64_t dstRank, void *dstDesc, int64_t srcTableRank,
                      void *srcTableDesc, int64_t dstTableRank,
                      void *dstTableDesc, int32_t device) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    abortAll();
  const std::string prefix = callPrefix(OpKind::Redistribute, dtype, device, 0);
  std::vector<int64_t> srcRows, dstRows;
  int64_t numSrc = 0, numDst = 0;
  if (!readRedistribution(srcRank, dstRank, srcTableRank, srcTableDesc,
                          dstTableRank, dstTableDesc, prefix, srcRows, numSrc,
                          dstRows, numDst))
    abortAll();
  shardrt_tensor src = decode(srcRank, srcDesc, dtype, device);
  shardrt_tensor dst = decode(dstRank, dstDesc, dtype, device);
  const int64_t tensorRank = tensorRankOf(srcTableRank, srcTableDesc);
  void *srcData = nullptr, *dstData = nullptr;
  if (packedBuffers(src, dst, srcRows, numSrc, dstRows, numDst, tensorRank,
                    prefix, srcData, dstData)) {
    if (shardrt_redistribute_packed(srcData, dstData, dtype, device, tensorRank,
                                    srcRows.data(), numSrc, dstRows.data(),
                                    numDst) != SHARDRT_SUCCESS)
      abortAll();
    return;
  }
  if (shardrt_redistribute(&src, &dst, srcRows.data(), numSrc, dstRows.data(),
                           numDst) != SHARDRT_SUCCESS)
    abortAll();
  zeroUnheld(dst, dstRows, numDst, tensorRank);
}

void mlirRedistributeReduce(shardrt_dtype dtype, int64_t srcRank, void *srcDesc,
                            int64_t dstRank, void *dstDesc,
                            int64_t srcTableRank, void *srcTableDesc,
                            int64_t partialRank, void *partialDesc,
                            int64_t dstTableRank, void *dstTableDesc,
                            int32_t op, int32_t device) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    abortAll();
  const std::string prefix =
      callPrefix(OpKind::RedistributeReduce, dtype, device, 0, op);
  std::vector<int64_t> srcRows, dstRows;
  int64_t numSrc = 0, numDst = 0;
  if (!readRedistribution(srcRank, dstRank, srcTableRank, srcTableDesc,
                          dstTableRank, dstTableDesc, prefix, srcRows, numSrc,
                          dstRows, numDst))
    abortAll();
  // The partial indices: memref<N x i64>, one per source row.
  if (partialRank != 1 || !partialDesc) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the partial indices are a memref of rank " +
             std::to_string(partialRank) + "; expected memref<" +
             std::to_string(numSrc) + " x i64>");
    abortAll();
  }
  const shardrt_tensor p = decode(partialRank, partialDesc, SHARDRT_I64, 0);
  if (p.sizes[0] != numSrc) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the partial indices have " + std::to_string(p.sizes[0]) +
             " values but the source block table " + std::to_string(numSrc) +
             " rows");
    abortAll();
  }
  if (numSrc > 0 && !p.data) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT, prefix + "the partial indices have " +
                                             std::to_string(numSrc) +
                                             " values but a NULL data pointer");
    abortAll();
  }
  std::vector<int64_t> partial(numSrc);
  const int64_t *values = static_cast<const int64_t *>(p.data);
  for (int64_t b = 0; b < numSrc; ++b)
    partial[b] = values[b * p.strides[0]];
  shardrt_tensor src = decode(srcRank, srcDesc, dtype, device);
  shardrt_tensor dst = decode(dstRank, dstDesc, dtype, device);
  const int64_t tensorRank = tensorRankOf(srcTableRank, srcTableDesc);
  void *srcData = nullptr, *dstData = nullptr;
  if (packedBuffers(src, dst, srcRows, numSrc, dstRows, numDst, tensorRank,
                    prefix, srcData, dstData)) {
    if (shardrt_redistribute_reduce_packed(
            srcData, dstData, dtype, device, tensorRank, srcRows.data(), numSrc,
            partial.data(), dstRows.data(), numDst, op) != SHARDRT_SUCCESS)
      abortAll();
    return;
  }
  if (shardrt_redistribute_reduce(&src, &dst, srcRows.data(), numSrc,
                                  partial.data(), dstRows.data(), numDst,
                                  op) != SHARDRT_SUCCESS)
    abortAll();
  zeroUnheld(dst, dstRows, numDst, tensorRank);
}

void mlirGroupCollective(shardrt_dtype dtype, int32_t kind, int64_t srcRank,
                         void *srcDesc, int64_t dstRank, void *dstDesc,
                         int64_t srcTableRank, void *srcTableDesc,
                         int64_t dstTableRank, void *dstTableDesc,
                         int64_t groupsRank, void *groupsDesc, int64_t root,
                         int32_t op, int32_t device) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    abortAll();
  const std::string prefix =
      callPrefix(OpKind::Group, dtype, device, root, op, kind);
  std::vector<int64_t> srcRows, dstRows;
  int64_t numSrc = 0, numDst = 0;
  if (!readRedistribution(srcRank, dstRank, srcTableRank, srcTableDesc,
                          dstTableRank, dstTableDesc, prefix, srcRows, numSrc,
                          dstRows, numDst))
    abortAll();
  // The groups: memref<M x 3 x i64>, rows [rank, group, position].
  std::vector<int64_t> groups;
  int64_t numMembers = 0;
  if (groupsRank != 2 || !groupsDesc) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the groups are a memref of rank " +
             std::to_string(groupsRank) + "; expected memref<M x 3 x i64>");
    abortAll();
  }
  const shardrt_tensor g = decode(groupsRank, groupsDesc, SHARDRT_I64, 0);
  if (g.sizes[1] != 3 || (g.sizes[0] > 0 && !g.data)) {
    fail(SHARDRT_ERROR_INVALID_ARGUMENT,
         prefix + "the groups memref is " + std::to_string(g.sizes[0]) + " x " +
             std::to_string(g.sizes[1]) +
             (g.data ? "" : " with a NULL data pointer") +
             "; expected M x 3 (rank, group, position)");
    abortAll();
  }
  numMembers = g.sizes[0];
  groups.resize(static_cast<size_t>(numMembers) * 3);
  const int64_t *values = static_cast<const int64_t *>(g.data);
  for (int64_t m = 0; m < numMembers; ++m)
    for (int64_t k = 0; k < 3; ++k)
      groups[m * 3 + k] = values[m * g.strides[0] + k * g.strides[1]];
  shardrt_tensor src = decode(srcRank, srcDesc, dtype, device);
  shardrt_tensor dst = decode(dstRank, dstDesc, dtype, device);
  if (shardrt_group_collective(kind, &src, &dst, srcRows.data(), numSrc,
                               dstRows.data(), numDst, groups.data(),
                               numMembers, root, op) != SHARDRT_SUCCESS)
    abortAll();
  zeroUnheld(dst, dstRows, numDst, tensorRankOf(srcTableRank, srcTableDesc));
}

} // namespace
} // namespace rt
} // namespace shardc

#define SHARDRT_MLIR_DEFINE(suffix, dtype)                                     \
  void shardrt_mlir_all_gather_##suffix(int64_t local_rank, void *local_desc,  \
                                        int64_t global_rank,                   \
                                        void *global_desc, int64_t table_rank, \
                                        void *table_desc, int32_t device) {    \
    shardc::rt::mlirAllGather(dtype, local_rank, local_desc, global_rank,      \
                              global_desc, table_rank, table_desc, device);    \
  }                                                                            \
  void shardrt_mlir_exchange_to_world_##suffix(                                \
      int64_t local_rank, void *local_desc, int64_t global_rank,               \
      void *global_desc, int64_t table_rank, void *table_desc,                 \
      int32_t device) {                                                        \
    shardc::rt::mlirAllGather(dtype, local_rank, local_desc, global_rank,      \
                              global_desc, table_rank, table_desc, device,     \
                              /*toWorld=*/true);                               \
  }                                                                            \
  void shardrt_mlir_scatter_##suffix(int64_t global_rank, void *global_desc,   \
                                     int64_t local_rank, void *local_desc,     \
                                     int64_t table_rank, void *table_desc,     \
                                     int64_t root, int32_t device) {           \
    shardc::rt::mlirScatter(dtype, global_rank, global_desc, local_rank,       \
                            local_desc, table_rank, table_desc, root, device); \
  }                                                                            \
  void shardrt_mlir_redistribute_##suffix(                                     \
      int64_t src_rank, void *src_desc, int64_t dst_rank, void *dst_desc,      \
      int64_t srct_rank, void *srct_desc, int64_t dstt_rank, void *dstt_desc,  \
      int32_t device) {                                                        \
    shardc::rt::mlirRedistribute(dtype, src_rank, src_desc, dst_rank,          \
                                 dst_desc, srct_rank, srct_desc, dstt_rank,    \
                                 dstt_desc, device);                           \
  }                                                                            \
  void shardrt_mlir_redistribute_reduce_##suffix(                              \
      int64_t src_rank, void *src_desc, int64_t dst_rank, void *dst_desc,      \
      int64_t srct_rank, void *srct_desc, int64_t part_rank, void *part_desc,  \
      int64_t dstt_rank, void *dstt_desc, int32_t op, int32_t device) {        \
    shardc::rt::mlirRedistributeReduce(                                        \
        dtype, src_rank, src_desc, dst_rank, dst_desc, srct_rank, srct_desc,   \
        part_rank, part_desc, dstt_rank, dstt_desc, op, device);               \
  }                                                                            \
  void shardrt_mlir_group_collective_##suffix(                                 \
      int32_t kind, int64_t src_rank, void *src_desc, int64_t dst_rank,        \
      void *dst_desc, int64_t srct_rank, void *srct_desc, int64_t dstt_rank,   \
      void *dstt_desc, int64_t groups_rank, void *groups_desc, int64_t root,   \
      int32_t op, int32_t device) {                                            \
    shardc::rt::mlirGroupCollective(dtype, kind, src_rank, src_desc, dst_rank, \
                                    dst_desc, srct_rank, srct_desc, dstt_rank, \
                                    dstt_desc, groups_rank, groups_desc, root, \
                                    op, device);                               \
  }
SHARDRT_MLIR_DEFINE(f32, SHARDRT_F32)
SHARDRT_MLIR_DEFINE(f64, SHARDRT_F64)
SHARDRT_MLIR_DEFINE(f16, SHARDRT_F16)
SHARDRT_MLIR_DEFINE(bf16, SHARDRT_BF16)
SHARDRT_MLIR_DEFINE(i8, SHARDRT_I8)
SHARDRT_MLIR_DEFINE(i32, SHARDRT_I32)
SHARDRT_MLIR_DEFINE(i64, SHARDRT_I64)
SHARDRT_MLIR_DEFINE(ui8, SHARDRT_U8)
// i1 moves as bytes: MLIR stores one i1 per byte.
SHARDRT_MLIR_DEFINE(i1, SHARDRT_U8)
// index moves as i64: MLIR lowers it to 64 bits.
SHARDRT_MLIR_DEFINE(index, SHARDRT_I64)
SHARDRT_MLIR_DEFINE(i16, SHARDRT_I16)
SHARDRT_MLIR_DEFINE(ui16, SHARDRT_U16)
SHARDRT_MLIR_DEFINE(ui32, SHARDRT_U32)
SHARDRT_MLIR_DEFINE(ui64, SHARDRT_U64)
// The types the runtime has no code of their own for move as the bytes of
// one of the same width (never reduced): signed integers as their signless
// peers, f8 as bytes.
SHARDRT_MLIR_DEFINE(si16, SHARDRT_I16)
SHARDRT_MLIR_DEFINE(si32, SHARDRT_I32)
SHARDRT_MLIR_DEFINE(si64, SHARDRT_I64)
SHARDRT_MLIR_DEFINE(si8, SHARDRT_I8)
SHARDRT_MLIR_DEFINE(si1, SHARDRT_U8)
SHARDRT_MLIR_DEFINE(f8E4M3FN, SHARDRT_U8)
SHARDRT_MLIR_DEFINE(f8E5M2, SHARDRT_U8)
#undef SHARDRT_MLIR_DEFINE

// The allocation functions of programs lowered with --shard-to-llvm's
// device-alloc option (FinalizeMemRefToLLVM's generic functions): CUDA
// managed memory when the runtime has its NCCL backend and a GPU is
// visible (the NCCL backend's collectives need device memory, and the
// program's host code reads and writes managed memory too), host memory
// otherwise.
extern "C" int shardrt_cuda_devices(void) {
#ifdef SHARDRT_HAVE_NCCL
  return shardc::rt::nccl::visibleDevices();
#else
  return 0;
#endif
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t bytes) {
#ifdef SHARDRT_HAVE_NCCL
  if (void *p = shardc::rt::nccl::managedAlloc(bytes))
    return p;
#endif
  return std::malloc(bytes);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t bytes) {
#ifdef SHARDRT_HAVE_NCCL
  // Managed allocations are aligned to 256 bytes.
  if (alignment <= 256)
    if (void *p = shardc::rt::nccl::managedAlloc(bytes))
      return p;
#endif
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded > 0 ? rounded : alignment);
}

extern "C" void _mlir_memref_to_llvm_free(void *p) {
  if (!p)
    return;
#ifdef SHARDRT_HAVE_NCCL
  if (shardc::rt::nccl::managedFree(p))
    return;
#endif
  std::free(p);
}
