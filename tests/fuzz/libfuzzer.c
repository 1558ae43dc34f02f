/* The libFuzzer entry point of one fuzz binary; the Makefile sets TH_FUZZ_ENTRY to its target. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return TH_FUZZ_ENTRY(data, size);
}
