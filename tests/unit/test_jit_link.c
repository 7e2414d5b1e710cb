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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_failed_link_leaves_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
