// The safety net of every write, at a fraction of a parse: a file's new bytes are its old bytes,
// which the scan fully validated, with one edit (a Splice) inside the op object. JSON's grammar
// is context-free, so the new document is valid, with the same op, exactly when the edit's text is
// valid where it stands and its boundaries join the untouched bytes around it. That is what is
// checked: the text alone (a small parse) and the few bytes that meet it, never the whole file.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/write/writer.hpp"

#include <memory>
#include <string_view>

namespace sdscprov {

// Checks edits of ok scans. Holds a small parser and its buffer, reused: one per thread.
class SpliceChecker {
public:
    SpliceChecker();
    ~SpliceChecker();
    SpliceChecker(const SpliceChecker&) = delete;
    SpliceChecker& operator=(const SpliceChecker&) = delete;

    // True when `bytes` (whose ok scan is `scan`) with `splice` applied is proved to scan ok, with
    // the same op key, a single `debug_handle_` in state `expected` and, when `handle` is given,
    // equal to it: what a full scan of the new bytes would find. Proved only for the edits the
    // writer makes (a handle's value replaced, a member inserted first in the op object, the
    // member removed with one separator) and from scans whose handle is not malformed; false
    // means "not proved" (a wrong edit, or one of another shape): the caller then scans the new
    // bytes in full, which decides. Never true where that scan would disagree (fuzz/checks.hpp
    // checks it on edits broken at random).
    bool proves(std::string_view bytes, const ScanResult& scan, const Splice& splice,
                HandleState expected, const DebugHandle* handle);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
