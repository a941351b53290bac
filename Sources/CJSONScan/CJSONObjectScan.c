#include "CJSONScan.h"

#include <stdint.h>
#include <string.h>

#include "StringRun.h"

/// The deepest nesting this scan follows; a deeper text is left to the full scanner, so the
/// scan's state stays a few kilobytes on the stack whatever the caller's depth limit.
enum { deepest_followed = 8 };

/// A name read, for telling it apart from the other names of its object.
typedef struct {
    size_t start, count;
    uint64_t word;
} name_seen;

static inline size_t skip_whitespace(const uint8_t *bytes, size_t count, size_t index) {
    // Most texts have no whitespace between tokens: one comparison tells a structural byte.
    while (index < count && bytes[index] <= ' ') {
        const uint8_t byte = bytes[index];
        if (byte != ' ' && byte != '\t' && byte != '\n' && byte != '\r') break;
        index += 1;
    }
    return index;
}

/// The word `NameWord` makes of the `length` bytes at `start`: the first eight, zero past the end,
/// little-endian.
static inline uint64_t name_word(const uint8_t *bytes, size_t count, size_t start, size_t length) {
    uint64_t word = 0;
    if (start + 8 <= count) {
        memcpy(&word, bytes + start, 8);
        if (length < 8) word &= (((uint64_t)1) << (8 * length)) - 1;
    } else {
        memcpy(&word, bytes + start, length < 8 ? length : 8);
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    return word;
}

/// The end of the string whose opening quote is at `index`, past its closing quote, when it is
/// printable ASCII without escapes; 0 for any other string (escapes, UTF-8, control bytes, no end).
static inline __attribute__((always_inline)) size_t plain_string_end(const uint8_t *bytes, size_t count, size_t index) {
    const size_t end = index + 1 + unmarked_prefix(bytes + index + 1, count - index - 1, 1);
    return end < count && bytes[end] == '"' ? end + 1 : 0;
}

/// The end of the non-negative integer of at most eighteen digits, without leading zeros, at
/// `index` (what `JSONCursor.skipShortInteger` reads), with its value; 0 for any other number.
static inline __attribute__((always_inline)) size_t short_integer_end(const uint8_t *bytes, size_t count, size_t index, int64_t *value) {
    size_t end = index;
    int64_t read = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // Eight digits at once when there are (a numeric date has ten): each byte 0x30-0x39 exactly
    // when its high nibble is 3 and adding 6 keeps it so.
    if (index + 8 <= count) {
        uint64_t chunk;
        memcpy(&chunk, bytes + index, 8);
        if ((chunk & 0xF0F0F0F0F0F0F0F0ULL) == 0x3030303030303030ULL
            && ((chunk + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) == 0x3030303030303030ULL) {
            chunk -= 0x3030303030303030ULL;
            chunk = chunk * 10 + (chunk >> 8);
            chunk = (((chunk & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)))
                     + (((chunk >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
            read = (int64_t)chunk;
            end = index + 8;
        }
    }
#endif
    while (end < count && end - index < 18) {
        const uint8_t digit = (uint8_t)(bytes[end] - '0');
        if (digit >= 10) break;
        read = read * 10 + digit;
        end += 1;
    }
    if (end == index || (bytes[index] == '0' && end != index + 1)) return 0;
    if (end < count) {
        const uint8_t next = bytes[end];
        if ((next >= '0' && next <= '9') || next == '.' || next == 'e' || next == 'E') return 0;
    }
    *value = read;
    return end;
}

/// The end of the literal `text` of `length` bytes at `index`, or 0.
static inline size_t literal_end(const uint8_t *bytes, size_t count, size_t index, const char *text, size_t length) {
    return index + length <= count && memcmp(bytes + index, text, length) == 0 ? index + length : 0;
}

/// A scalar read: where it ends (0 for a value of another kind), its kind, and a number's value.
typedef struct {
    size_t end;
    int64_t integer;
    uint8_t kind;
} scalar_read;

/// The scalar at `index` — a string, a literal or a number of the common kind.
static inline __attribute__((always_inline)) scalar_read scalar_at(const uint8_t *bytes, size_t count, size_t index) {
    scalar_read read = { 0, 0, CJSONSCAN_KIND_NUMBER };
    switch (bytes[index]) {
    case '"':
        read.kind = CJSONSCAN_KIND_STRING;
        read.end = plain_string_end(bytes, count, index);
        break;
    case 't':
        read.kind = CJSONSCAN_KIND_BOOL;
        read.end = literal_end(bytes, count, index, "true", 4);
        break;
    case 'f':
        read.kind = CJSONSCAN_KIND_BOOL;
        read.end = literal_end(bytes, count, index, "false", 5);
        break;
    case 'n':
        read.kind = CJSONSCAN_KIND_NULL;
        read.end = literal_end(bytes, count, index, "null", 4);
        break;
    default:
        read.end = short_integer_end(bytes, count, index, &read.integer);
        break;
    }
    return read;
}

/// The container (object or array) that opens at `index`, read in one pass with an explicit stack
/// of open containers: every position in locals, so the bytes read (which may alias anything)
/// never force the state back to memory. `limit` is how many levels deep it may go, itself the
/// first; with `record`, the members of that first level are written to `members` (room for
/// `capacity`). Returns the number of members written, with `*container_end` just past the
/// container; or -1 for a container of any other kind. Inlined into each caller, where `record`
/// is a constant.
static inline __attribute__((always_inline)) long scan_container(const uint8_t *bytes, size_t count, size_t index, int limit, int record,
                           cjsonscan_member *members, size_t capacity, size_t *container_end) {
    if (limit > deepest_followed) limit = deepest_followed;
    name_seen seen[deepest_followed][CJSONSCAN_MAX_MEMBERS];
    size_t seen_count[deepest_followed];
    uint64_t seen_bits[deepest_followed];
    uint8_t is_object[deepest_followed];
    int depth = 0;
    size_t found = 0, end;
    cjsonscan_member member = { 0 };

open_container:
    // At a `{` or a `[`.
    if (depth >= limit) return -1;
    is_object[depth] = bytes[index] == '{';
    seen_count[depth] = 0;
    seen_bits[depth] = 0;
    depth += 1;
    index = skip_whitespace(bytes, count, index + 1);
    if (index < count && bytes[index] == (is_object[depth - 1] ? '}' : ']')) {
        index += 1;
        goto closed;
    }
    if (!is_object[depth - 1]) goto value;

name:
    index = skip_whitespace(bytes, count, index);
    if (index >= count || bytes[index] != '"') return -1;
    {
        const int level = depth - 1;
        if (seen_count[level] == CJSONSCAN_MAX_MEMBERS) return -1;
        if ((end = plain_string_end(bytes, count, index)) == 0) return -1;
        name_seen name = { index + 1, end - index - 2, 0 };
        name.word = name_word(bytes, count, name.start, name.count);
        // A bit for each name's word and length: a name whose bit is clear equals none before it,
        // and only one whose bit is set is compared with them.
        const uint64_t bit = (uint64_t)1 << (((name.word ^ name.count) * 0x9E3779B97F4A7C15ULL) >> 58);
        if (seen_bits[level] & bit) for (size_t position = 0; position < seen_count[level]; position++) {
            const name_seen *other = &seen[level][position];
            if (other->word == name.word && other->count == name.count
                && (name.count <= 8 || memcmp(bytes + other->start + 8, bytes + name.start + 8, name.count - 8) == 0)) {
                return -1;
            }
        }
        seen[level][seen_count[level]++] = name;
        seen_bits[level] |= bit;
        index = skip_whitespace(bytes, count, end);
        if (index >= count || bytes[index] != ':') return -1;
        index = skip_whitespace(bytes, count, index + 1);
        if (depth == 1 && record) {
            member.name_start = (int32_t)name.start;
            member.name_end = (int32_t)(name.start + name.count);
            member.name_word = name.word;
            member.value_start = (int32_t)index;
            member.has_integer = 0;
            member.integer = 0;
        }
    }

value:
    // At a value, whitespace skipped. A container's kind is the member's when it is the value of
    // an outer member; a scalar's is set below, only there too.
    if (index >= count) return -1;
    uint8_t kind;
    int64_t integer = 0;
    switch (bytes[index]) {
    case '{':
        if (depth == 1) member.kind = CJSONSCAN_KIND_OBJECT;
        goto open_container;
    case '[':
        if (depth == 1) member.kind = CJSONSCAN_KIND_ARRAY;
        goto open_container;
    default: {
        const scalar_read read = scalar_at(bytes, count, index);
        end = read.end;
        kind = read.kind;
        integer = read.integer;
        break;
    }
    }
    if (end == 0) return -1;
    if (depth == 1 && record) {
        member.kind = kind;
        member.has_integer = kind == CJSONSCAN_KIND_NUMBER;
        member.integer = integer;
    }
    index = end;

after_value:
    if (depth == 1 && record) {
        if (found >= capacity) return -1;
        member.value_end = (int32_t)index;
        members[found++] = member;
    }
    index = skip_whitespace(bytes, count, index);
    if (index >= count) return -1;
    if (bytes[index] == ',') {
        index += 1;
        if (is_object[depth - 1]) goto name;
        index = skip_whitespace(bytes, count, index);
        goto value;
    }
    if (bytes[index] != (is_object[depth - 1] ? '}' : ']')) return -1;
    index += 1;

closed:
    // Past the end of a container.
    depth -= 1;
    if (depth > 0) goto after_value;
    *container_end = index;
    return (long)found;
}

long cjsonscan_object(const uint8_t *bytes, size_t count, int max_depth, cjsonscan_member *members, size_t capacity) {
    if (bytes == NULL || count >= INT32_MAX) return -1;
    const size_t index = skip_whitespace(bytes, count, 0);
    size_t end;
    if (index >= count || bytes[index] != '{') return -1;
    const long found = scan_container(bytes, count, index, max_depth, 1, members, capacity, &end);
    return found >= 0 && skip_whitespace(bytes, count, end) == count ? found : -1;
}

/// Whether the quoted name `name` of the layout, whose text is `names`, is at `index`.
static inline int layout_name_at(const uint8_t *bytes, size_t count, size_t index, const uint8_t *names,
                                 const cjsonscan_layout_name *name) {
    const size_t quoted = (size_t)name->quoted_count;
    if (index + 8 <= count && quoted <= 8) {
        uint64_t word;
        memcpy(&word, bytes + index, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        return (word & name->head_mask) == name->head;
    }
    return index + quoted <= count && memcmp(bytes + index, names + name->start, quoted) == 0;
}

long cjsonscan_layout(const uint8_t *bytes, size_t count, int max_depth, const uint8_t *names,
                      const cjsonscan_layout_name *layout, size_t layout_count, cjsonscan_member *members) {
    if (bytes == NULL || count >= INT32_MAX || layout_count == 0 || layout_count > CJSONSCAN_MAX_MEMBERS || max_depth < 1) return -1;
    size_t index = skip_whitespace(bytes, count, 0), end;
    if (index >= count || bytes[index] != '{') return -1;
    index += 1;
    // Whitespace is looked for only where the expected byte is not: most texts have none.
    for (size_t position = 0; position < layout_count; position++) {
        const cjsonscan_layout_name *name = &layout[position];
        if (!layout_name_at(bytes, count, index, names, name)) {
            index = skip_whitespace(bytes, count, index);
            if (!layout_name_at(bytes, count, index, names, name)) return -1;
        }
        cjsonscan_member *member = &members[position];
        member->name_start = (int32_t)(index + 1);
        member->name_end = (int32_t)(index + (size_t)name->quoted_count - 1);
        member->name_word = name->word;
        index += (size_t)name->quoted_count;
        if (index < count && bytes[index] != ':') index = skip_whitespace(bytes, count, index);
        if (index >= count || bytes[index] != ':') return -1;
        index += 1;
        if (index < count && bytes[index] <= ' ') index = skip_whitespace(bytes, count, index);
        if (index >= count) return -1;
        int64_t integer = 0;
        uint8_t kind;
        if (bytes[index] == '{' || bytes[index] == '[') {
            // Nested values one level below the object, their own names told apart per object.
            kind = bytes[index] == '{' ? CJSONSCAN_KIND_OBJECT : CJSONSCAN_KIND_ARRAY;
            if (scan_container(bytes, count, index, max_depth - 1, 0, NULL, 0, &end) < 0) return -1;
        } else {
            const scalar_read read = scalar_at(bytes, count, index);
            end = read.end;
            kind = read.kind;
            integer = read.integer;
        }
        if (end == 0) return -1;
        member->value_start = (int32_t)index;
        member->value_end = (int32_t)end;
        member->kind = kind;
        member->has_integer = kind == CJSONSCAN_KIND_NUMBER;
        member->integer = integer;
        const uint8_t closing = position + 1 == layout_count ? '}' : ',';
        index = end;
        if (index < count && bytes[index] != closing) index = skip_whitespace(bytes, count, index);
        if (index >= count || bytes[index] != closing) return -1;
        index += 1;
    }
    return skip_whitespace(bytes, count, index) == count ? (long)layout_count : -1;
}
