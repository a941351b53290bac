// A C interface to RE2 (libre2), for the Swift `pattern` matchers: linear-time matching whatever
// the input, as Envoy uses it. Only this target includes C++.
#ifndef CRE2_H
#define CRE2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled expression; immutable, safe to use from several threads at once.
typedef struct CRE2Regex CRE2Regex;

/// Compiles `pattern` (UTF-8, `length` bytes) with RE2's syntax, case-sensitive, `.` not matching
/// a newline, at most `max_memory` bytes for the compiled program. Returns NULL on failure and
/// writes RE2's reason, NUL-terminated and cut to `error_capacity`, into `error`.
CRE2Regex *cre2_compile(const char *pattern, size_t length, long long max_memory, char *error, size_t error_capacity);

/// 1 when `text` (UTF-8, `length` bytes) matches the whole expression, 0 when it does not.
int cre2_full_match(const CRE2Regex *regex, const char *text, size_t length);

/// The number of instructions of the compiled program, a measure of its cost.
int cre2_program_size(const CRE2Regex *regex);

void cre2_free(CRE2Regex *regex);

#ifdef __cplusplus
}
#endif

#endif
