#include "sdscprov/sdsc/scan.hpp"

#include "core/read_file.hpp"
#include "sdsc/provenance_tape.hpp"
#include "sdscprov/core/json_error.hpp"
#include "sdscprov/core/json_layout.hpp"
#include "walk/batch_open.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace sdscprov {

std::string_view to_string(HandleState s) {
    switch (s) {
    case HandleState::absent:
        return "absent";
    case HandleState::null:
        return "null";
    case HandleState::populated:
        return "populated";
    case HandleState::malformed:
        return "malformed";
    }
    return "absent";
}

std::string_view to_string(FileStatus s) {
    switch (s) {
    case FileStatus::ok:
        return "ok";
    case FileStatus::unreadable:
        return "unreadable";
    case FileStatus::invalid_json:
        return "invalid-json";
    case FileStatus::not_sdsc:
        return "not-sdsc";
    }
    return "ok";
}

std::string_view to_string(ProvenanceMember m) {
    static constexpr std::string_view names[] = {"stack_trace", "original_aten", "from_node",
                                                 "origins",     "origin_node",   "traceback",
                                                 "provenance",  "debug_handle_"};
    return names[static_cast<std::size_t>(m)];
}

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// ---- Byte layout of a document already validated by simdjson --------------------------------

// i at an object's '{'; returns the offset of the key of member `index` (its opening quote).
std::size_t member_key_offset(std::string_view b, std::size_t open, std::size_t index) {
    std::size_t i = json_skip_ws(b, open + 1);
    for (std::size_t m = 0; m < index; ++m) {
        i = json_string_end(b, i);                   // key
        i = json_skip_ws(b, json_skip_ws(b, i) + 1); // ':' and the value's start
        i = json_skip_ws(b, json_value_end(b, i));   // value, then ','
        i = json_skip_ws(b, i + 1);
    }
    return i;
}

// ---- Handles nested below the op's members ----------------------------------------------------

// Whether the raw text of a key (between its quotes, escapes undone) is `name`, an ASCII name:
// "debug\u005fhandle_" is that member for every JSON reader, so it is for us.
bool key_is(std::string_view raw, std::string_view name) {
    if (raw.find('\\') == std::string_view::npos) {
        return raw == name;
    }
    std::size_t n = 0;
    for (std::size_t i = 0; i < raw.size(); ++i, ++n) {
        char c = raw[i];
        if (c == '\\' && i + 1 < raw.size()) {
            char e = raw[++i];
            if (e == 'u') {
                if (i + 4 >= raw.size()) {
                    return false;
                }
                unsigned code = 0;
                for (std::size_t k = 1; k <= 4; ++k) {
                    char h = raw[i + k];
                    code = code * 16 + static_cast<unsigned>(h <= '9'   ? h - '0'
                                                             : h <= 'F' ? h - 'A' + 10
                                                                        : h - 'a' + 10);
                }
                i += 4;
                if (code >= 0x80) {
                    return false; // the name is ASCII
                }
                c = static_cast<char>(code);
            } else {
                static constexpr std::string_view from = "\"\\/bfnrt";
                static constexpr std::string_view to = "\"\\/\b\f\n\r\t";
                c = to[from.find(e)]; // valid JSON: one of them
            }
        }
        if (n >= name.size() || name[n] != c) {
            return false;
        }
    }
    return n == name.size();
}

// Populated as the coverage column counts it, from the bytes of a value [at, end).
bool populated_text(std::string_view b, std::size_t at, std::size_t end) {
    switch (b[at]) {
    case 'n':
        return false;
    case '"':
        return end - at > 2;
    case '{':
    case '[':
        return b[json_skip_ws(b, at + 1)] != (b[at] == '{' ? '}' : ']');
    default:
        return true;
    }
}

