// The trace reader. The document's outer object is read byte by byte (it is small: a few
// members beside traceEvents); traceEvents is cut by json_split into batches of whole elements.
// Each batch is a copy of its text, parsed with simdjson On-Demand as the array `[e1, ..., en]`
// (the ',' before its first element replaced by '[' and a ']' put after its last), by worker
// threads or the reading thread, whichever is free; its events are handed over in order by the
// reading thread, which also keeps the line:col count. On-Demand validates only what is read:
// every value is visited, the members profile uses read, the others validated (validate()).
// Other members of the document are copied and validated whole. Errors are located again by
// locate_json_error for the exact byte and a plain message.
#include "sdscprov/profile/trace.hpp"

#include "profile/json_split.hpp"
#include "profile/trace_batch.hpp"
#include "profile/trace_source.hpp"
#include "sdscprov/core/json_error.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <simdjson.h>
#include <thread>

namespace sdscprov {

using namespace trace_batch;

struct TraceReader::Impl {
    TraceReaderOptions options;
    std::unique_ptr<trace_source::ByteSource> source;
    TraceHandler* handler = nullptr;

    // The window: bytes [base, base + len) of the text, with room for simdjson's padding.
    std::vector<char> buf;
    std::size_t len = 0;
    std::uint64_t base = 0;
    std::uint64_t keep_from = 0; // bytes before this may be dropped when more are read
    bool eof = false;

    // Inside traceEvents the window drops bytes without passing them on: the batches holding
    // them pass them on, in order, with their events.
    bool emit_on_drop = true;

    // The line:col count, at the bytes passed on so far, and where the batch being handed over
    // starts (positions are asked from there on).
    TextCursor cursor;
    TextCursor checkpoint;
    const Batch* delivering = nullptr;

    od::parser outer_parser;
    std::vector<char> scratch; // a member value other than traceEvents, copied to be validated
    json_split::Splitter splitter;
    std::vector<std::uint64_t> ends;
    TraceStats stats;
    std::string path; // for the error's Problem
    std::optional<Problem> error;
    std::uint64_t error_offset = 0;
    std::optional<std::pair<ProblemCode, std::string>> source_error; // code, message

    // Parsing: batches wait in `queue` for a worker (or this thread, while it waits for the next
    // batch to hand over); `inflight` holds them in text order until their events are handed
    // over. At most max_inflight at once: memory stays bounded however fast the input comes.
    unsigned threads = 1;
    std::size_t max_inflight = 3;
    BatchParser own_parser;
    std::mutex mutex;
    std::condition_variable work_ready;
    std::condition_variable parsed;
    std::deque<Batch*> queue;
    std::deque<std::unique_ptr<Batch>> inflight;
    std::vector<std::unique_ptr<Batch>> spare;
    std::vector<std::thread> workers;
    bool stopping = false;

    explicit Impl(TraceReaderOptions o) : options(o) {
        options.chunk_bytes = std::max<std::size_t>(options.chunk_bytes, 1);
        options.max_value_bytes = std::max<std::size_t>(options.max_value_bytes, 64);
        threads = options.threads != 0 ? options.threads
                                       : std::clamp(std::thread::hardware_concurrency(), 1U, 8U);
        max_inflight = 2 * std::size_t{threads} + 1;
    }

    ~Impl() { stop_workers(); }

    char* at(std::uint64_t offset) { return buf.data() + (offset - base); }
    std::uint64_t end_offset() const { return base + len; }

    // ---- errors and positions ---------------------------------------------------------------

    // Where `offset` is: in the batch being handed over, else in the window.
    TextPosition position(std::uint64_t offset) {
        const char* held = delivering ? delivering->bytes.data() : buf.data();
        std::uint64_t held_base = delivering ? delivering->seg : base;
        std::uint64_t held_end = delivering ? delivering->seg + delivering->size : end_offset();
        offset = std::min(offset, held_end);
        if (offset < cursor.offset) {
            if (checkpoint.offset > offset || checkpoint.offset < held_base) {
                return {};
            }
            cursor = checkpoint;
        }
        if (cursor.offset < held_base) {
            return {}; // bytes not held any more (never asked for)
        }
        cursor.advance(held + (cursor.offset - held_base),
                       static_cast<std::size_t>(offset - cursor.offset));
        return {cursor.line, cursor.col};
    }

