// libFuzzer's driver, for the fuzz targets' entry points (see Sources/FuzzSupport/FuzzDriver.swift).
// `-sanitize=fuzzer` links libFuzzer's runtime, which defines `LLVMFuzzerRunDriver`; without it the
// reference stays weak and unresolved, and the fuzzers only replay the inputs they are given.
#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// Whether libFuzzer's runtime is linked in.
int CLibFuzzerIsLinked(void);

/// Hands over to libFuzzer (`LLVMFuzzerRunDriver`); only when ``CLibFuzzerIsLinked()``.
int CLibFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