// Every outermost debug_handle_ member below the op object's own members, in text order (one
// inside another goes with it; the op's own debug_handle_ members are not walked into). `doc` is
// a valid document, `op_open` its op object's '{'. Iterative: any nesting depth.
std::vector<NestedHandle> nested_handles_of(std::string_view doc, std::size_t op_open) {
    std::vector<NestedHandle> found;
    struct Open {
        std::size_t at; // the '{' or '['
        bool object;
    };
    std::vector<Open> open{{op_open, true}};
    std::string_view op_member; // the op's member being walked
    std::size_t i = op_open + 1;
    while (!open.empty()) {
        i = json_skip_ws(doc, i);
        const char c = doc[i];
        if (c == '}' || c == ']') {
            open.pop_back();
            ++i;
            continue;
        }
        if (c == ',') {
            ++i;
            continue;
        }
        if (open.back().object) {
            const std::size_t key_end = json_string_end(doc, i);
            const std::size_t value = json_member_value(doc, i);
            if (key_is(doc.substr(i + 1, key_end - i - 2), "debug_handle_")) {
                const std::size_t end = json_value_end(doc, value);
                if (open.size() > 1) {
                    NestedHandle h;
                    h.member = {i, end};
                    h.value = value;
                    h.object_open = open.back().at;
                    h.null = doc[value] == 'n';
                    h.populated = populated_text(doc, value, end);
                    h.op_member.assign(op_member);
                    found.push_back(std::move(h));
                }
                i = end;
                continue;
            }
            if (open.size() == 1) {
                op_member = doc.substr(i + 1, key_end - i - 2);
            }
            i = value;
        }
        if (doc[i] == '{' || doc[i] == '[') {
            open.push_back({i, doc[i] == '{'});
            ++i;
        } else {
            i = json_value_end(doc, i);
        }
    }
    return found;
}

// "<N>_<opfunc>": N decimal, opfunc [A-Za-z0-9_]+.
bool split_op_key(std::string_view key, std::uint64_t& n, std::string_view& opfunc) {
    std::size_t digits = 0;
    while (digits < key.size() && key[digits] >= '0' && key[digits] <= '9') {
        ++digits;
    }
    if (digits == 0 || digits > 19 || digits + 1 >= key.size() || key[digits] != '_') {
        return false;
    }
    opfunc = key.substr(digits + 1);
    for (char c : opfunc) {
        bool ok =
            (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!ok) {
            return false;
        }
    }
    n = 0;
    for (std::size_t i = 0; i < digits; ++i) {
        n = n * 10 + static_cast<std::uint64_t>(key[i] - '0');
    }
    return true;
}

std::string in_quotes(std::string_view s) {
    std::string out = "'";
    out.append(s.substr(0, 80));
    if (s.size() > 80) {
        out.append("...");
    }
    out.push_back('\'');
    return out;
}

} // namespace

FileStamp file_stamp(const struct stat& st) {
    return FileStamp{static_cast<std::uint64_t>(st.st_dev),
                     static_cast<std::uint64_t>(st.st_ino),
                     static_cast<std::uint64_t>(st.st_size),
                     static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                     static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec,
                     static_cast<std::uint32_t>(st.st_mode),
                     static_cast<std::uint32_t>(st.st_uid),
                     static_cast<std::uint32_t>(st.st_gid),
                     static_cast<std::uint32_t>(st.st_nlink)};
}

// Where a file is opened: by its name in the directory the walk held for it (never through a
// link put in its place since, when it was none), else by its path.
struct OpenPlace {
    int dir_fd;
    const char* name;
    int flags;
};

OpenPlace open_place(const SdscFile& file) {
    if (!file.dir) {
        return {AT_FDCWD, file.path.c_str(), 0};
    }
    return {file.dir->get(), file.path.c_str() + (file.path.size() - file_name_of(file.path).size()),
            file.symlink ? 0 : O_NOFOLLOW};
}

struct Scanner::Impl {
    ScanOptions options;
    simdjson::dom::parser parser;
    // The file's bytes, then SIMDJSON_PADDING bytes. Not a std::vector: growing one writes every
    // byte of its new size, so the slack kept for the next file was resident too (half a large
    // file's size); new char[] touches nothing, and only the bytes read become resident.
    std::unique_ptr<char[]> buffer;
    std::size_t buffer_size = 0;
    // Read buffer size when the file's size is not known beforehand (SDSC files: 15-50 KB).
    static constexpr std::size_t min_read_buffer = 64 * 1024;
    std::size_t length = 0;

    // Opening ahead (prefetch()): the files in the order they will be asked for, the next one,
    // and the part of them the opener holds open now.
    std::unique_ptr<BatchOpener> opener;
    std::vector<const SdscFile*> ahead;
    std::size_t ahead_next = 0;
    std::size_t group_begin = 0;
    std::size_t group_end = 0;
    int read_fd = -1; // descriptor(): the last file's, left open by the opener

    void stop_ahead() {
        read_fd = -1;
        ahead.clear();
        ahead_next = group_begin = group_end = 0;
        if (opener != nullptr) {
            opener->close_all();
        }
    }

