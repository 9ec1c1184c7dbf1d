/*===- shardrt.h - The shardc runtime's C ABI -------------------*- C -*-===*
 *
 * Generated code and embedders call these functions to move blocks of a
 * sharded tensor between ranks. Processes are started by mpirun; MPI gives the
 * rank and world size. CPU buffers go through the MPI backend, CUDA buffers
 * through the NCCL backend (when the library was built with it).
 *
 * Layout of a block table: `num_blocks` rows of `1 + 2 * R` int64 values,
 * R being the rank of the global tensor:
 *   row b = [owner, offset_0 .. offset_{R-1}, size_0 .. size_{R-1}]
 * `owner` is the MPI rank (in MPI_COMM_WORLD) that holds block b. A block with
 * a zero size holds nothing. Every rank owns at most one block, except in
 * the *_packed redistributions; ranks that own none contribute nothing and
 * receive nothing local.
 *
 * Collective calls must be made by every rank of the world, with the same
 * dtype, device, global sizes, block table (and root). The ranks check
 * that every rank's arguments are valid and alike; otherwise the call fails
 * on every rank, naming the rank or ranks at fault, and none waits for the
 * others. In worlds of up to 16 ranks the check rides in the call's own
 * messages (their MPI tags), and the destination buffers then hold undefined
 * values after such an error; in larger worlds, or with
 * SHARDRT_AGREE=allreduce, one small MPI_Iallreduce checks it before any data
 * moves. CUDA buffers are used on the stream given
 * to shardrt_set_cuda_stream on the calling thread, or else the runtime's
 * own (which waits for the legacy default stream); the call returns when
 * the data has arrived.
 *
 * No call waits forever: a call that has not completed after
 * SHARDRT_TIMEOUT_SECONDS (environment variable, read once; default 600,
 * 0 for no limit) prints what it waits for (rank, collective, sizes, dtype,
 * step), aborts the NCCL communicators (ncclCommAbort) and every rank
 * (MPI_Abort). With SHARDRT_AGREE=first-call, the ranks check only the
 * first run of each distinct CPU call (by the MPI_Allreduce); its repeats
 * move their data on a communicator of their own (ranks making different
 * calls then wait for each other until the timeout instead of getting an
 * error).
 *
 *===---------------------------------------------------------------------===*/

#ifndef SHARDRT_H
#define SHARDRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Element types. */
typedef enum shardrt_dtype {
  SHARDRT_F32 = 0,
  SHARDRT_F64 = 1,
  SHARDRT_F16 = 2,
  SHARDRT_BF16 = 3,
  SHARDRT_I8 = 4,
  SHARDRT_I32 = 5,
  SHARDRT_I64 = 6,
  SHARDRT_U8 = 7,
  SHARDRT_I16 = 8,
  SHARDRT_U16 = 9,
  SHARDRT_U32 = 10,
  SHARDRT_U64 = 11,
} shardrt_dtype;

/** Where a buffer lives. */
typedef enum shardrt_device {
  SHARDRT_DEVICE_CPU = 0,  /**< host memory: MPI backend */
  SHARDRT_DEVICE_CUDA = 1, /**< device memory: NCCL backend */
} shardrt_device;

/** Return codes. shardrt_last_error() holds the message of the last error. */
typedef enum shardrt_status {
  SHARDRT_SUCCESS = 0,
  SHARDRT_ERROR_INVALID_ARGUMENT = 1, /**< bad sizes, table, dtype, ... */
  SHARDRT_ERROR_UNAVAILABLE = 2,      /**< backend not built in */
  SHARDRT_ERROR_BACKEND = 3,          /**< MPI, NCCL or CUDA failed */
} shardrt_status;

/** Reduction of partial values: how the partial copies of an element
 * combine. */
typedef enum shardrt_reduce {
  SHARDRT_SUM = 0,
  SHARDRT_AVG = 1, /**< the sum divided by the number of partial indices */
  SHARDRT_MAX = 2,
  SHARDRT_MIN = 3,
  SHARDRT_PRODUCT = 4,
} shardrt_reduce;

/** A strided view of a tensor in memory. Strides count elements. */
typedef struct shardrt_tensor {
  void *data; /**< address of element (0, ..., 0) */
  int32_t dtype;
  int32_t device;
  int64_t rank;
  const int64_t *sizes;
  const int64_t *strides;
} shardrt_tensor;

