// Reads stdin and writes it to stdout in upper case: a WASI command for an OON job.
// clang --target=wasm32-wasip1 --sysroot=$WASI_SDK/share/wasi-sysroot -O2 -o upper.wasm upper.c
#include <ctype.h>
#include <stdio.h>

int main(void) {
  int c;
  while ((c = getchar()) != EOF) putchar(toupper(c));
  return 0;
}