    // The open descriptor of `file` when it is the next file opened ahead, else -1. The opener
    // closes it with the next group.
    int take_ahead(const SdscFile& file) {
        if (ahead_next >= ahead.size()) {
            return -1;
        }
        if (ahead[ahead_next] != &file) {
            stop_ahead(); // asked out of order: opened the ordinary way from now on
            return -1;
        }
        if (ahead_next >= group_end) {
            group_begin = ahead_next;
            group_end = std::min(ahead.size(), group_begin + BatchOpener::slots);
            std::array<BatchOpener::Request, BatchOpener::slots> requests{};
            for (std::size_t i = group_begin; i < group_end; ++i) {
                // Whatever the walk saw: opened with the ordinary open's flags, a fifo or a
                // device is then found out by the same fstat (read() stats what the walk did
                // not see as regular).
                const OpenPlace place = open_place(*ahead[i]);
                requests[i - group_begin] = {place.dir_fd,
                                             ahead[i]->unreachable.empty() ? place.name : nullptr,
                                             place.flags};
            }
            opener->open(std::span<const BatchOpener::Request>(requests.data(),
                                                               group_end - group_begin));
        }
        return opener->fd(ahead_next++ - group_begin);
    }

    void reserve(std::size_t n) {
        if (buffer_size < n + simdjson::SIMDJSON_PADDING) {
            const std::size_t size = n + n / 2 + simdjson::SIMDJSON_PADDING;
            std::unique_ptr<char[]> grown(new char[size]);
            if (length > 0) {
                std::memcpy(grown.get(), buffer.get(), length);
            }
            buffer = std::move(grown);
            buffer_size = size;
        }
    }

    // The padding after the bytes: simdjson reads it but does not care what it holds; zeros keep
    // its reads of it defined.
    void clear_padding() { std::memset(buffer.get() + length, 0, simdjson::SIMDJSON_PADDING); }

    // Reads the whole file into `buffer`, through `opened` when it is a descriptor of it (left
    // open), else opening it. Returns false with a problem on failure.
    bool read(const SdscFile& file, int opened, FileStamp& stamp, Problem& problem) {
        const std::string& path = file.path;
        if (!file.unreachable.empty()) {
            problem = make_problem(path, {}, ProblemCode::io_error, file.unreachable);
            return false;
        }
        const OpenPlace place = open_place(file);
        // O_NONBLOCK: opening a fifo named sdsc_0.json must not hang the scan.
        int fd = opened >= 0 ? opened
                             : ::openat(place.dir_fd, place.name,
                                        O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | place.flags);
        if (fd < 0) {
            int err = errno;
            if (err == ELOOP && (place.flags & O_NOFOLLOW) != 0) {
                problem = make_problem(path, {}, ProblemCode::io_error,
                                       "not read: a symbolic link now stands where the walk found "
                                       "a file (put in its place during the run): not followed, "
                                       "skipped");
                return false;
            }
            // A unix socket cannot be opened at all (ENXIO): say what it is, as for a fifo.
            struct stat st {};
            if (err == ENXIO && ::fstatat(place.dir_fd, place.name, &st, 0) == 0 &&
                !S_ISREG(st.st_mode)) {
                problem = make_problem(path, {}, ProblemCode::not_regular_file,
                                       detail::not_regular_message(st.st_mode));
                return false;
            }
            problem = make_problem(path, {}, ProblemCode::io_error,
                                   std::string("cannot open: ") + std::strerror(err));
            return false;
        }
        // A file the walk saw as regular needs no fstat unless its stamp is wanted; should it
        // have been replaced since, reading it (or a failed read) shows what it is now.
        bool stat_first = options.fstat_before_read || !file.regular;
        bool ok = !stat_first || check_regular(fd, path, stamp, problem);
        if (ok && !read_all(fd, path, stat_first, stamp, problem)) {
            if (!stat_first && problem.code == ProblemCode::io_error) {
                check_regular(fd, path, stamp, problem); // a clearer message when it is not
            }
            ok = false;
        }
        if (opened < 0) {
            ::close(fd);
        }
        if (ok) {
            stamp.size = length;
        }
        return ok;
    }