    bool fail(std::uint64_t offset, ProblemCode code, std::string message) {
        if (source_error && offset >= end_offset()) {
            // What looks cut short at the end is the input that could not be read on.
            code = source_error->first;
            message = source_error->second;
        }
        if (!error) {
            error = make_problem(path, position(offset), code, std::move(message));
            error_offset = offset;
        }
        return false;
    }

    // The first syntax error in `text` (whose first byte is at `offset`, or is a '[' put in place
    // of the byte there), as a parse-error; false when the text itself is valid.
    bool fail_located(std::string_view text, std::uint64_t offset) {
        auto located = locate_json_error(text);
        if (!located) {
            return false;
        }
        return fail(offset + located->offset, ProblemCode::parse_error, located->message);
    }

    // ---- the window -------------------------------------------------------------------------

    // Drops the bytes before `upto` (passing them on first, outside traceEvents).
    void drop(std::uint64_t upto) {
        auto n = static_cast<std::size_t>(upto - base);
        if (n == 0) {
            return;
        }
        if (emit_on_drop) {
            if (cursor.offset < upto) {
                cursor.advance(at(cursor.offset), static_cast<std::size_t>(upto - cursor.offset));
            }
            if (checkpoint.offset < upto) {
                checkpoint = cursor;
            }
            handler->bytes(std::string_view(buf.data(), n));
        }
        std::memmove(buf.data(), buf.data() + n, len - n);
        len -= n;
        base = upto;
    }

    // Reads more bytes; false at the end of the input or on an error (then `error` is set).
    bool fill() {
        if (eof || error) {
            return false;
        }
        if (keep_from > base) {
            drop(keep_from);
        }
        std::size_t want = options.chunk_bytes;
        if (buf.size() < len + want + padding + 1) {
            buf.resize(std::max(buf.size() * 2, len + want + padding + 1));
        }
        auto got = source->read(buf.data() + len, want);
        if (got < 0) {
            // Read as the end of the text: an error in what was read comes first, else this one
            // (fail() puts it at the end).
            source_error.emplace(source->gzip() ? ProblemCode::bad_gzip : ProblemCode::io_error,
                                 source->error());
            eof = true;
            return false;
        }
        if (got == 0) {
            eof = true;
            return false;
        }
        len += static_cast<std::size_t>(got);
        stats.bytes += static_cast<std::uint64_t>(got);
        return true;
    }

    // Makes the byte at `offset` available; false at the end of the input.
    bool have(std::uint64_t offset) {
        while (offset >= end_offset()) {
            if (!fill()) {
                return false;
            }
        }
        return true;
    }

    // The byte at `offset`, or -1 at the end of the input.
    int peek(std::uint64_t offset) {
        return have(offset) ? static_cast<unsigned char>(*at(offset)) : -1;
    }

    std::uint64_t skip_ws(std::uint64_t pos) {
        while (true) {
            int c = peek(pos);
            if (c < 0 || !is_ws(static_cast<char>(c))) {
                return pos;
            }
            ++pos;
            keep_from = pos;
        }
    }

    // ---- the outer object -------------------------------------------------------------------

