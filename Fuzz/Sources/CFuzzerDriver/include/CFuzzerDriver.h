#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for executables whose `main` is not libFuzzer's own (SwiftPM's debug
/// builds rename an executable's main to TARGET_main).
int sightline_fuzz_main(int argc, char **argv, int (*test_one_input)(const uint8_t *data, size_t size));
