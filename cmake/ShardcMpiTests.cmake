# The MPI tests of a directory (LABELS mpi; `ctest -L mpi`) run beside
# other tests, each launch in a TMPDIR of its own: concurrent Open MPI
# launches that share one collide creating and removing their session
# directories (they once held one lock, and ran one at a time). Those that time out on
# purpose wait 2 s or more for ranks that MPI_Init brought up together
# (and the late joiner comes 1 s late into a 5 s timeout): ctest -j2 and
# -j3 on 2 cores passed them, run after run, where one MPI test at a time
# made the suite wait through every timeout in turn (86-102 s against
# 60-65 s). Called at the end of each directory that adds MPI tests.
function(shardc_share_mpi_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test ${tests})
    get_test_property(${test} LABELS labels)
    if(NOT "mpi" IN_LIST labels)
      continue()
    endif()
    set(tmp "${CMAKE_CURRENT_BINARY_DIR}/mpi-tmp/${test}")
    file(MAKE_DIRECTORY "${tmp}")
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "TMPDIR=${tmp}")
  endforeach()
endfunction()
