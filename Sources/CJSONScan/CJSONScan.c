#include "CJSONScan.h"

#include <string.h>

#include "StringRun.h"

size_t cjsonscan_plain_ascii_prefix(const uint8_t *bytes, size_t count) {
    return unmarked_prefix(bytes, count, 1);
}

size_t cjsonscan_unescaped_prefix(const uint8_t *bytes, size_t count) {
    return unmarked_prefix(bytes, count, 0);
}