/** Initializes MPI if nobody has (idempotent; every call below does it
 * lazily). When shardrt initialized MPI, it finalizes it at exit. */
int shardrt_init(void);
/** Releases the runtime's communicators (MPI duplicate, NCCL) and finalizes
 * MPI if shardrt initialized it (idempotent). */
int shardrt_finalize(void);
/** This process's rank in MPI_COMM_WORLD (initializing MPI if needed); -1 if
 * MPI could not be initialized (see shardrt_last_error()). */
int shardrt_rank(void);
/** The number of ranks in MPI_COMM_WORLD; -1 on failure, as shardrt_rank. */
int shardrt_world_size(void);
/** The bytes this rank has received from other ranks in the calls that
 * completed on it, since the process started: per call, what its plan
 * receives, not what the transport adds (a reduce_scatter: its piece from
 * every other member of the group; a native all_reduce of S elements in a
 * group of g: the ring's (S - c(p - 1)) + (S - c(p)) elements, c(q) being
 * the chunk of S / g of the member at position q, p this rank's: every chunk
 * but the one it starts in the reduce-scatter, every chunk but its own in
 * the all-gather). Calls a rank takes no part in add 0. */
int64_t shardrt_bytes_received(void);
/** The allocation functions of programs lowered by shard-opt's
 * --shard-to-llvm=device-alloc=1 (MLIR's generic allocation functions):
 * CUDA managed memory (reachable from the host and every GPU) when the
 * runtime is built with its NCCL backend and a GPU is visible, host memory
 * otherwise; free takes either. */
void *_mlir_memref_to_llvm_alloc(size_t bytes);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes);
void _mlir_memref_to_llvm_free(void *ptr);
/** The CUDA devices this process sees when the runtime has its NCCL
 * backend (0 without it, or without a GPU). */
int shardrt_cuda_devices(void);
/** Comma-separated list of the backends built in: "mpi" or "mpi,nccl". */
const char *shardrt_backends(void);
/** The message of the last failed call on this thread ("" if none). */
const char *shardrt_last_error(void);
/** Enqueues this thread's later calls on CUDA buffers on `stream` (a
 * cudaStream_t; NULL: the runtime's own stream, the default). Work the call
 * depends on must be enqueued on that stream before it, or be complete; the
 * call still returns when the data has arrived. Always SHARDRT_SUCCESS. */
int shardrt_set_cuda_stream(void *stream);

/** Every rank receives the whole tensor `global`, assembled from the blocks
 * that their owners pass in `local` (whose sizes must equal their block's
 * sizes; ignored, and may be NULL, on ranks owning no block). Elements of
 * `global` that no block covers are left as they are. A table with replicas
 * (two rows of one box) is gathered as shardrt_exchange_to_world, which the
 * compiler calls itself for such layouts. */
int shardrt_all_gather(const shardrt_tensor *local,
                       const shardrt_tensor *global, const int64_t *blocks,
                       int64_t num_blocks);

/** The whole tensor `global` on every rank of the world, as
 * shardrt_all_gather, but as the exchange to that layout: each rank receives
 * each element it lacks once, from one holder, and copies what it holds
 * (with replicas, an all_gather would send a replica's holder its own block
 * again). What the compiler emits for `shard.spmd.exchange ... to world`. */
int shardrt_exchange_to_world(const shardrt_tensor *local,
                              const shardrt_tensor *global,
                              const int64_t *blocks, int64_t num_blocks);

/** Rank `root` holds the whole tensor `global` (read on root only); every
 * block's owner receives its block in `local` (sizes must equal the block's;
 * ignored, and may be NULL, on ranks owning no block). `global` must give its
 * rank, sizes and dtype on every rank (the block table's width depends on the
 * rank); its data may be NULL on ranks other than root. */
int shardrt_scatter(const shardrt_tensor *global, const shardrt_tensor *local,
                    const int64_t *blocks, int64_t num_blocks, int64_t root);

