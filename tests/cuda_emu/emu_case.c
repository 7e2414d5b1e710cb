/* Cases of the emulator test (emu_case.h). */
#define _GNU_SOURCE
#include "emu_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xxhash.h>

#include "emit_cuda.h"
#include "emu_runtime.h"

#define PLANNING_REGION ((uintptr_t)1 << 40) /* page-aligned, like every real region */

static const char *numpy_dir;

void ixj__emu_numpy_dir(const char *dir) {
  numpy_dir = dir;
  mkdir(dir, 0700);
}

int ixj__emu_parse_case(const char *line, int lineno, emu_case *c, char *why, size_t why_size) {
  char *field[4 + IXJ_MAX_CAT_INPUTS], *save, *copy = strdup(line);
  int n = 0;
  memset(c, 0, sizeof *c);
  c->line = lineno;
  c->kernel = -1;
  c->text = strdup(line);
  if (!copy || !c->text) return -1;
  c->text[strcspn(c->text, "\n")] = 0;
  for (char *t = strtok_r(copy, "\t\n", &save); t && n < (int)(sizeof field / sizeof *field); t = strtok_r(NULL, "\t\n", &save))
    field[n++] = t;
  int st = 0;
  if (n < 3) {
    snprintf(why, why_size, "line %d: too few fields", lineno);
    st = -1;
  } else {
    c->op = !strcmp(field[0], "copy") ? IXJ_OP_COPY : !strcmp(field[0], "fill") ? IXJ_OP_FILL : IXJ_OP_CAT;
    c->elem_size = (size_t)atoi(field[1]);
    int first = c->op == IXJ_OP_CAT ? 3 : 2;
    c->axis = c->op == IXJ_OP_CAT ? atoi(field[2]) : 0;
    c->num_srcs = n - first - 1;
    c->num_ops = 1 + c->num_srcs;
    for (int k = 0; k < c->num_ops && st == 0; k++) {
      ixj_error err;
      if (ixj_ixfun_parse(field[first + k], &c->f[k], &err) != IXJ_OK) {
        snprintf(why, why_size, "line %d: %s", lineno, err.message);
        st = -1;
        break;
      }
      ixj_offset_range r = ixj_ixfun_offset_range(c->f[k]);
      c->span[k] = r.empty ? 0 : (size_t)(r.max + 1) * c->elem_size;
    }
    /* the fill value: a pattern of its own per line */
    for (size_t b = 0; b < c->elem_size; b++) c->value[b] = (unsigned char)(0x5A + 37 * b + (size_t)lineno);
  }
  free(copy);
  return st;
}

void ixj__emu_case_dispose(emu_case *c) {
  for (int k = 0; k < c->num_ops; k++) ixj_ixfun_free(c->f[k]);
  free(c->text);
  free(c->signature);
  memset(c, 0, sizeof *c);
}

int ixj__emu_read_cases(const char *path, int sample, emu_case **cases, int *n, char *why, size_t why_size) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(why, why_size, "cannot read %s", path);
    return -1;
  }
  static char line[1 << 16];
  int total = 0;
  while (fgets(line, sizeof line, f)) total += line[0] != '\n';
  rewind(f);
  int want = sample > 0 && sample < total ? sample : total, lineno = 0, k = 0, st = 0;
  *cases = calloc((size_t)want + 64, sizeof **cases);
  if (!*cases) {
    fclose(f);
    return -1;
  }
  while (st == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '\n') continue;
    /* line j is taken when it starts a new bucket of total / want lines */
    int j = lineno - 1;
    if ((long)j * want / total == (long)(j + 1) * want / total) continue;
    emu_case *c = &(*cases)[k];
    st = ixj__emu_parse_case(line, lineno, c, why, why_size);
    /* a quarter of the cases start off a 16-byte boundary (scalar plans) */
    size_t natural = c->elem_size < 8 ? c->elem_size : 8;
    for (int o = 0; o < c->num_ops; o++) c->misalign[o] = k % 4 == 2 ? (size_t)(1 + (k / 4 + o) % 3) * natural % 16 : 0;
    k++;
  }
  fclose(f);
  *n = k;
  return st;
}

ixj_status ixj__emu_plan(const emu_case *c, const uintptr_t *addr, ixj_plan *p, ixj_error *err) {
  const void *ptrs[EMU_MAX_OPS + 1];
  for (int o = 0; o < c->num_ops; o++) ptrs[o] = (const void *)addr[o];
  if (c->op == IXJ_OP_FILL) ptrs[1] = c->value; /* as runtime/dispatch.c passes it */
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  for (int k = 0; k < c->num_srcs; k++) srcs[k] = c->f[1 + k];
  plan_request req = {.op = c->op,
                      .elem_size = c->elem_size,
                      .dst = c->f[0],
                      .num_srcs = c->num_srcs,
                      .srcs = srcs,
                      .cat_axis = c->axis,
                      .pointers = ptrs,
                      .gpu = true};
  return ixj__plan_build(&req, p, err);
}

