/* A failed link never poisons the JIT (issue 15): an object that does not
 * define the symbol asked for (a disk-cache entry holding another kernel's
 * object) used to leave its own symbols behind, and the kernel it really
 * holds then failed to link with "Duplicate definition" for the rest of the
 * process. Each link now has its own resource tracker, removed on failure. */
#include "jit_llvm.h"
#include "test_util.h"

static const char *IR_A = "define i32 @ixj_test_a() {\n  ret i32 41\n}\n";
static const char *IR_B = "define i32 @ixj_test_b() {\n  ret i32 42\n}\n";

static void object_of(jit_llvm *j, const char *ir, void **obj, size_t *size) {
  ixj_error err;
  if (ixj__jit_llvm_object(j, ir, obj, size, &err) != IXJ_OK) fail_msg("%s", err.message);
}

static void test_failed_link_leaves_nothing(void **state) {
  (void)state;
  jit_llvm *j;
  ixj_error err;
  assert_int_equal(ixj__jit_llvm_create(&j, &err), IXJ_OK);
  void *a, *b;
  size_t na, nb;
  object_of(j, IR_A, &a, &na);
  object_of(j, IR_B, &b, &nb);
  ixj_kernel_fn fn = NULL;
  /* B's object offered as A's kernel: A is not in it */
  assert_int_not_equal(ixj__jit_llvm_link(j, b, nb, "ixj_test_a", &fn, &err), IXJ_OK);
  /* now A links, and so does B: nothing of the failed link was left */
  assert_int_equal(ixj__jit_llvm_link(j, a, na, "ixj_test_a", &fn, &err), IXJ_OK);
  assert_int_equal(((int (*)(void))(uintptr_t)fn)(), 41);
  if (ixj__jit_llvm_link(j, b, nb, "ixj_test_b", &fn, &err) != IXJ_OK) fail_msg("%s", err.message);
  assert_int_equal(((int (*)(void))(uintptr_t)fn)(), 42);
  free(a);
  free(b);
  ixj__jit_llvm_destroy(j);
}

/* Tearing a JIT down with kernels linked: each kernel's tracker was released
 * live, which hands its code to the JITDylib's default tracker, and LLVM 19
 * reads the source's allocations there through a reference that the default
 * tracker's new map entry can invalidate: when that entry grows the map (47,
 * 95, 191... kernels linked) about one teardown in fifty aborted the process
 * with std::length_error (seen as a rare crash at the end of unit_fast_path).
 * The JIT now removes each kernel's code before releasing its tracker. With
 * the old teardown this test aborted in 7 of 10 runs (whether the stale
 * reference reads garbage depends on where the allocator puts the map). */
enum { MAX_LINKED = 95, TEARDOWNS = 300 };

static void test_teardown_with_kernels_linked(void **state) {
  (void)state;
  jit_llvm *j;
  ixj_error err;
  assert_int_equal(ixj__jit_llvm_create(&j, &err), IXJ_OK);
  static void *obj[MAX_LINKED];
  static size_t size[MAX_LINKED];
  static char name[MAX_LINKED][32];
  for (int k = 0; k < MAX_LINKED; k++) {
    char ir[128];
    snprintf(name[k], sizeof name[k], "ixj_test_k%d", k);
    snprintf(ir, sizeof ir, "define i32 @ixj_test_k%d() {\n  ret i32 %d\n}\n", k, k);
    object_of(j, ir, &obj[k], &size[k]);
  }
  ixj__jit_llvm_destroy(j);
  const int linked[] = {47, MAX_LINKED}; /* where the map of allocations grows */
  for (int round = 0; round < TEARDOWNS; round++) {
    int n = linked[round % 2];
    assert_int_equal(ixj__jit_llvm_create(&j, &err), IXJ_OK);
    for (int k = 0; k < n; k++) {
      ixj_kernel_fn fn = NULL;
      if (ixj__jit_llvm_link(j, obj[k], size[k], name[k], &fn, &err) != IXJ_OK) fail_msg("%s", err.message);
      assert_int_equal(((int (*)(void))(uintptr_t)fn)(), k);
    }
    /* and a failed link among them (a second definition): its tracker goes at once */
    ixj_kernel_fn again = NULL;
    assert_int_equal(ixj__jit_llvm_link(j, obj[0], size[0], name[0], &again, &err), IXJ_ERR_BACKEND);
    ixj__jit_llvm_destroy(j);
  }
  for (int k = 0; k < MAX_LINKED; k++) free(obj[k]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_failed_link_leaves_nothing),
      cmocka_unit_test(test_teardown_with_kernels_linked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