    // fstat: the file's stamp, and a problem when it is not a regular file or too large.
    bool check_regular(int fd, const std::string& path, FileStamp& stamp, Problem& problem) {
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            problem = make_problem(path, {}, ProblemCode::io_error,
                                   std::string("cannot stat: ") + std::strerror(errno));
            return false;
        }
        stamp = file_stamp(st);
        if (!S_ISREG(st.st_mode)) {
            problem = make_problem(path, {}, ProblemCode::not_regular_file,
                                   detail::not_regular_message(st.st_mode));
            return false;
        }
        auto size = static_cast<std::uint64_t>(st.st_size);
        if (size > options.max_file_size) {
            problem =
                make_problem(path, {}, ProblemCode::file_too_large,
                             "file is " + std::to_string(size) + " bytes, more than " +
                                 "--max-file-size (" + std::to_string(options.max_file_size) + ")");
            return false;
        }
        return true;
    }

    // Reads from `fd` to end of file into `buffer`. `stat_done`: check_regular() already filled
    // `stamp`; if not, it runs as soon as the file turns out larger than the buffer, so that a
    // huge file is refused by its size instead of being read.
    bool read_all(int fd, const std::string& path, bool stat_done, FileStamp& stamp,
                  Problem& problem) {
        // Read until end of file: the file may have grown since fstat. A regular file returns a
        // short read only at its end, so asking for one byte more than its size ends the loop
        // without a second read call in the usual case.
        length = 0;
        reserve(stat_done ? static_cast<std::size_t>(stamp.size) + 1
                          : std::max(buffer_size, min_read_buffer) - simdjson::SIMDJSON_PADDING);
        for (;;) {
            std::size_t room = buffer_size - simdjson::SIMDJSON_PADDING - length;
            if (room == 0) {
                if (!stat_done) {
                    if (!check_regular(fd, path, stamp, problem)) {
                        return false;
                    }
                    stat_done = true;
                }
                if (length >= options.max_file_size) {
                    problem = make_problem(path, {}, ProblemCode::file_too_large,
                                           "file grew past --max-file-size while being read");
                    return false;
                }
                reserve(std::max(length * 2, static_cast<std::size_t>(stamp.size) + 1));
                room = buffer_size - simdjson::SIMDJSON_PADDING - length;
            }
            ssize_t got = ::read(fd, buffer.get() + length, room);
            if (got < 0) {
                if (errno == EINTR) {
                    continue;
                }
                problem = make_problem(path, {}, ProblemCode::io_error,
                                       std::string("cannot read: ") + std::strerror(errno));
                return false;
            }
            length += static_cast<std::size_t>(got);
            if (static_cast<std::size_t>(got) < room) {
                // Read without fstat into a buffer larger than the limit: the limit still holds.
                if (length > options.max_file_size) {
                    problem = make_problem(path, {}, ProblemCode::file_too_large,
                                           "file is " + std::to_string(length) +
                                               " bytes, more than --max-file-size (" +
                                               std::to_string(options.max_file_size) + ")");
                    return false;
                }
                clear_padding();
                return true;
            }
        }
    }

    ScanResult scan(const SdscFile& file, std::string_view bytes);
};