static char *signature_of(const ixj_plan *p) {
  size_t n = ixj__plan_signature(p, "cuda:sm_90", NULL, 0);
  char *s = malloc(n + 1);
  if (s) ixj__plan_signature(p, "cuda:sm_90", s, n + 1);
  return s;
}

/* Where each buffer's data will start, for planning. */
static void planning_addresses(const emu_case *c, uintptr_t *addr) {
  for (int o = 0; o < c->num_ops; o++) addr[o] = ixj__emu_buffer_place(PLANNING_REGION, c->span[o], c->misalign[o]);
}

int ixj__emu_prepare(emu_case *cases, int n, emu_kernel **kernels, int *nkernels, char *why, size_t why_size) {
  ixj_plan *p = malloc(sizeof *p);
  int cap = n > 0 ? n : 1, count = 0, st = 0;
  emu_kernel *k = calloc((size_t)cap, sizeof *k);
  /* signature hash -> kernel, open addressing */
  int slots = 2 * cap + 1, *table = malloc((size_t)slots * sizeof *table);
  if (!p || !k || !table) {
    snprintf(why, why_size, "out of memory");
    free(p);
    free(k);
    free(table);
    return -1;
  }
  for (int s = 0; s < slots; s++) table[s] = -1;
  for (int i = 0; i < n && st == 0; i++) {
    emu_case *c = &cases[i];
    uintptr_t addr[EMU_MAX_OPS];
    ixj_error err;
    planning_addresses(c, addr);
    if (ixj__emu_plan(c, addr, p, &err) != IXJ_OK) {
      snprintf(why, why_size, "line %d: plan: %s", c->line, err.message);
      st = -1;
      break;
    }
    c->strategy = p->strategy;
    c->vector_elems = p->vector_elems;
    c->index_bits = p->index_bits;
    c->signature = signature_of(p);
    if (p->strategy == PLAN_EMPTY || p->strategy == PLAN_MEMCPY) continue;
    uint64_t h = XXH3_64bits_withSeed(c->signature, strlen(c->signature), (uint64_t)c->division);
    int s = (int)(h % (uint64_t)slots);
    while (table[s] >= 0 &&
           (strcmp(cases[table[s]].signature, c->signature) || cases[table[s]].division != c->division))
      s = (s + 1) % slots;
    if (table[s] >= 0) {
      c->kernel = cases[table[s]].kernel;
      c->divisors = cases[table[s]].divisors;
      continue;
    }
    table[s] = i;
    emu_kernel *kk = &k[count];
    snprintf(kk->name, sizeof kk->name, "ixj_emu_k%d", count);
    ixj_status est = c->division == CUDA_DIV_RUNTIME
                         ? ixj__emit_cuda_runtime(p, kk->name, &kk->source, &c->divisors, &err)
                         : ixj__emit_cuda(p, kk->name, c->signature, c->division, &kk->source, &err);
    if (est != IXJ_OK) {
      snprintf(why, why_size, "line %d: emit: %s", c->line, err.message);
      st = -1;
      break;
    }
    c->kernel = count++;
  }
  free(p);
  free(table);
  *kernels = k;
  *nkernels = count;
  return st;
}

static void dump(const emu_case *c, const char *what, const void *data, size_t size) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%06d.%s", numpy_dir, c->id, what);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
}

/* The first differing byte of the destination's pages, reported. */
static void report_difference(const emu_case *c, const emu_buffer *d, const unsigned char *ref) {
  size_t b = 0;
  while (d->region[b] == ref[b]) b++;
  long long at = (long long)((d->region + b) - d->data);
  long long elem = at >= 0 ? at / (long long)c->elem_size : -1;
  size_t e0 = b - (size_t)(at - elem * (long long)c->elem_size);
  static const char *const styles[] = {"ixjit division", "plain division", "runtime magic"};
  printf("FAIL line %d (%s, %s, vector %d, %d-bit, chunks of %llu blocks): byte %lld from the view's start differs "
         "(element %lld of %zu bytes; got",
         c->line, ixj__plan_strategy_name(c->strategy), styles[c->division], c->vector_elems, c->index_bits,
         (unsigned long long)c->chunk_blocks, at, elem, c->span[0]);
  for (size_t k = 0; k < c->elem_size && at >= 0 && e0 + k < d->region_size; k++) printf(" %02x", d->region[e0 + k]);
  printf(", want");
  for (size_t k = 0; k < c->elem_size && at >= 0 && e0 + k < d->region_size; k++) printf(" %02x", ref[e0 + k]);
  printf(")\n  case: %s\n", c->text);
}