    // The end (one past) of the value starting at `pos`, found without parsing it. nullopt on an
    // error (set) or at the end of the input.
    std::optional<std::uint64_t> value_end(std::uint64_t pos) {
        int c = peek(pos);
        if (c == '{' || c == '[') {
            json_split::Splitter s;
            std::vector<std::uint64_t> found;
            std::uint64_t scanned = pos;
            while (found.empty()) {
                if (scanned - pos > options.max_value_bytes) {
                    fail(pos, ProblemCode::value_too_large,
                         "a member value larger than " + std::to_string(options.max_value_bytes) +
                             " bytes: not read");
                    return std::nullopt;
                }
                std::uint64_t avail = end_offset() - scanned;
                if (avail >= json_split::block) {
                    std::size_t blocks = static_cast<std::size_t>(avail / json_split::block);
                    s.scan(at(scanned), blocks, scanned, found);
                    scanned += blocks * json_split::block;
                } else if (!fill()) {
                    if (error) {
                        return std::nullopt;
                    }
                    s.scan_bytes(at(scanned), static_cast<std::size_t>(avail), scanned, found);
                    scanned += avail;
                    if (found.empty()) {
                        return std::nullopt;
                    }
                }
            }
            return found.front() + 1;
        }
        if (c == '"') {
            for (std::uint64_t p = pos + 1;; ++p) {
                int d = peek(p);
                if (d < 0) {
                    return std::nullopt;
                }
                if (d == '\\') {
                    ++p;
                } else if (d == '"') {
                    return p + 1;
                }
                if (p - pos > options.max_value_bytes) {
                    fail(pos, ProblemCode::value_too_large,
                         "a string longer than " + std::to_string(options.max_value_bytes) +
                             " bytes: not read");
                    return std::nullopt;
                }
            }
        }
        std::uint64_t p = pos;
        for (int d = peek(p); d >= 0; d = peek(++p)) {
            if (is_ws(static_cast<char>(d)) || d == ',' || d == '}' || d == ']' || d == ':' ||
                d == '{' || d == '[' || d == '"') {
                break;
            }
            if (p - pos > 4096) {
                break; // no valid number or literal is this long: the parser says what it is
            }
        }
        if (p == pos) {
            return p + 1;
        }
        return p;
    }

    // Validates the value in [pos, end) on its own (as the array `[value]`) and gives its type.
    std::optional<od::json_type> validated(std::uint64_t pos, std::uint64_t end,
                                           std::string* string_value = nullptr) {
        auto n = static_cast<std::size_t>(end - pos);
        scratch.resize(n + 2 + padding);
        scratch[0] = '[';
        std::memcpy(scratch.data() + 1, at(pos), n);
        scratch[n + 1] = ']';
        std::string_view text(scratch.data(), n + 2);
        od::document doc;
        od::array array;
        od::json_type type{};
        bool ok =
            !outer_parser.iterate(simdjson::padded_string_view(text, scratch.size())).get(doc) &&
            !doc.get_array().get(array);
        std::size_t count = 0;
        if (ok) {
            for (auto item : array) {
                od::value v;
                if (item.get(v) || v.type().get(type)) {
                    ok = false;
                    break;
                }
                if (string_value && type == od::json_type::string) {
                    std::string_view s;
                    if (v.get_string().get(s)) {
                        ok = false;
                        break;
                    }
                    string_value->assign(s);
                } else if (validate(v, 2)) {
                    ok = false;
                    break;
                }
                ++count;
            }
        }
        if (ok && count == 1) {
            return type;
        }
        // The '[' stands for no byte of the text: an error found there is at pos.
        if (!fail_located(text, pos - 1)) {
            fail(pos, ProblemCode::parse_error, "invalid JSON value");
        }
        if (error && error_offset < pos) {
            error->pos = position(pos);
            error_offset = pos;
        }
        return std::nullopt;
    }

    // distributedInfo.rank of the value validated() last copied into `scratch` (as `[value]`).
    std::optional<std::int64_t> distributed_rank() {
        od::document doc;
        std::int64_t rank = 0;
        std::string_view text(scratch.data(), scratch.size() - padding);
        if (outer_parser.iterate(simdjson::padded_string_view(text, scratch.size())).get(doc)) {
            return std::nullopt;
        }
        for (auto item : doc.get_array()) {
            od::object info;
            if (item.get_object().get(info) || info["rank"].get_int64().get(rank)) {
                return std::nullopt;
            }
            return rank;
        }
        return std::nullopt;
    }

