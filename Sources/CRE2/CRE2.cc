#include "CRE2.h"

#include <re2/re2.h>
#include <cstring>
#include <string>

struct CRE2Regex {
    RE2 *re2;
};

extern "C" CRE2Regex *cre2_compile(const char *pattern, size_t length, long long max_memory, char *error, size_t error_capacity) {
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingUTF8);
    options.set_log_errors(false);
    options.set_max_mem(max_memory);
    RE2 *re2 = new RE2(re2::StringPiece(pattern, length), options);
    if (!re2->ok()) {
        if (error != nullptr && error_capacity > 0) {
            std::strncpy(error, re2->error().c_str(), error_capacity - 1);
            error[error_capacity - 1] = '\0';
        }
        delete re2;
        return nullptr;
    }
    CRE2Regex *regex = new CRE2Regex;
    regex->re2 = re2;
    return regex;
}

extern "C" int cre2_full_match(const CRE2Regex *regex, const char *text, size_t length) {
    return RE2::FullMatch(re2::StringPiece(text, length), *regex->re2) ? 1 : 0;
}

extern "C" int cre2_program_size(const CRE2Regex *regex) {
    return regex->re2->ProgramSize();
}

extern "C" void cre2_free(CRE2Regex *regex) {
    if (regex == nullptr) return;
    delete regex->re2;
    delete regex;
}
