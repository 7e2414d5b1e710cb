/* Internal: the generator's fingerprint, made at build time
 * (cmake/embed.cmake, into templates_embedded.c): 16 hex digits of a SHA-256
 * of the sources that write kernels (the templates, gen/, the JIT's compile
 * settings). The disk cache's key carries it (runtime/disk_cache.c). */
#ifndef IXJIT_GEN_FINGERPRINT_H
#define IXJIT_GEN_FINGERPRINT_H

extern const char ixj__generator_fingerprint[];

#endif