    bool truncated(std::uint64_t at_offset, std::string_view what) {
        return fail(at_offset, ProblemCode::parse_error,
                    "unexpected end of input " + std::string(what) + " (truncated trace?)");
    }

    // The document is not an object: what it is instead (once it is known to be valid JSON).
    bool not_an_object(std::uint64_t pos) {
        auto end = value_end(pos);
        if (!end) {
            return error ? false : truncated(end_offset(), "in the document");
        }
        auto type = validated(pos, *end);
        if (!type) {
            return false;
        }
        return fail(pos, ProblemCode::not_a_trace,
                    "the document is " + std::string(type_name(*type)) +
                        ", not an object with a traceEvents array");
    }

    // A member of the trace's outer object from its value at `pos`: traceEvents read event by
    // event, the others validated (distributedInfo's rank kept). Where its value ends, or nullopt
    // with the error set.
    std::optional<std::uint64_t> member_value(std::uint64_t pos, const std::string& key,
                                              std::uint64_t key_pos, bool& seen_events) {
        if (key == "traceEvents") {
            if (seen_events) {
                fail(key_pos, ProblemCode::not_a_trace, "traceEvents is given twice");
                return std::nullopt;
            }
            seen_events = true;
            if (peek(pos) != '[') {
                auto end = value_end(pos);
                if (!end) {
                    if (!error) {
                        truncated(end_offset(), "in traceEvents");
                    }
                    return std::nullopt;
                }
                auto type = validated(pos, *end);
                if (type) {
                    fail(pos, ProblemCode::not_a_trace,
                         "traceEvents is " + std::string(type_name(*type)) + ", not an array");
                }
                return std::nullopt;
            }
            return read_events(pos);
        } else {
            auto end = value_end(pos);
            if (!end) {
                if (!error) {
                    truncated(end_offset(), "in a member value");
                }
                return std::nullopt;
            }
            if (!validated(pos, *end)) {
                return std::nullopt;
            }
            if (key == "distributedInfo") {
                stats.distributed_rank = distributed_rank();
            }
            return *end;
        }
    }

    bool read_document() {
        std::uint64_t pos = 0;
        if (have(2) && std::memcmp(at(0), "\xEF\xBB\xBF", 3) == 0) {
            pos = 3; // a byte order mark: no column of its own, and not JSON
            cursor.offset = 3;
            checkpoint = cursor;
        }
        pos = skip_ws(pos);
        int c = peek(pos);
        if (c < 0) {
            return error ? false
                         : fail(pos, ProblemCode::parse_error, "empty document: not a trace");
        }
        if (c == '[') {
            stats.bare_array = true;
            auto after = read_events(pos);
            if (!after) {
                return false;
            }
            return finish_document(*after);
        }
        if (c != '{') {
            return not_an_object(pos);
        }
        bool seen_events = false;
        pos = skip_ws(pos + 1);
        if (peek(pos) == '}') {
            return fail(pos, ProblemCode::not_a_trace, "the document has no traceEvents member");
        }
        while (true) {
            int q = peek(pos);
            if (q < 0) {
                return error ? false : truncated(pos, "in the trace's outer object");
            }
            if (q != '"') {
                return fail(pos, ProblemCode::parse_error, "expected a member name (a string)");
            }
            auto key_end = value_end(pos);
            if (!key_end) {
                return error ? false : truncated(end_offset(), "in a member name");
            }
            std::string key;
            if (!validated(pos, *key_end, &key)) {
                return false;
            }
            std::uint64_t key_pos = pos;
            pos = skip_ws(*key_end);
            if (peek(pos) != ':') {
                if (peek(pos) < 0) {
                    return error ? false : truncated(pos, "after a member name");
                }
                return fail(pos, ProblemCode::parse_error, "expected ':' after the member name");
            }
            pos = skip_ws(pos + 1);
            if (peek(pos) < 0) {
                return error ? false : truncated(pos, "before a member value");
            }
            auto after_value = member_value(pos, key, key_pos, seen_events);
            if (!after_value) {
                return false;
            }
            pos = *after_value;
            keep_from = pos;
            pos = skip_ws(pos);
            int d = peek(pos);
            if (d == ',') {
                pos = skip_ws(pos + 1);
                continue;
            }
            if (d == '}') {
                break;
            }
            if (d < 0) {
                return error ? false : truncated(pos, "in the trace's outer object");
            }
            return fail(pos, ProblemCode::parse_error, "expected ',' or '}' after a member");
        }
        if (!seen_events) {
            return fail(pos, ProblemCode::not_a_trace, "the document has no traceEvents member");
        }
        return finish_document(pos + 1);
    }