/** Moves a tensor from one block layout to another of the same global shape.
 * Every rank passes its block under the source table in `src_local`
 * (ignored when it owns none) and receives its block under the destination
 * table in `dst_local` (ignored when it owns none). Rows of the source table
 * with identical boxes are replicas (copies of the same data): each
 * destination element is received once, from a rank that holds it, or copied
 * locally when the destination rank holds a replica itself. Both tables are
 * identical on every rank.
 *
 * The tensor's dtype, device and rank R (the tables have 1 + 2R columns) come
 * from the views: either may be NULL on a rank that owns no block of its
 * table, but not both, and when both are given they must agree on dtype,
 * device and rank. The two views must not share memory. Both tables must
 * span the same extent (the largest offset + size in each dim over their
 * non-empty blocks). A rank owns at most one block of each table here
 * (several: shardrt_redistribute_packed). The data moves in one exchange
 * (one MPI message each way per pair of ranks; grouped NCCL send/recv). The
 * replicas of a
 * box take turns: the destination blocks that need it and whose owner holds no
 * replica, in table order, are served by the replicas in table order, the k-th
 * by replica k mod (number of replicas). */
int shardrt_redistribute(const shardrt_tensor *src_local,
                         const shardrt_tensor *dst_local,
                         const int64_t *src_blocks, int64_t num_src,
                         const int64_t *dst_blocks, int64_t num_dst);

/** shardrt_redistribute for ranks that own several blocks of either table
 * (a checkpoint reshard from one set of blocks to another): each rank passes
 * the blocks it owns packed, row-major, one after the other in table order,
 * in `src_data` (read) and `dst_data` (written; the two must not overlap);
 * either may be NULL when the rank's blocks of that table hold nothing. The
 * dtype, device and tensor rank (the tables have 1 + 2 * tensor_rank
 * columns) are given. One rank holds a non-empty box at most once per
 * table. The plan is shardrt_redistribute's, made for every destination
 * block: each rank receives what its blocks lack, once; boxes shared between
 * a rank's source and destination blocks are copied locally. */
int shardrt_redistribute_packed(void *src_data, void *dst_data, int32_t dtype,
                                int32_t device, int64_t tensor_rank,
                                const int64_t *src_blocks, int64_t num_src,
                                const int64_t *dst_blocks, int64_t num_dst);

/** shardrt_redistribute_reduce with packed blocks, as
 * shardrt_redistribute_packed. */
int shardrt_redistribute_reduce_packed(
    void *src_data, void *dst_data, int32_t dtype, int32_t device,
    int64_t tensor_rank, const int64_t *src_blocks, int64_t num_src,
    const int64_t *src_partial, const int64_t *dst_blocks, int64_t num_dst,
    int32_t op);

/** What shardrt_redistribute would do on rank `process_rank` for a tensor of
 * rank `rank_of_tensor` laid out by the two tables: the number of elements it
 * would receive from other ranks (`*received`) and copy locally from its
 * source block (`*copied`). Pure computation, no MPI: it checks the tables
 * as shardrt_redistribute does, without a world size (owners are any
 * non-negative int). */
int shardrt_redistribute_counts(const int64_t *src_blocks, int64_t num_src,
                                const int64_t *dst_blocks, int64_t num_dst,
                                int64_t rank_of_tensor, int64_t process_rank,
                                int64_t *received, int64_t *copied);

/** As shardrt_redistribute, but the source holds partial values (DTensor's
 * Partial placements): source rows with identical boxes and the same
 * `src_partial[row]` are replicas (copies), rows with identical boxes and
 * different partial indices are partial values that combine with `op` (a
 * shardrt_reduce) into the destination (avg: the sum divided by the number
 * of distinct partial indices of that box). Each destination element is the
 * reduction of exactly one copy of every partial index: partial -> replicate
 * is an all_reduce, partial -> shard a reduce_scatter. `src_partial` has
 * num_src values >= 0 (it may be NULL only when num_src is 0); where every
 * box has one partial index this is shardrt_redistribute.
 *
 * For one element, the rank that owns its destination block combines the
 * values in ascending partial index (the first copied, the others reduced
 * in), so that replicas of a destination block receive identical values.
 * Integer sums and products wrap around; integer avg divides the (wrapped)
 * sum, truncating toward zero; max and min propagate NaN; f16 and bf16 are
 * combined in float and rounded to nearest even after every step. The data
 * moves in one exchange: the replicas of one partial index
 * take turns serving the destination blocks that need them, as in
 * shardrt_redistribute. CUDA buffers (NCCL): the same plan and arithmetic
 * (ElementOps.h), moved by grouped ncclSend/ncclRecv; an all-reduce or a
 * reduce-scatter that should run as NCCL's collective is called as one
 * (shardrt_group_collective): this call re-plans nothing. */
