// One SDSC file's op in JSON, as every report that lists files gives it (the scan report's
// files, explain's ops): its status, op key, index, opfunc, the op key's line:col where the
// report has it, the handle's state and the debug_handle_ itself. Internal to the library; `W`
// is a RapidJSON writer.
#pragma once

#include "handle/handle_json.hpp"
#include "sdscprov/sdsc/scan.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace sdscprov::json_out {

struct OpFacts {
    FileStatus status = FileStatus::unreadable;
    std::string_view op_key; // status ok
    std::optional<std::uint64_t> index;
    std::string_view opfunc;
    const TextPosition* op_key_pos = nullptr; // null: no "line" and "col" members
    HandleState handle_state = HandleState::absent;
    const DebugHandle* handle = nullptr; // when populated
};

// "status", "op", "index", "opfunc", ["line", "col",] "handle", "debug_handle": a file that is
// not a readable op (status other than ok) has null for each but its status; index and opfunc
// are null for an op key without an index.
template <class W> void op_members(W& w, const OpFacts& op) {
    bool ok = op.status == FileStatus::ok;
    auto text_or_null = [&](bool given, std::string_view text) {
        if (given) {
            string(w, text);
        } else {
            w.Null();
        }
    };
    key(w, "status");
    string(w, to_string(op.status));
    key(w, "op");
    text_or_null(ok, op.op_key);
    key(w, "index");
    if (ok && op.index) {
        w.Uint64(*op.index);
    } else {
        w.Null();
    }
    key(w, "opfunc");
    text_or_null(ok && op.index, op.opfunc);
    if (op.op_key_pos) {
        key(w, "line");
        position(w, ok ? op.op_key_pos->line : 0);
        key(w, "col");
        position(w, ok ? op.op_key_pos->col : 0);
    }
    key(w, "handle");
    text_or_null(ok, to_string(op.handle_state));
    key(w, "debug_handle");
    if (op.handle) {
        handle(w, *op.handle);
    } else {
        w.Null();
    }
}

} // namespace sdscprov::json_out
