#include "CLibFuzzer.h"

// Weak: defined by libFuzzer's runtime when the program is linked with -fsanitize=fuzzer, null otherwise.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size))
    __attribute__((weak));

int CLibFuzzerIsLinked(void) {
    return LLVMFuzzerRunDriver != 0;
}

int CLibFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
