# Turns text files into C string constants: cmake -DOUT=file.c -DINPUTS=a,b -P embed.cmake
# Each file f.ll becomes `const char ixj_template_f[]`.
string(REPLACE "," ";" INPUTS "${INPUTS}")
set(code "/* Generated from templates/ at build time; do not edit. */\n")
foreach(in ${INPUTS})
  get_filename_component(name ${in} NAME_WE)
  file(READ ${in} text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n\"\n  \"" text "${text}")
  string(APPEND code "const char ixj_template_${name}[] =\n  \"${text}\";\n")
endforeach()
file(WRITE ${OUT}.tmp "${code}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