int shardrt_redistribute_reduce(const shardrt_tensor *src_local,
                                const shardrt_tensor *dst_local,
                                const int64_t *src_blocks, int64_t num_src,
                                const int64_t *src_partial,
                                const int64_t *dst_blocks, int64_t num_dst,
                                int32_t op);

/** shardrt_redistribute_counts for shardrt_redistribute_reduce: the elements
 * rank `process_rank` would receive from other ranks (`*received`, every
 * partial value counted) and copy or reduce from its own source block
 * (`*copied`). Pure computation, no MPI. */
int shardrt_redistribute_reduce_counts(
    const int64_t *src_blocks, int64_t num_src, const int64_t *src_partial,
    const int64_t *dst_blocks, int64_t num_dst, int64_t rank_of_tensor,
    int64_t process_rank, int64_t *received, int64_t *copied);

/** The named collectives shardrt_group_collective runs. */
typedef enum shardrt_collective {
  SHARDRT_COLLECTIVE_ALL_GATHER = 0,
  SHARDRT_COLLECTIVE_REDUCE_SCATTER = 1,
  SHARDRT_COLLECTIVE_ALL_REDUCE = 2,
  SHARDRT_COLLECTIVE_ALL_TO_ALL = 3,
  SHARDRT_COLLECTIVE_BROADCAST = 4,
  SHARDRT_COLLECTIVE_GATHER = 5,
} shardrt_collective;

/** A named collective within groups of ranks, as the compiler planned it
 * (shard.spmd.all_gather over mesh axes, reduce_scatter, all_reduce,
 * all_to_all, broadcast, gather): it takes a tensor from the source block
 * table to the destination table (as shardrt_redistribute's, one block per
 * rank at most), and every group moves its data in native collectives on
 * a communicator of its own (split once from the runtime's world and kept),
 * with each rank's piece packed only when it is not contiguous. Host
 * buffers: MPI_Allgather(v), MPI_Reduce_scatter, MPI_Allreduce,
 * MPI_Alltoallv, MPI_Bcast, MPI_Gatherv. CUDA buffers: ncclAllGather,
 * ncclReduceScatter, ncclAllReduce, ncclBroadcast where the sizes are even
 * (and NCCL's reduction is the runtime's), else grouped ncclSend/ncclRecv
 * (docs/runtime.md).
 *
 * `groups` has `num_members` rows [rank, group, position]: every rank that
 * takes part, an id of its group (any int64) and its place in it (0 to the
 * group's size - 1: the order of its blocks). Ranks not listed take no part,
 * but every rank of the world calls. What each kind moves, within each
 * group:
 * - all_gather: every member's destination block is the union of the
 *   members' source blocks;
 * - reduce_scatter (`op`, a shardrt_reduce): every member holds partial
 *   values of one box, which the members' destination blocks tile; each
 *   receives its block reduced over the group (avg: the sum divided by the
 *   group's size);
 * - all_reduce (`op`): every member's source and destination block are one
 *   box; each receives the reduction over the group;
 * - all_to_all: the members' source blocks and their destination blocks
 *   tile one region; each sends every other member what it holds of that
 *   member's destination block;
 * - broadcast (`root`): every member's destination block is the root's
 *   source block;
 * - gather (`root`): the root's destination block is the union of the
 *   members' source blocks; the others' are empty.
 * `root` is -1 and `op` ignored where they do not apply. The runtime checks
 * that the tables and groups describe the collective and, as for every call,
 * that all ranks pass the same call; reductions have
 * shardrt_redistribute_reduce's arithmetic (max and min propagate NaN; f16
 * and bf16 combine in float), in the backend's order within a group. */
int shardrt_group_collective(int32_t kind, const shardrt_tensor *src_local,
                             const shardrt_tensor *dst_local,
                             const int64_t *src_blocks, int64_t num_src,
                             const int64_t *dst_blocks, int64_t num_dst,
                             const int64_t *groups, int64_t num_members,
                             int64_t root, int32_t op);

