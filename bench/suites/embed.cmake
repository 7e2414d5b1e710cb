# Turns a suite file into a C string: cmake -DIN=default.suite -DOUT=file.c -P embed.cmake
# (the built-in suite of `ixjit bench`, `const char bench_default_suite[]`).
file(READ ${IN} text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n  \"" text "${text}")
file(WRITE ${OUT}.tmp "/* Generated from bench/suites/default.suite at build time; do not edit. */\nextern const char bench_default_suite[];\nconst char bench_default_suite[] =\n  \"${text}\";\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
