typedef @@INDEX_TYPE@@ ixj_index;
struct __align__(@@ELEM_ALIGN@@) ixj_elem { @@ELEM_FIELDS@@ };
struct ixj_args {
  const void *ptr[@@OPERANDS@@];
  long long off[@@OPERANDS@@];
  unsigned long long value[2];
  unsigned div_magic[@@DIVISORS@@];
  unsigned div_shift[@@DIVISORS@@];
  unsigned div_value[@@DIVISORS@@];
};
