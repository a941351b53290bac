// The innermost loops of reading and writing JSON strings, sixteen bytes a step: token logs are long strings
// of printable ASCII (a token is hundreds of bytes), and a byte-at-a-time or word-at-a-time scan
// of them was the largest part of reading a record. And one pass over an object of the common
// kind (a record line, a claims set), which declines every other text to the Swift cursor.
#ifndef CJSONSCAN_H
#define CJSONSCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The number of leading bytes of `bytes[0..<count]` that are printable ASCII other than the
/// quote and the backslash (0x20...0x7F but 0x22 and 0x5C): the offset of the first byte a JSON
/// string reader must look at, or `count` when there is none.
size_t cjsonscan_plain_ascii_prefix(const uint8_t *bytes, size_t count);

/// Writes `bytes[0..<count]` into `out` as the inside of a JSON string: a quote, a backslash
/// and the control bytes escaped (`\"`, `\\`, `\n`, `\r`, `\t`, else `\u00XX`), every other byte
/// as it is. Stops where the next byte or escape would not fit in `room`; sets `*read` to the
/// bytes consumed and returns the bytes written. One call a string: a writer that looked for
/// each run's end and wrote each escape itself spent a call and a capacity check a run.
size_t cjsonscan_escape(uint8_t *out, size_t room, const uint8_t *bytes, size_t count, size_t *read);

/// The most members `cjsonscan_object` reads in one object; an object with more is left to the
/// caller's full scanner.
#define CJSONSCAN_MAX_MEMBERS 16

/// The kinds of value, numbered as `JSONKind` numbers them.
enum {
    CJSONSCAN_KIND_NULL = 0,
    CJSONSCAN_KIND_BOOL = 1,
    CJSONSCAN_KIND_NUMBER = 2,
    CJSONSCAN_KIND_STRING = 3,
    CJSONSCAN_KIND_ARRAY = 4,
    CJSONSCAN_KIND_OBJECT = 5,
};

/// One member of an object `cjsonscan_object` read: offsets into its text.
typedef struct {
    /// The name between its quotes.
    int32_t name_start, name_end;
    /// The whole value, quotes and brackets included.
    int32_t value_start, value_end;
    /// The name's first eight bytes as a little-endian word, zero past its end.
    uint64_t name_word;
    /// The value when `has_integer`.
    int64_t integer;
    uint8_t kind;
    uint8_t has_integer;
} cjsonscan_member;

/// Reads the JSON object that is the whole of `bytes[0..<count]` (whitespace around it allowed)
/// when it is of the common kind: every name and string printable ASCII without escapes, every
/// number a non-negative integer of at most eighteen digits, at most `CJSONSCAN_MAX_MEMBERS`
/// members an object, no duplicate names, nesting within `max_depth` and eight levels.
///
/// Returns the number of members, written to `members` (room for `capacity`), each as the full
/// scanner would index it; or -1 for any other text, valid or not, which the caller's full
/// scanner then reads and, if it must, refuses with its own message. A text this scan accepts
/// is one the full scanner accepts with the same members: it never decides alone.
long cjsonscan_object(const uint8_t *bytes, size_t count, int max_depth, cjsonscan_member *members, size_t capacity);

/// One name of an object's layout (`JSONObjectShape`): where it is, quotes included, in the
/// layout's text, and the word its first eight bytes make.
typedef struct {
    int32_t start, quoted_count;
    /// The first eight bytes of the quoted name as a little-endian word, and the mask of those
    /// that are the name's.
    uint64_t head, head_mask;
    /// The word `cjsonscan_member.name_word` holds for the name.
    uint64_t word;
} cjsonscan_layout_name;

/// Reads the JSON object that is the whole of `bytes[0..<count]` when its members are named by
/// `layout` (`layout_count` names, their text in `names`), in that order and written byte for
/// byte as there, and every value is of the common kind `cjsonscan_object` reads (a nested
/// object or array one level below, within `max_depth`).
///
/// Returns `layout_count`, the members written to `members` (room for `layout_count`) as the
/// full scanner would index them; or -1 for any other text, which the caller then reads as
/// before. Names matched against a layout need no duplicate check of their own: the layout's
/// names are distinct.
long cjsonscan_layout(const uint8_t *bytes, size_t count, int max_depth, const uint8_t *names,
                      const cjsonscan_layout_name *layout, size_t layout_count, cjsonscan_member *members);

#ifdef __cplusplus
}
#endif

#endif