    bool finish_document(std::uint64_t pos) {
        keep_from = pos;
        pos = skip_ws(pos);
        if (peek(pos) >= 0) {
            return fail(pos, ProblemCode::parse_error, "content after the end of the document");
        }
        if (error) {
            return false;
        }
        if (source_error) {
            return fail(end_offset(), source_error->first, source_error->second);
        }
        drop(end_offset());
        return true;
    }

    // ---- traceEvents ------------------------------------------------------------------------

    // The first byte after `seg` that is not whitespace, before `limit`.
    std::optional<std::uint64_t> next_token(std::uint64_t seg, std::uint64_t limit) {
        for (std::uint64_t p = seg; p < limit; ++p) {
            if (!is_ws(*at(p))) {
                return p;
            }
        }
        return std::nullopt;
    }

    // Reads the array whose '[' is at `open`; the offset after its ']'. Batches start at `seg`:
    // the array's '[' for the first, else the byte after the previous batch's last element.
    std::optional<std::uint64_t> read_events(std::uint64_t open) {
        drop(open); // what comes before the array is passed on now, the rest by the batches
        emit_on_drop = false;
        splitter = {};
        ends.clear();
        std::uint64_t scanned = open + 1;
        std::uint64_t seg = open;
        bool first = true;
        std::optional<std::uint64_t> array_end;
        const std::size_t batch_bytes = std::max<std::size_t>(options.chunk_bytes / 2, 4096);
        while (true) {
            std::uint64_t avail = end_offset() - scanned;
            if (!array_end && avail >= json_split::block) {
                std::size_t blocks = static_cast<std::size_t>(avail / json_split::block);
                array_end = splitter.scan(at(scanned), blocks, scanned, ends);
                scanned += blocks * json_split::block;
            }
            if (array_end) {
                if (!make_batch(seg, *array_end, first, true) || !drain()) {
                    return std::nullopt;
                }
                drop(*array_end + 1); // passed on by the last batch
                emit_on_drop = true;
                return *array_end + 1;
            }
            // A batch when enough is held, or when what follows its last element is large.
            if (!ends.empty() && (ends.back() - seg >= batch_bytes ||
                                  end_offset() - ends.back() > options.max_value_bytes)) {
                std::uint64_t last = ends.back();
                if (!make_batch(seg, last, first, false)) {
                    return std::nullopt;
                }
                seg = last + 1;
                first = false;
                continue;
            }
            if (end_offset() - seg > options.max_value_bytes + options.chunk_bytes) {
                unfinished(seg, first, false);
                return std::nullopt;
            }
            if (!fill()) {
                if (error) {
                    drain();
                    return std::nullopt;
                }
                // The end of the input: the last bytes, fewer than a block.
                avail = end_offset() - scanned;
                array_end = splitter.scan_bytes(at(scanned), static_cast<std::size_t>(avail),
                                                scanned, ends);
                scanned += avail;
                if (!array_end) {
                    unfinished(seg, first, true);
                    return std::nullopt;
                }
            }
        }
    }

