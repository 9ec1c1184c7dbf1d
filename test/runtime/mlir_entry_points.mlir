// The MLIR entry points called from JIT-compiled code, as the lowering of
// func.call passes memref<*xT> arguments. Run under mpirun with 4 ranks: a
// 7x3 f32 tensor chunked along dim 0 (2, 2, 2, 1 rows) is all-gathered into a
// strided view (offset 6, strides [5, 1]), then an i64 tensor is scattered
// from root 1 and redistributed from rows to columns (rank b < 3 gets column
// b, rank 3 nothing) and into columns of ranks 0-2 alone (rank 3, holding no
// block of the destination, gets its buffer zeroed); last, every rank holds
// a partial sum of the whole i64 tensor and receives the sum of its rows
// (redistribute_reduce, a reduce_scatter). Each rank checks every element
// against its index and exits with status 1 (all_gather), 2 (scatter), 3
// (redistribute), 5 (the buffer of no block) or 4 (redistribute_reduce) on a
// mismatch.

func.func private @shardrt_mlir_all_gather_f32(memref<*xf32>, memref<*xf32>, memref<*xi64>, i32)
func.func private @shardrt_mlir_scatter_i64(memref<*xi64>, memref<*xi64>, memref<*xi64>, i64, i32)
func.func private @shardrt_mlir_redistribute_i64(memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, i32)
func.func private @shardrt_mlir_redistribute_reduce_i64(memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, i32, i32)
func.func private @shardrt_rank() -> i32
func.func private @exit(i32)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %cpu = arith.constant 0 : i32
  %rank32 = func.call @shardrt_rank() : () -> i32
  %rank = arith.index_cast %rank32 : i32 to index

  // Block table rows [owner, offset0, offset1, size0, size1].
  %table = memref.alloc() : memref<4x5xi64>
  scf.for %b = %c0 to %c4 step %c1 {
    %start = arith.muli %b, %c2 : index
    %left = arith.subi %c7, %start : index
    %rows = arith.minsi %left, %c2 : index
    %owner = arith.index_cast %b : index to i64
    %off = arith.index_cast %start : index to i64
    %size = arith.index_cast %rows : index to i64
    %zero = arith.constant 0 : i64
    %three = arith.constant 3 : i64
    memref.store %owner, %table[%b, %c0] : memref<4x5xi64>
    memref.store %off, %table[%b, %c1] : memref<4x5xi64>
    memref.store %zero, %table[%b, %c2] : memref<4x5xi64>
    memref.store %size, %table[%b, %c3] : memref<4x5xi64>
    memref.store %three, %table[%b, %c4] : memref<4x5xi64>
  }
  %tableU = memref.cast %table : memref<4x5xi64> to memref<*xi64>

  // This rank's rows.
  %start = arith.muli %rank, %c2 : index
  %left = arith.subi %c7, %start : index
  %n = arith.minsi %left, %c2 : index

  // all_gather: local[i, j] = 3 * (start + i) + j.
  %local = memref.alloc(%n) : memref<?x3xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %gi = arith.addi %start, %i : index
      %row = arith.muli %gi, %c3 : index
      %lin = arith.addi %row, %j : index
      %lin32 = arith.index_cast %lin : index to i32
      %v = arith.sitofp %lin32 : i32 to f32
      memref.store %v, %local[%i, %j] : memref<?x3xf32>
    }
  }
  %padded = memref.alloc() : memref<9x5xf32>
  %global = memref.subview %padded[1, 1] [7, 3] [1, 1]
      : memref<9x5xf32> to memref<7x3xf32, strided<[5, 1], offset: 6>>
  %localU = memref.cast %local : memref<?x3xf32> to memref<*xf32>
  %globalU = memref.cast %global
      : memref<7x3xf32, strided<[5, 1], offset: 6>> to memref<*xf32>
  func.call @shardrt_mlir_all_gather_f32(%localU, %globalU, %tableU, %cpu)
      : (memref<*xf32>, memref<*xf32>, memref<*xi64>, i32) -> ()
  scf.for %i = %c0 to %c7 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %row = arith.muli %i, %c3 : index
      %lin = arith.addi %row, %j : index
      %lin32 = arith.index_cast %lin : index to i32
      %want = arith.sitofp %lin32 : i32 to f32
      %got = memref.load %global[%i, %j]
          : memref<7x3xf32, strided<[5, 1], offset: 6>>
      %bad = arith.cmpf une, %got, %want : f32
      scf.if %bad {
        %code = arith.constant 1 : i32
        func.call @exit(%code) : (i32) -> ()
      }
    }
  }

  // scatter from root 1: global[i, j] = 3 * i + j.
  %source = memref.alloc() : memref<7x3xi64>
  scf.for %i = %c0 to %c7 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %row = arith.muli %i, %c3 : index
      %lin = arith.addi %row, %j : index
      %v = arith.index_cast %lin : index to i64
      memref.store %v, %source[%i, %j] : memref<7x3xi64>
    }
  }
  %block = memref.alloc(%n) : memref<?x3xi64>
  %sourceU = memref.cast %source : memref<7x3xi64> to memref<*xi64>
  %blockU = memref.cast %block : memref<?x3xi64> to memref<*xi64>
  %root = arith.constant 1 : i64
  func.call @shardrt_mlir_scatter_i64(%sourceU, %blockU, %tableU, %root, %cpu)
      : (memref<*xi64>, memref<*xi64>, memref<*xi64>, i64, i32) -> ()
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %gi = arith.addi %start, %i : index
      %row = arith.muli %gi, %c3 : index
      %lin = arith.addi %row, %j : index
      %want = arith.index_cast %lin : index to i64
      %got = memref.load %block[%i, %j] : memref<?x3xi64>
      %bad = arith.cmpi ne, %got, %want : i64
      scf.if %bad {
        %code = arith.constant 2 : i32
        func.call @exit(%code) : (i32) -> ()
      }
    }
  }

  // redistribute the scattered rows into columns: rows [owner, 0, b, 7, 1]
  // for b < 3, [3, 0, 3, 7, 0] (an empty block) for rank 3.
  %columns = memref.alloc() : memref<4x5xi64>
  scf.for %b = %c0 to %c4 step %c1 {
    %owner = arith.index_cast %b : index to i64
    %hasColumn = arith.cmpi ult, %b, %c3 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %seven = arith.constant 7 : i64
    %width = arith.select %hasColumn, %one, %zero : i64
    memref.store %owner, %columns[%b, %c0] : memref<4x5xi64>
    memref.store %zero, %columns[%b, %c1] : memref<4x5xi64>
    memref.store %owner, %columns[%b, %c2] : memref<4x5xi64>
    memref.store %seven, %columns[%b, %c3] : memref<4x5xi64>
    memref.store %width, %columns[%b, %c4] : memref<4x5xi64>
  }
  %columnsU = memref.cast %columns : memref<4x5xi64> to memref<*xi64>
  %mine = arith.cmpi ult, %rank, %c3 : index
  %m = arith.select %mine, %c1, %c0 : index
  %column = memref.alloc(%m) : memref<7x?xi64>
  %columnU = memref.cast %column : memref<7x?xi64> to memref<*xi64>
  func.call @shardrt_mlir_redistribute_i64(%blockU, %columnU, %tableU, %columnsU, %cpu)
      : (memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, i32) -> ()
  scf.for %i = %c0 to %c7 step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %row = arith.muli %i, %c3 : index
      %lin = arith.addi %row, %rank : index
      %want = arith.index_cast %lin : index to i64
      %got = memref.load %column[%i, %j] : memref<7x?xi64>
      %bad = arith.cmpi ne, %got, %want : i64
      scf.if %bad {
        %code = arith.constant 3 : i32
        func.call @exit(%code) : (i32) -> ()
      }
    }
  }

  // redistribute_reduce: every rank holds the whole 7x3 tensor (rows
  // [owner, 0, 0, 7, 3]) with partial index = rank and values
  // 3 i + j + 100 rank; it receives the sum of its rows under the first
  // table: 4 (3 i + j) + 600.
  %whole = memref.alloc() : memref<4x5xi64>
  %partial = memref.alloc() : memref<4xi64>
  scf.for %b = %c0 to %c4 step %c1 {
    %owner = arith.index_cast %b : index to i64
    %zero = arith.constant 0 : i64
    %three = arith.constant 3 : i64
    %seven = arith.constant 7 : i64
    memref.store %owner, %whole[%b, %c0] : memref<4x5xi64>
    memref.store %zero, %whole[%b, %c1] : memref<4x5xi64>
    memref.store %zero, %whole[%b, %c2] : memref<4x5xi64>
    memref.store %seven, %whole[%b, %c3] : memref<4x5xi64>
    memref.store %three, %whole[%b, %c4] : memref<4x5xi64>
    memref.store %owner, %partial[%b] : memref<4xi64>
  }
  %rank64 = arith.index_cast %rank : index to i64
  %hundred = arith.constant 100 : i64
  %shift = arith.muli %rank64, %hundred : i64
  %addend = memref.alloc() : memref<7x3xi64>
  scf.for %i = %c0 to %c7 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %row = arith.muli %i, %c3 : index
      %lin = arith.addi %row, %j : index
      %lin64 = arith.index_cast %lin : index to i64
      %v = arith.addi %lin64, %shift : i64
      memref.store %v, %addend[%i, %j] : memref<7x3xi64>
    }
  }
  %sums = memref.alloc(%n) : memref<?x3xi64>
  %wholeU = memref.cast %whole : memref<4x5xi64> to memref<*xi64>
  %partialU = memref.cast %partial : memref<4xi64> to memref<*xi64>
  %addendU = memref.cast %addend : memref<7x3xi64> to memref<*xi64>
  %sumsU = memref.cast %sums : memref<?x3xi64> to memref<*xi64>
  %sum = arith.constant 0 : i32
  func.call @shardrt_mlir_redistribute_reduce_i64(%addendU, %sumsU, %wholeU, %partialU, %tableU, %sum, %cpu)
      : (memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, i32, i32) -> ()
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %gi = arith.addi %start, %i : index
      %row = arith.muli %gi, %c3 : index
      %lin = arith.addi %row, %j : index
      %lin64 = arith.index_cast %lin : index to i64
      %four = arith.constant 4 : i64
      %base = arith.muli %lin64, %four : i64
      %six = arith.constant 600 : i64
      %want = arith.addi %base, %six : i64
      %got = memref.load %sums[%i, %j] : memref<?x3xi64>
      %bad = arith.cmpi ne, %got, %want : i64
      scf.if %bad {
        %code = arith.constant 4 : i32
        func.call @exit(%code) : (i32) -> ()
      }
    }
  }

  // The same rows into columns held by ranks 0-2 alone (no row of rank 3 in
  // the destination table, as a rank outside a mesh smaller than the
  // world): rank 3's buffer, of the 7x1 local type every rank has, filled
  // with 99 before, is zeroed by the call (defined values for what the rank
  // computes from it). Last: a rank that stops on a mismatch leaves no
  // other waiting in a call.
  %held = memref.alloc() : memref<3x5xi64>
  scf.for %b = %c0 to %c3 step %c1 {
    %owner = arith.index_cast %b : index to i64
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %seven = arith.constant 7 : i64
    memref.store %owner, %held[%b, %c0] : memref<3x5xi64>
    memref.store %zero, %held[%b, %c1] : memref<3x5xi64>
    memref.store %owner, %held[%b, %c2] : memref<3x5xi64>
    memref.store %seven, %held[%b, %c3] : memref<3x5xi64>
    memref.store %one, %held[%b, %c4] : memref<3x5xi64>
  }
  %heldU = memref.cast %held : memref<3x5xi64> to memref<*xi64>
  %col = memref.alloc() : memref<7x1xi64>
  %ninetynine = arith.constant 99 : i64
  scf.for %i = %c0 to %c7 step %c1 {
    memref.store %ninetynine, %col[%i, %c0] : memref<7x1xi64>
  }
  %colU = memref.cast %col : memref<7x1xi64> to memref<*xi64>
  func.call @shardrt_mlir_redistribute_i64(%blockU, %colU, %tableU, %heldU, %cpu)
      : (memref<*xi64>, memref<*xi64>, memref<*xi64>, memref<*xi64>, i32) -> ()
  scf.for %i = %c0 to %c7 step %c1 {
    %row = arith.muli %i, %c3 : index
    %lin = arith.addi %row, %rank : index
    %value = arith.index_cast %lin : index to i64
    %zero = arith.constant 0 : i64
    %want = arith.select %mine, %value, %zero : i64
    %got = memref.load %col[%i, %c0] : memref<7x1xi64>
    %bad = arith.cmpi ne, %got, %want : i64
    scf.if %bad {
      %code = arith.constant 5 : i32
      func.call @exit(%code) : (i32) -> ()
    }
  }

  return
}
