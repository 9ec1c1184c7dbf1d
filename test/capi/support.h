/*===- support.h - What the C API tests share -----------------------------===*\
|*                                                                            *|
|* The printed text of an operation (or a pipeline's errors), collected by    *|
|* `append`, and a failure that names the test (kTestName, defined by the     *|
|* file that includes this one).                                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SHARDC_TEST_CAPI_SUPPORT_H
#define SHARDC_TEST_CAPI_SUPPORT_H

#include "mlir-c/Support.h"

#include <stdio.h>
#include <string.h>

static char printed[1 << 16];
static size_t used = 0;

static void append(MlirStringRef s, void *data) {
  (void)data;
  if (used + s.length < sizeof(printed)) {
    memcpy(printed + used, s.data, s.length);
    used += s.length;
    printed[used] = 0;
  }
}

static int fail(const char *what) {
  fprintf(stderr, "%s: FAILED: %s\n", kTestName, what);
  return 1;
}

#endif /* SHARDC_TEST_CAPI_SUPPORT_H */
