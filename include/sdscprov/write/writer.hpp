// Writing `debug_handle_` into an SDSC file's bytes: only that member changes, every other byte
// is kept, and the handle is laid out in the file's own style, as torch-spyre's json.dump(indent=2)
// would have written it in a torch-spyre file.
#pragma once

#include "sdscprov/core/json_error.hpp"
#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/sdsc/scan.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace sdscprov {

// How a file is laid out, read from the bytes around its op object.
struct FileStyle {
    bool pretty = true;               // one member/element per line (else everything on one line)
    std::string newline = "\n";       // "\r\n" for CRLF files
    std::string indent_unit = "  ";   // one nesting level: spaces or a tab, as the file has it
    std::string key_separator = ": "; // between a key and its value: ": ", " : " or ":"
    std::string item_separator =
        ","; // between members/elements on one line (compact files): "," or ", "
};

// The style of `bytes`, whose scan is `scan` (status ok). Falls back to torch-spyre's style
// (json.dump indent=2) for whatever the file does not show.
FileStyle detect_style(std::string_view bytes, const ScanResult& scan);

// `handle` as JSON text for a value at nesting `depth` (the root object is depth 0, the op object
// 1, the op's members 2): serialised with RapidJSON (strings as Python's ensure_ascii writes them:
// \uXXXX lowercase for non-ASCII and control characters), laid out in `style` with continuation
// lines indented for `depth`; no leading indentation and no trailing newline. Empty containers are
// written `[]`, like Python.
std::string render_handle(const DebugHandle& handle, const FileStyle& style, std::size_t depth);

// One edit of a file's bytes: [begin, end) replaced by `text`. Every change the writer makes is
// one such edit inside the op object, so the new bytes need not be assembled to be checked
// (splice_check.hpp) or written (the three pieces go to the file as they are).
struct Splice {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string text;
};

// The bytes with `splice` applied (into `out`, its capacity reused; `bytes` must not alias it).
std::string apply_splice(std::string_view bytes, const Splice& splice);
void apply_splice(std::string_view bytes, const Splice& splice, std::string& out);
// Whether applying `splice` changes the bytes.
bool changes(std::string_view bytes, const Splice& splice);

// The edits of set_handle, set_handle_null and remove_handle below, with the same contracts (an
// empty edit at 0 when there is nothing to change).
Splice handle_splice(std::string_view bytes, const ScanResult& scan, const DebugHandle& handle);
Splice null_splice(std::string_view bytes, const ScanResult& scan);
Splice remove_splice(std::string_view bytes, const ScanResult& scan);

// strip's edit: the op's handle as null_splice (or, `remove`, remove_splice) edits it, and every
// nested handle (ScanResult::nested_handles) set to null likewise (or removed with one adjoining
// separator; an object left with no member becomes `{}`, as json.dump writes it): what a
// json.load, the handles changed, then json.dump in the file's style would give, every other
// byte kept. One Splice from the first change to the last, the bytes between them as they were;
// when there is no nested handle, exactly null_splice's or remove_splice's edit, and an empty
// edit at 0 when nothing would change.
Splice strip_splice(std::string_view bytes, const ScanResult& scan, bool remove);

// The file's bytes with the op object's `debug_handle_` set to `handle`: inserted as the op
// object's first member when absent, its value replaced when present (null, populated or
// malformed). Every byte outside the member (or its value) is kept. Throws
// std::invalid_argument when `scan` is not an ok scan of `bytes` or a string of the handle is not
// valid UTF-8 (nothing Python could have written).
std::string set_handle(std::string_view bytes, const ScanResult& scan, const DebugHandle& handle);
// The same into `out` (its capacity is reused: annotate keeps one buffer per thread). `bytes`
// must not alias `out`.
void set_handle(std::string_view bytes, const ScanResult& scan, const DebugHandle& handle,
                std::string& out);

// The file's bytes with the handle's value replaced by `null` (strip), or the whole member and
// one adjoining separator removed (strip --remove). Unchanged bytes when there is no handle.
std::string set_handle_null(std::string_view bytes, const ScanResult& scan);
std::string remove_handle(std::string_view bytes, const ScanResult& scan);

} // namespace sdscprov
