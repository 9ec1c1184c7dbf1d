# Lowers mlir_entry_points.mlir to the LLVM dialect and runs it with
# mlir-runner under mpirun, loading the runtime. Variables: MLIR_OPT,
# MLIR_RUNNER, MPI_LAUNCHER (test/e2e/Inputs/mpirun.sh), MPIEXEC,
# MPIEXEC_FLAGS (a list), SHARDRT, INPUT, OUTPUT.
execute_process(
  COMMAND ${MLIR_OPT} ${INPUT} --convert-scf-to-cf --expand-strided-metadata
    --lower-affine --convert-arith-to-llvm
    --finalize-memref-to-llvm --convert-func-to-llvm --convert-cf-to-llvm
    --reconcile-unrealized-casts -o ${OUTPUT}
  RESULT_VARIABLE lowered)
if(NOT lowered EQUAL 0)
  message(FATAL_ERROR "mlir-opt failed to lower ${INPUT}")
endif()
execute_process(
  COMMAND ${MPI_LAUNCHER} ${MPIEXEC} -np 4 ${MPIEXEC_FLAGS} ${MLIR_RUNNER} ${OUTPUT} -e main
    -entry-point-result=void -shared-libs=${SHARDRT}
  RESULT_VARIABLE ran)
if(NOT ran EQUAL 0)
  message(FATAL_ERROR "the entry points test failed (exit status ${ran})")
endif()
message(STATUS "shardrt MLIR entry points: 4 ranks OK")
