// The handle id: SHA-256 over a canonical JSON text, exactly as torch-spyre
// computes it, so that a handle written by sdscprov is indistinguishable from torch-spyre's.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"

#include <string>
#include <string_view>

namespace sdscprov {

// `s` as a JSON string literal (quotes included) the way Python's json.dumps(ensure_ascii=True)
// writes it: \" \\ \b \f \n \r \t, other bytes below 0x20, 0x7F and every non-ASCII code point as
// \uXXXX with lowercase hex (surrogate pairs above U+FFFF); '/' not escaped. Invalid UTF-8 is
// written as U+FFFD, as Python's surrogateescape-free decoding would refuse it anyway.
std::string python_json_string(std::string_view s);

// The text hashed for id version 2 (torch-spyre PR #3354): compact, keys sorted,
// {"aten_op":A,"fused_from":[F,...],"ir_chain":[I,...],"source":S,"version":2} with F the
// constituents' ids as JSON strings; transform_history is not hashed.
std::string id_v2_text(const DebugHandle& h);

// The text hashed for id version 1 (July 2026): "<file>:<line>:<col>|<aten_op or empty>|<ir_chain
// joined by ,>", the first part empty without a source, as plain UTF-8 (no quoting or escaping:
// torch-spyre hashes "|".join(parts).encode("utf-8")).
std::string id_v1_text(const DebugHandle& h);

// SHA-256 of `text`; the first 8 bytes big-endian, shifted right by one bit, in decimal.
std::string handle_id_of_text(std::string_view text);

inline std::string handle_id_v2(const DebugHandle& h) {
    return handle_id_of_text(id_v2_text(h));
}
inline std::string handle_id_v1(const DebugHandle& h) {
    return handle_id_of_text(id_v1_text(h));
}

enum class IdVersion { v2, v1, none };

// Which id version a stored handle's id matches (v2 tried first); `none` for ids whose content
// was changed after the compile (e.g. rewritten paths).
IdVersion verify_handle_id(const DebugHandle& h);

} // namespace sdscprov
