# Fails when a committed copy of generated docs differs from the build's.
#   cmake -DGENERATED=build/docs/X.md -DCOMMITTED=docs/generated/X.md -P CheckDocs.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GENERATED}
  ${COMMITTED} RESULT_VARIABLE different)
if(different)
  message(FATAL_ERROR "${COMMITTED} is stale: the .td files changed. "
    "Refresh it: cp ${GENERATED} ${COMMITTED}")
endif()
message(STATUS "${COMMITTED} matches the .td files")
