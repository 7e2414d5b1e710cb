/* Internal: the one clock the runtime times compiles and launches with. */
#ifndef IXJIT_RUNTIME_CLOCK_H
#define IXJIT_RUNTIME_CLOCK_H

/* Milliseconds on the monotonic clock (an arbitrary origin): only differences
 * mean anything. Safe from any thread. */
double ixj__now_ms(void);

#endif