namespace {

// Problems reported one by one for a file's nested handles; the rest are counted in one more.
constexpr std::size_t nested_handles_reported = 16;

// The nested handles of an ok scan `r` of `bytes`, and a nested-handle problem for each.
void report_nested_handles(ScanResult& r, std::string_view bytes) {
    const std::string_view doc = bytes.substr(r.bom);
    r.nested_handles = nested_handles_of(doc, r.op_object_open - r.bom);
    // Positions in text order, each counted on from the last: a compact file is one long line.
    std::size_t at = 0;
    TextPosition pos = position_at(bytes, 0);
    for (NestedHandle& h : r.nested_handles) {
        h.member.begin += r.bom;
        h.member.end += r.bom;
        h.value += r.bom;
        h.object_open += r.bom;
        for (; at < h.member.begin; ++at) {
            if (bytes[at] == '\n') {
                ++pos.line;
                pos.col = 1;
            } else if ((static_cast<unsigned char>(bytes[at]) & 0xC0) != 0x80 && at >= r.bom) {
                ++pos.col;
            }
        }
        h.pos = pos;
    }
    const std::size_t n = r.nested_handles.size();
    for (std::size_t k = 0; k < n && k < nested_handles_reported; ++k) {
        const NestedHandle& h = r.nested_handles[k];
        r.problems.push_back(make_problem(
            r.file.path, h.pos, ProblemCode::nested_handle,
            "a debug_handle_ nested in the op's member " + in_quotes(h.op_member) + " (" +
                (h.populated ? "populated" : h.null ? "null" : "empty") +
                "): not the op's own handle, which is the one counted here; strip sets it to "
                "null too, strip --remove removes it"));
    }
    if (n > nested_handles_reported) {
        const NestedHandle& h = r.nested_handles[nested_handles_reported];
        r.problems.push_back(make_problem(
            r.file.path, h.pos, ProblemCode::nested_handle,
            "and " + std::to_string(n - nested_handles_reported) +
                " more nested debug_handle_ members from here on (" + std::to_string(n) +
                " in all)"));
    }
}

// The problem of a document simdjson cannot parse, where the error is.
void report_parse_error(ScanResult& r, std::string_view bytes, std::string_view doc,
                        simdjson::error_code error) {
    r.status = FileStatus::invalid_json;
    if (auto located = locate_json_error(doc)) {
        r.problems.push_back(make_problem(r.file.path, position_at(bytes, r.bom + located->offset),
                                          ProblemCode::parse_error, located->message));
    } else {
        r.problems.push_back(
            make_problem(r.file.path, position_at(bytes, r.bom), ProblemCode::parse_error,
                         std::string("invalid JSON: ") + simdjson::error_message(error)));
    }
}

// A problem for each part of the op key "<N>_<opfunc>" that the file's name contradicts.
void check_name_agrees(ScanResult& r, std::string_view key, std::uint64_t n,
                       std::string_view opfunc) {
    const SdscName& name = r.file.name;
    if (name.index && *name.index != n) {
        r.problems.push_back(make_problem(r.file.path, r.op_key_pos, ProblemCode::index_mismatch,
                                          "op " + in_quotes(key) + " has index " +
                                              std::to_string(n) + " but the file name says " +
                                              std::to_string(*name.index)));
    }
    if (!name.opfunc.empty() && name.opfunc != opfunc) {
        r.problems.push_back(make_problem(r.file.path, r.op_key_pos, ProblemCode::opfunc_mismatch,
                                          "op " + in_quotes(key) + " has opfunc " +
                                              in_quotes(opfunc) + " but the file name says " +
                                              in_quotes(name.opfunc)));
    }
}

// The op object's handle: its occurrences counted, the first one's position among the members,
// its span and state, and its value (returned; meaningful when `occurrences` is 1).
element read_op_handle(ScanResult& r, std::string_view bytes, std::string_view doc,
                       simdjson::dom::object op, std::size_t& occurrences) {
    std::size_t index = 0;
    element handle_value;
    for (auto [member_key, member_value] : op) {
        if (member_key == "debug_handle_") {
            if (occurrences++ == 0) {
                r.handle_member_index = index;
                handle_value = member_value;
            }
        }
        ++index;
    }
    if (occurrences > 0) {
        std::size_t key_at =
            member_key_offset(doc, r.op_object_open - r.bom, r.handle_member_index);
        std::size_t value_at = json_member_value(doc, key_at);
        r.handle_member = ByteSpan{r.bom + key_at, r.bom + json_value_end(doc, value_at)};
        r.handle_pos = position_at(bytes, r.bom + key_at);
        if (occurrences > 1) {
            r.handle_state = HandleState::malformed;
            r.problems.push_back(
                make_problem(r.file.path, r.handle_pos, ProblemCode::duplicate_handle,
                             "debug_handle_ appears " + std::to_string(occurrences) +
                                 " times in the op object"));
        } else if (handle_value.is_null()) {
            r.handle_state = HandleState::null;
        } else {
            auto read = read_debug_handle(handle_value);
            if (read.handle) {
                r.handle_state = HandleState::populated;
                r.handle = std::move(read.handle);
            } else {
                r.handle_state = HandleState::malformed;
                r.problems.push_back(make_problem(r.file.path, position_at(bytes, r.bom + value_at),
                                                  ProblemCode::malformed_handle,
                                                  "debug_handle_ is not of the documented shape: " +
                                                      read.malformed_reason));
            }
        }
    }
    return handle_value;
}

} // namespace

