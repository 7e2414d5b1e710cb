# Turns text files into C string constants:
#   cmake -DOUT=file.c -DINPUTS=a,b -DFINGERPRINT=c,d -P embed.cmake
# Each file f.ll becomes `const char ixj__template_f[]`; f.cu becomes `ixj__template_cuda_f`.
# `const char ixj__generator_fingerprint[]` is 16 hex digits of the SHA-256 of
# the INPUTS and FINGERPRINT files' contents (the generator's sources): part of
# every disk-cache key, so that kernels one build's generator wrote are never
# loaded by a build whose generator writes them otherwise.
string(REPLACE "," ";" INPUTS "${INPUTS}")
string(REPLACE "," ";" FINGERPRINT "${FINGERPRINT}")
set(code "/* Generated from templates/ at build time; do not edit. */\n")
foreach(in ${INPUTS})
  get_filename_component(name ${in} NAME_WE)
  get_filename_component(ext ${in} EXT)
  if(ext STREQUAL ".cu")
    set(name "cuda_${name}")
  endif()
  file(READ ${in} text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n\"\n  \"" text "${text}")
  string(APPEND code "const char ixj__template_${name}[] =\n  \"${text}\";\n")
endforeach()
set(digests "")
foreach(in ${INPUTS} ${FINGERPRINT})
  file(SHA256 ${in} digest)
  string(APPEND digests "${digest}\n")
endforeach()
string(SHA256 fingerprint "${digests}")
string(SUBSTRING "${fingerprint}" 0 16 fingerprint)
string(APPEND code "const char ixj__generator_fingerprint[] = \"${fingerprint}\";\n")
file(WRITE ${OUT}.tmp "${code}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