/*===---------------------------------------------------------------------===*
 * Entry points for MLIR-generated code. Arguments of type memref<*xT> arrive
 * as (rank, pointer to the ranked descriptor {allocated, aligned, offset,
 * sizes[rank], strides[rank]}), as the LLVM lowering of func.call passes
 * them. A block table is a memref<N x (1+2R) x i64>; for redistribute, R
 * comes from the tables' width and must be both memrefs' rank, and a rank
 * that owns no block of a table passes any memref of rank R (its data is
 * ignored); redistribute_reduce takes the partial indices of the source
 * rows as a memref<N x i64> and the shardrt_reduce as an i32;
 * group_collective takes the shardrt_collective, the groups as a
 * memref<M x 3 x i64>, the root and the shardrt_reduce. These functions do
 * not
 * return errors: they print a message naming the rank, the collective, the
 * sizes and the dtype, and abort all ranks (MPI_Abort).
 *
 * One symbol per dtype: <suffix> is f32, f64, f16, bf16, i8, i32, i64, ui8,
 * i16, ui16, ui32, ui64; i1, whose elements (one byte each, as MLIR stores
 * them) move as ui8's; index, whose elements (64 bits, as MLIR lowers them)
 * move as i64's; and the types with no dtype of their own, moved as the
 * bytes of one of their width: si16 (as i16's), si32 (as i32's), si64 (as
 * i64's), si8 (as i8's), si1, f8E4M3FN and f8E5M2 (as ui8's). None of those
 * is ever reduced.
 *===---------------------------------------------------------------------===*/
#define SHARDRT_MLIR_DECLARE(suffix)                                           \
  void shardrt_mlir_all_gather_##suffix(int64_t local_rank, void *local_desc,  \
                                        int64_t global_rank,                   \
                                        void *global_desc, int64_t table_rank, \
                                        void *table_desc, int32_t device);     \
  void shardrt_mlir_exchange_to_world_##suffix(                                \
      int64_t local_rank, void *local_desc, int64_t global_rank,               \
      void *global_desc, int64_t table_rank, void *table_desc,                 \
      int32_t device);                                                         \
  void shardrt_mlir_scatter_##suffix(int64_t global_rank, void *global_desc,   \
                                     int64_t local_rank, void *local_desc,     \
                                     int64_t table_rank, void *table_desc,     \
                                     int64_t root, int32_t device);            \
  void shardrt_mlir_redistribute_##suffix(                                     \
      int64_t src_rank, void *src_desc, int64_t dst_rank, void *dst_desc,      \
      int64_t srct_rank, void *srct_desc, int64_t dstt_rank, void *dstt_desc,  \
      int32_t device);                                                         \
  void shardrt_mlir_redistribute_reduce_##suffix(                              \
      int64_t src_rank, void *src_desc, int64_t dst_rank, void *dst_desc,      \
      int64_t srct_rank, void *srct_desc, int64_t part_rank, void *part_desc,  \
      int64_t dstt_rank, void *dstt_desc, int32_t op, int32_t device);         \
  void shardrt_mlir_group_collective_##suffix(                                 \
      int32_t kind, int64_t src_rank, void *src_desc, int64_t dst_rank,        \
      void *dst_desc, int64_t srct_rank, void *srct_desc, int64_t dstt_rank,   \
      void *dstt_desc, int64_t groups_rank, void *groups_desc, int64_t root,   \
      int32_t op, int32_t device);
SHARDRT_MLIR_DECLARE(f32)
SHARDRT_MLIR_DECLARE(f64)
SHARDRT_MLIR_DECLARE(f16)
SHARDRT_MLIR_DECLARE(bf16)
SHARDRT_MLIR_DECLARE(i8)
SHARDRT_MLIR_DECLARE(i32)
SHARDRT_MLIR_DECLARE(i64)
SHARDRT_MLIR_DECLARE(ui8)
SHARDRT_MLIR_DECLARE(i1)
SHARDRT_MLIR_DECLARE(index)
SHARDRT_MLIR_DECLARE(i16)
SHARDRT_MLIR_DECLARE(ui16)
SHARDRT_MLIR_DECLARE(si16)
SHARDRT_MLIR_DECLARE(ui32)
SHARDRT_MLIR_DECLARE(si32)
SHARDRT_MLIR_DECLARE(ui64)
SHARDRT_MLIR_DECLARE(si64)
SHARDRT_MLIR_DECLARE(si8)
SHARDRT_MLIR_DECLARE(si1)
SHARDRT_MLIR_DECLARE(f8E4M3FN)
SHARDRT_MLIR_DECLARE(f8E5M2)
#undef SHARDRT_MLIR_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* SHARDRT_H */
