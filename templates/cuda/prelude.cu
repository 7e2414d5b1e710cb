typedef @@INDEX_TYPE@@ ixj_index;
struct __align__(@@ELEM_ALIGN@@) ixj_elem { @@ELEM_FIELDS@@ };
// The argument block; gen/emit_cuda.c packs it (ixj__cuda_pack_args) with the
// layout asserted here.
struct ixj_args {
  const void *ptr[@@OPERANDS@@];
  long long off[@@OPERANDS@@];
  unsigned long long value[2];
  unsigned div_magic[@@DIVISORS@@];
  unsigned div_shift[@@DIVISORS@@];
  unsigned div_value[@@DIVISORS@@];
};
// Every field is an array of 8- or 4-byte words in decreasing alignment, so
// these sizes pin every offset.
static_assert(sizeof(void *) == 8 && sizeof(long long) == 8 && sizeof(unsigned) == 4, "ixj_args: unexpected ABI");
static_assert(sizeof(ixj_args) == @@ARGS_SIZE@@, "ixj_args differs from gen/emit_cuda.c's layout");
