#include "CJSONScan.h"

#include <string.h>

#include "StringRun.h"

size_t cjsonscan_plain_ascii_prefix(const uint8_t *bytes, size_t count) {
    return unmarked_prefix(bytes, count, 1);
}

size_t cjsonscan_escape(uint8_t *out, size_t room, const uint8_t *bytes, size_t count, size_t *read) {
    static const char hex[] = "0123456789abcdef";
    size_t index = 0, written = 0;
    while (index < count) {
        size_t run = unmarked_prefix(bytes + index, count - index, 0);
        if (run > room - written) run = room - written;
        memcpy(out + written, bytes + index, run);
        written += run;
        index += run;
        if (index == count || room - written < 6) break;
        const uint8_t byte = bytes[index];
        out[written++] = '\\';
        switch (byte) {
        case '"': case '\\': out[written++] = byte; break;
        case '\n': out[written++] = 'n'; break;
        case '\r': out[written++] = 'r'; break;
        case '\t': out[written++] = 't'; break;
        default:
            memcpy(out + written, "u00", 3);
            out[written + 3] = (uint8_t)hex[byte >> 4];
            out[written + 4] = (uint8_t)hex[byte & 0x0F];
            written += 5;
        }
        index += 1;
    }
    *read = index;
    return written;
}