int ixj__emu_run_case(emu_case *c, const emu_kernel *kernels, emu_buffer *buf) {
  uint64_t seed = c->seed * 0x2545F4914F6CDD1Du + 1;
  int result = 2;
  memset(buf, 0, EMU_MAX_OPS * sizeof *buf);
  ixj_plan *p = malloc(sizeof *p);
  unsigned char *ref = NULL;
  for (int o = 0; o < c->num_ops; o++) {
    size_t extra = o == 1 ? c->shift_src : 0;
    if (ixj__emu_buffer_alloc(&buf[o], c->span[o] + extra, c->misalign[o], &seed) || (o && ixj__emu_buffer_readonly(&buf[o]))) {
      printf("FAIL line %d: cannot map the buffers\n", c->line);
      goto done;
    }
  }
  ref = malloc(buf[0].region_size);
  if (!p || !ref) goto done;
  memcpy(ref, buf[0].region, buf[0].region_size);
  if (c->numpy) dump(c, "before", buf[0].data, c->span[0]);

  /* the reference interpreter, on a copy of the destination's pages */
  ixj_operand rd = {ref + (buf[0].data - buf[0].region), c->span[0], c->f[0]}, s[IXJ_MAX_CAT_INPUTS];
  const unsigned char *src_data[IXJ_MAX_CAT_INPUTS];
  for (int k = 0; k < c->num_srcs; k++) {
    src_data[k] = buf[1 + k].data + (k == 0 ? c->shift_src : 0);
    s[k] = (ixj_operand){(void *)src_data[k], c->span[1 + k], c->f[1 + k]};
    if (c->numpy) {
      char what[16];
      snprintf(what, sizeof what, "src%d", k);
      dump(c, what, src_data[k], c->span[1 + k]);
    }
  }
  ixj_error err;
  ixj_status st = c->op == IXJ_OP_COPY ? ixj_reference_copy(&rd, &s[0], c->elem_size, &err)
                  : c->op == IXJ_OP_FILL ? ixj_reference_fill(&rd, c->value, c->elem_size, &err)
                                         : ixj_reference_cat(&rd, c->axis, c->num_srcs, s, c->elem_size, &err);
  if (st != IXJ_OK) {
    printf("FAIL line %d: the reference refused it: %s\n", c->line, err.message);
    goto done;
  }

  /* the plan again, at the real addresses: it must be the one compiled */
  uintptr_t addr[EMU_MAX_OPS];
  for (int o = 0; o < c->num_ops; o++) addr[o] = (uintptr_t)buf[o].data;
  if (ixj__emu_plan(c, addr, p, &err) != IXJ_OK) {
    printf("FAIL line %d: plan: %s\n", c->line, err.message);
    goto done;
  }
  if (!c->shift_src) { /* the self-test moves a source to break the plan's alignment proof */
    char *sig = signature_of(p);
    int same = sig && !strcmp(sig, c->signature);
    free(sig);
    if (!same) {
      printf("FAIL line %d: the buffers' addresses changed the plan\n", c->line);
      goto done;
    }
  }

  /* the launch, as runtime/backend_cuda.c makes it */
  const void *ptrs[EMU_MAX_OPS];
  ptrs[0] = buf[0].data;
  for (int k = 0; k < c->num_srcs; k++) ptrs[1 + k] = src_data[k];
  if (p->strategy == PLAN_MEMCPY) { /* cuMemcpyDtoD of the rows */
    memmove(buf[0].data + p->operand[0].runtime_offset * (int64_t)c->elem_size,
            src_data[0] + p->operand[1].runtime_offset * (int64_t)c->elem_size, (size_t)p->count * c->elem_size);
  } else if (p->strategy != PLAN_EMPTY) {
    const emu_kernel *k = &kernels[c->kernel];
    unsigned char args[CUDA_ARGS_MAX_BYTES];
    size_t used;
    char why[512];
    const cuda_divisors *divisors = c->division == CUDA_DIV_RUNTIME ? &c->divisors : NULL;
    if (ixj__cuda_pack_args(p, ptrs, c->op == IXJ_OP_FILL ? c->value : NULL, divisors, args, sizeof args, &used, &err) !=
        IXJ_OK) {
      printf("FAIL line %d: pack: %s\n", c->line, err.message);
      goto done;
    }
    if (used != k->args_size) {
      printf("FAIL line %d: %zu argument bytes packed, the kernel's block has %zu\n", c->line, used, k->args_size);
      goto done;
    }
    emu_config cfg = {c->seed, c->chunk_blocks, k->launch_bound};
    if (ixj__emu_run_plan(p, k->fn, args, &cfg, why, sizeof why)) {
      printf("FAIL line %d: %s\n  case: %s\n", c->line, why, c->text);
      goto done;
    }
  }
  if (c->numpy) dump(c, "after", buf[0].data, c->span[0]);
  if (c->numpy) dump(c, "value", c->value, c->elem_size);
  if (c->numpy) dump(c, "case", c->text, strlen(c->text));
  if (memcmp(buf[0].region, ref, buf[0].region_size)) {
    report_difference(c, &buf[0], ref);
    result = 1;
  } else {
    result = 0;
  }
done:
  for (int o = 0; o < c->num_ops; o++) ixj__emu_buffer_free(&buf[o]);
  free(ref);
  free(p);
  return result;
}
