/* Runs a libFuzzer target's entry point on given files and directories of
 * inputs without libFuzzer, so that a seed corpus (and the regressions kept in
 * it) is a plain test in every build, sanitizers or not. Exit status 0 when
 * every input ran (a failed check aborts), 1 when an input cannot be read.
 *   usage: replay (FILE | DIR)... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "replay: cannot open %s\n", path), 1;
  uint8_t *buf = NULL;
  size_t size = 0, cap = 0, n;
  do {
    if (size == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096))) return fclose(f), 1;
    n = fread(buf + size, 1, cap - size, f);
    size += n;
  } while (n);
  fclose(f);
  LLVMFuzzerTestOneInput(buf, size);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int bad = 0, ran = 0;
  for (int k = 1; k < argc; k++) {
    struct stat st;
    if (stat(argv[k], &st) != 0) return fprintf(stderr, "replay: no %s\n", argv[k]), 1;
    if (!S_ISDIR(st.st_mode)) {
      bad |= run_file(argv[k]), ran++;
      continue;
    }
    DIR *d = opendir(argv[k]);
    if (!d) return fprintf(stderr, "replay: cannot read %s\n", argv[k]), 1;
    for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[k], e->d_name);
      bad |= run_file(path), ran++;
    }
    closedir(d);
  }
  printf("replay: %d inputs\n", ran);
  return bad;
}