ScanResult Scanner::Impl::scan(const SdscFile& file, std::string_view bytes) {
    ScanResult r;
    r.file = file;
    const std::string& path = file.path;
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") {
        r.bom = 3; // simdjson 3.0.1 does not skip a BOM; the bytes after it are the document
    }
    std::string_view doc = bytes.substr(r.bom);
    element root;
    auto error = parser.parse(doc.data(), doc.size(), false).get(root);
    if (error != simdjson::SUCCESS) {
        report_parse_error(r, bytes, doc, error);
        return r;
    }

    // An SDSC document: exactly one top-level member "<N>_<opfunc>" holding an object.
    std::size_t root_open = json_skip_ws(doc, 0);
    auto not_sdsc = [&](std::size_t offset, std::string why) {
        r.status = FileStatus::not_sdsc;
        r.problems.push_back(make_problem(path, position_at(bytes, r.bom + offset),
                                          ProblemCode::not_sdsc,
                                          "not an SDSC document: " + std::move(why)));
        return r;
    };
    simdjson::dom::object top;
    if (root.get(top) != simdjson::SUCCESS) {
        return not_sdsc(root_open, "the top level is not an object");
    }
    std::size_t members = top.size();
    if (members != 1) {
        if (members == 0) {
            return not_sdsc(root_open, "the top-level object is empty");
        }
        return not_sdsc(member_key_offset(doc, root_open, 1),
                        "the top-level object has " + std::to_string(members) +
                            " members, an SDSC file has exactly one (\"<N>_<opfunc>\")");
    }
    auto [key, op_value] = *top.begin();
    r.op_key_offset = r.bom + member_key_offset(doc, root_open, 0);
    std::uint64_t n = 0;
    std::string_view opfunc;
    bool key_ok = split_op_key(key, n, opfunc);
    if (!key_ok && file.name.naming != FileNaming::execute) {
        return not_sdsc(r.op_key_offset - r.bom,
                        "the top-level key " + in_quotes(key) + " is not \"<N>_<opfunc>\"");
    }
    simdjson::dom::object op;
    if (op_value.get(op) != simdjson::SUCCESS) {
        return not_sdsc(json_member_value(doc, r.op_key_offset - r.bom),
                        "the op " + in_quotes(key) + " does not hold an object");
    }
    r.status = FileStatus::ok;
    r.op_key.assign(key);
    if (key_ok) {
        r.index = n;
        r.opfunc.assign(opfunc);
    }
    r.op_object_open = r.bom + json_member_value(doc, r.op_key_offset - r.bom);
    r.op_key_pos = position_at(bytes, r.op_key_offset);

    if (key_ok) {
        check_name_agrees(r, key, n, opfunc);
    }

    std::size_t occurrences = 0;
    element handle_value = read_op_handle(r, bytes, doc, op, occurrences);
    std::size_t handle_keys = 0;
    r.provenance = provenance_of_tape(parser.doc, occurrences,
                                      occurrences == 1 && is_populated(handle_value), handle_keys);
    if (handle_keys > occurrences) {
        report_nested_handles(r, bytes);
    }
    return r;
}

Scanner::Scanner(ScanOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
}

Scanner::~Scanner() = default;

void Scanner::prefetch(std::vector<const SdscFile*> files) {
    impl_->stop_ahead();
    if (impl_->opener == nullptr) {
        impl_->opener = std::make_unique<BatchOpener>();
    }
    if (impl_->opener->available()) {
        impl_->ahead = std::move(files);
    }
}

ScanResult Scanner::scan_file(const SdscFile& file) {
    FileStamp stamp;
    Problem problem;
    impl_->read_fd = -1;
    const int opened = impl_->take_ahead(file);
    if (!impl_->read(file, opened, stamp, problem)) {
        ScanResult r;
        r.file = file;
        r.stamp = stamp;
        r.status = FileStatus::unreadable;
        r.problems.push_back(std::move(problem));
        return r;
    }
    impl_->read_fd = opened;
    ScanResult r = impl_->scan(file, bytes());
    r.stamp = stamp;
    return r;
}

ScanResult Scanner::scan_bytes(const SdscFile& file, std::string_view bytes) {
    impl_->length = 0; // nothing of the last file's bytes to keep
    impl_->reserve(bytes.size());
    if (!bytes.empty()) {
        std::memcpy(impl_->buffer.get(), bytes.data(), bytes.size());
    }
    impl_->length = bytes.size();
    impl_->clear_padding();
    return impl_->scan(file, this->bytes());
}

std::string_view Scanner::bytes() const {
    return {impl_->buffer.get(), impl_->length};
}

int Scanner::descriptor() const {
    return impl_->read_fd;
}

const ScanOptions& Scanner::options() const {
    return impl_->options;
}

} // namespace sdscprov