    // An error found while cutting batches: the batches before it are handed over first (an
    // error in them comes first in the text).
    bool fail_after_batches(std::uint64_t offset, ProblemCode code, std::string message) {
        if (!drain()) {
            return false;
        }
        return fail(offset, code, std::move(message));
    }

    // The bytes from `seg` that no element end was found in: cut short at the end of the input
    // (`at_end`), or larger than an event may be. A syntax error in them comes first.
    void unfinished(std::uint64_t seg, bool first, bool at_end) {
        auto p = first ? std::optional<std::uint64_t>(seg) : next_token(seg, end_offset());
        if (p && !first && *at(*p) != ',') {
            fail_after_batches(*p, ProblemCode::parse_error, "expected ',' or ']' after an event");
            return;
        }
        if (p) {
            std::string text(1, '[');
            text.append(at(*p + 1), static_cast<std::size_t>(end_offset() - *p - 1));
            auto located = locate_json_error(text);
            if (located && located->offset < text.size()) {
                fail_after_batches(*p + located->offset, ProblemCode::parse_error,
                                   located->message);
                return;
            }
        }
        if (at_end) {
            fail_after_batches(end_offset(), ProblemCode::parse_error,
                               "unexpected end of input inside traceEvents (truncated trace?)");
        } else {
            fail_after_batches(p.value_or(seg), ProblemCode::value_too_large,
                               "an event larger than " + std::to_string(options.max_value_bytes) +
                                   " bytes: not read");
        }
    }

    // Copies the elements from `seg` to `last` into a batch for parsing: `last` is the closing
    // bracket of the batch's last element or (final) the array's ']'. The batch's opener is the
    // array's '[' (first) or the ',' before its first element.
    bool make_batch(std::uint64_t seg, std::uint64_t last, bool first, bool final) {
        std::optional<std::uint64_t> opener = seg;
        if (!first) {
            opener = next_token(seg, last);
            if (opener && *at(*opener) != ',') {
                return fail_after_batches(*opener, ProblemCode::parse_error,
                                          "expected ',' or ']' after an event");
            }
            if (!opener && !final) {
                return fail_after_batches(last, ProblemCode::parse_error,
                                          "expected ',' or ']' after an event");
            }
            if (opener && final && !next_token(*opener + 1, last)) {
                return fail_after_batches(last, ProblemCode::parse_error,
                                          "expected an event after ',', found ']'");
            }
        }
        std::unique_ptr<Batch> b;
        if (spare.empty()) {
            b = std::make_unique<Batch>();
        } else {
            b = std::move(spare.back());
            spare.pop_back();
            b->reset();
        }
        b->seg = seg;
        b->size = static_cast<std::size_t>(last + 1 - seg);
        if (b->bytes.size() < b->size + 1 + padding) {
            b->bytes.resize(b->size + 1 + padding);
        }
        std::memcpy(b->bytes.data(), at(seg), b->size);
        b->opener = opener;
        b->close = final ? last : last + 1;
        b->final = final;
        b->ends.swap(ends);
        ends.clear();
        keep_from = last + 1;
        submit(std::move(b));
        return !error;
    }

    // ---- parsing on several threads, handing over in order ----------------------------------

    void submit(std::unique_ptr<Batch> b) {
        if (threads > 1 && workers.empty()) {
            for (unsigned i = 1; i < threads; ++i) {
                workers.emplace_back([this] { work(); });
            }
        }
        {
            std::lock_guard lock(mutex);
            queue.push_back(b.get());
            inflight.push_back(std::move(b));
        }
        work_ready.notify_one();
        while (inflight.size() > max_inflight) {
            if (!hand_over_first()) {
                return;
            }
        }
    }

    static void parse_one(BatchParser& p, Batch& b) {
        try {
            p.parse(b);
        } catch (...) {
            b.exception = std::current_exception();
        }
    }

