/* A process entry for a lowered program compiled ahead of time
 * (scripts/gpu-check.sh): the program's `main` is renamed
 * `shardc_program_main`, and the two printers it calls, which mlir-runner
 * takes from MLIR's runner utilities, are defined here, so the executable
 * needs only shardrt (and MPI, CUDA, NCCL beneath it), not MLIR. */
#include <stdint.h>
#include <stdio.h>

void printI64(int64_t value) { printf("%lld", (long long)value); }

void printNewline(void) {
  printf("\n");
  fflush(stdout);
}

void shardc_program_main(void);

int main(void) {
  shardc_program_main();
  return 0;
}
