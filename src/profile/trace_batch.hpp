// The trace reader's batches (trace_pool.cpp cuts traceEvents into them) and the parser that turns
// one batch into event records, one per thread; and the On-Demand helpers both use. Internal to
// the library.
#pragma once

#include "profile/json_split.hpp"
#include "sdscprov/profile/trace.hpp"

#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov::trace_batch {

namespace od = simdjson::ondemand;

inline constexpr std::size_t padding = simdjson::SIMDJSON_PADDING;

inline bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Line and column at `offset`, moved forward over the text (position_at's rules: a column counts
// code points from the start of its line; a byte order mark is skipped by the caller).
struct TextCursor {
    std::uint64_t offset = 0;
    std::size_t line = 1;
    std::size_t col = 1;

    void advance(const char* p, std::size_t n) {
        std::size_t lines = json_split::count_byte(p, n, '\n');
        if (lines > 0) {
            line += lines;
            const auto* last = static_cast<const char*>(::memrchr(p, '\n', n));
            col = 1 + json_split::count_code_points(last + 1,
                                                    static_cast<std::size_t>(p + n - last - 1));
        } else {
            col += json_split::count_code_points(p, n);
        }
        offset += n;
    }
};

// "an array", "a string", ...: a JSON type's name in messages.
std::string_view type_name(od::json_type t);

// Visits every value below `v` so that On-Demand validates it (it validates only what it reads);
// `depth` is v's nesting. An error when the text is not JSON or nests too deep.
simdjson::error_code validate(od::value v, int depth);

// One batch of traceEvents: a copy of the text [seg, seg + size), then room for the ']' and
// simdjson's padding; what parsing it found.
struct Batch {
    std::uint64_t seg = 0;
    std::vector<char> bytes;
    std::size_t size = 0;
    // The parse text runs from `opener` (the array's '[' or the ',' before the first element) to
    // `close` (the array's ']' for the last batch, else one past the last element, where a ']'
    // is put). No opener: only whitespace before the array's ']', nothing to parse.
    std::optional<std::uint64_t> opener;
    std::uint64_t close = 0;
    bool final = false; // the last batch: `close` is the array's ']'
    std::vector<std::uint64_t> ends; // the splitter's element ends in the batch

    struct Record {
        TraceEvent event; // its debug_handles: handles[handles_begin, + handles_count)
        std::uint32_t handles_begin = 0;
        std::uint32_t handles_count = 0;
    };
    std::vector<Record> records;
    std::vector<std::string_view> handles;
    std::deque<std::string> strings; // unescaped strings (views into the batch point at them)
    std::string keys; // the records' variant keys, one after the other (derive())
    std::optional<std::pair<std::uint64_t, std::string>> error; // offset, message
    std::exception_ptr exception;
    int state = 0; // 0 waiting, 1 being parsed, 2 parsed (under the reader's mutex)

    void reset() {
        records.clear();
        handles.clear();
        strings.clear();
        keys.clear();
        ends.clear();
        error.reset();
        exception = nullptr;
        opener.reset();
        final = false;
        state = 0;
    }
};

// Parses batches into records, with an On-Demand parser of its own (one per thread).
class BatchParser {
public:
    BatchParser();
    ~BatchParser();
    BatchParser(const BatchParser&) = delete;
    BatchParser& operator=(const BatchParser&) = delete;
    void parse(Batch& b);
    // Frees what the parses so far allocated; a later parse allocates again.
    void release();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov::trace_batch