    void work() {
        BatchParser p;
        std::unique_lock lock(mutex);
        while (true) {
            work_ready.wait(lock, [this] { return stopping || !queue.empty(); });
            if (stopping) {
                return;
            }
            Batch* b = queue.front();
            queue.pop_front();
            b->state = 1;
            lock.unlock();
            parse_one(p, *b);
            lock.lock();
            b->state = 2;
            parsed.notify_all();
        }
    }

    void stop_workers() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        work_ready.notify_all();
        for (auto& t : workers) {
            t.join();
        }
        workers.clear();
    }

    // Hands over the first batch in flight, once parsed (parsing others meanwhile rather than
    // waiting idle); false on an error (set).
    bool hand_over_first() {
        Batch& first = *inflight.front();
        {
            std::unique_lock lock(mutex);
            while (first.state != 2) {
                if (!queue.empty()) {
                    Batch* b = queue.front();
                    queue.pop_front();
                    b->state = 1;
                    lock.unlock();
                    parse_one(own_parser, *b);
                    lock.lock();
                    b->state = 2;
                    parsed.notify_all();
                } else {
                    parsed.wait(lock);
                }
            }
        }
        bool ok = hand_over(first);
        spare.push_back(std::move(inflight.front()));
        inflight.pop_front();
        return ok;
    }

    bool drain() {
        while (!inflight.empty()) {
            if (!hand_over_first()) {
                return false;
            }
        }
        return !error;
    }

    bool hand_over(Batch& b) {
        if (b.exception) {
            std::rethrow_exception(b.exception);
        }
        if (error) {
            return false;
        }
        delivering = &b;
        checkpoint = cursor; // at b.seg: every byte before it was passed on
        for (auto& record : b.records) {
            record.event.debug_handles = std::span<const std::string_view>(
                b.handles.data() + record.handles_begin, record.handles_count);
            record.event.index = stats.elements++;
            handler->event(record.event);
        }
        bool ok = true;
        if (b.error) {
            ok = fail(b.error->first, ProblemCode::parse_error, b.error->second);
        } else {
            if (cursor.offset < b.seg + b.size) {
                cursor.advance(b.bytes.data() + (cursor.offset - b.seg),
                               static_cast<std::size_t>(b.seg + b.size - cursor.offset));
            }
            if (b.final) {
                handler->events_end(b.close);
            }
            handler->bytes(std::string_view(b.bytes.data(), b.size));
        }
        delivering = nullptr;
        return ok;
    }

    // After the read: the batches and the parsers' buffers are not needed any more (a report is
    // built and printed after it); the text held in `buf` stays for position().
    void release_batches() {
        delivering = nullptr;
        inflight.clear();
        spare.clear();
        spare.shrink_to_fit();
        own_parser.release();
        outer_parser = od::parser{};
        scratch = {};
    }

    TraceReadResult run(TraceHandler& h) {
        handler = &h;
        stats.gzip = source->gzip();
        read_document();
        stop_workers();
        release_batches();
        TraceReadResult result;
        result.stats = stats;
        result.error = error;
        result.error_offset = error_offset;
        return result;
    }
};

TraceReader::TraceReader(TraceReaderOptions options) : impl_(std::make_unique<Impl>(options)) {}

TraceReader::~TraceReader() = default;

TraceReadResult TraceReader::read(const std::string& path, TraceHandler& handler) {
    impl_ = std::make_unique<Impl>(impl_->options);
    std::string error;
    impl_->path = path;
    impl_->source = trace_source::open_file(path, impl_->options.chunk_bytes, error);
    if (!impl_->source) {
        TraceReadResult result;
        result.error = make_problem(path, {}, ProblemCode::io_error, error);
        return result;
    }
    return impl_->run(handler);
}

TraceReadResult TraceReader::read_bytes(std::string_view bytes, TraceHandler& handler) {
    impl_ = std::make_unique<Impl>(impl_->options);
    impl_->source = trace_source::open_memory(bytes, impl_->options.chunk_bytes);
    return impl_->run(handler);
}

TextPosition TraceReader::position(std::uint64_t offset) {
    return impl_->position(offset);
}

} // namespace sdscprov
