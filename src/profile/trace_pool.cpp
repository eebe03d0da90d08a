#include "profile/trace_pool.hpp"

#include "sdscprov/core/json_error.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>
#include <string_view>
#include <utility>

namespace sdscprov {

using namespace trace_batch;

namespace {

void parse_one(BatchParser& p, Batch& b) {
    try {
        p.parse(b);
    } catch (...) {
        b.exception = std::current_exception();
    }
}

// Parses the first batch waiting in `queue` with `p`: `lock` (of the queue) is held, and let go
// while parsing.
void parse_next(BatchParser& p, std::deque<Batch*>& queue, std::unique_lock<std::mutex>& lock,
                std::condition_variable& parsed) {
    Batch* b = queue.front();
    queue.pop_front();
    b->state = 1;
    lock.unlock();
    parse_one(p, *b);
    lock.lock();
    b->state = 2;
    parsed.notify_all();
}

} // namespace

BatchPool::BatchPool(TraceWindow& window, const TraceReaderOptions& options)
    : window_(window), chunk_bytes_(options.chunk_bytes),
      max_value_bytes_(options.max_value_bytes),
      threads_(options.threads != 0 ? options.threads
                                    : std::clamp(std::thread::hardware_concurrency(), 1U, 8U)),
      max_inflight_(2 * std::size_t{threads_} + 1) {}

BatchPool::~BatchPool() {
    stop();
}

// ---- cutting traceEvents into batches ---------------------------------------------------------

// The first byte after `seg` that is not whitespace, before `limit`.
std::optional<std::uint64_t> BatchPool::next_token(std::uint64_t seg, std::uint64_t limit) {
    for (std::uint64_t p = seg; p < limit; ++p) {
        if (!is_ws(*window_.at(p))) {
            return p;
        }
    }
    return std::nullopt;
}

// Batches start at `seg`: the array's '[' for the first, else the byte after the previous
// batch's last element.
std::optional<std::uint64_t> BatchPool::read_events(std::uint64_t open) {
    window_.drop(open); // what comes before the array is passed on now, the rest by the batches
    window_.pass_on_drop(false);
    splitter_ = {};
    ends_.clear();
    std::uint64_t scanned = open + 1;
    std::uint64_t seg = open;
    bool first = true;
    std::optional<std::uint64_t> array_end;
    const std::size_t batch_bytes = std::max<std::size_t>(chunk_bytes_ / 2, 4096);
    while (true) {
        std::uint64_t avail = window_.end_offset() - scanned;
        if (!array_end && avail >= json_split::block) {
            std::size_t blocks = static_cast<std::size_t>(avail / json_split::block);
            array_end = splitter_.scan(window_.at(scanned), blocks, scanned, ends_);
            scanned += blocks * json_split::block;
        }
        if (array_end) {
            if (!make_batch(seg, *array_end, first, true) || !drain()) {
                return std::nullopt;
            }
            window_.drop(*array_end + 1); // passed on by the last batch
            window_.pass_on_drop(true);
            return *array_end + 1;
        }
        // A batch when enough is held, or when what follows its last element is large.
        if (!ends_.empty() && (ends_.back() - seg >= batch_bytes ||
                               window_.end_offset() - ends_.back() > max_value_bytes_)) {
            std::uint64_t last = ends_.back();
            if (!make_batch(seg, last, first, false)) {
                return std::nullopt;
            }
            seg = last + 1;
            first = false;
            continue;
        }
        if (window_.end_offset() - seg > max_value_bytes_ + chunk_bytes_) {
            unfinished(seg, first, false);
            return std::nullopt;
        }
        if (!window_.fill()) {
            if (window_.failed()) {
                drain();
                return std::nullopt;
            }
            // The end of the input: the last bytes, fewer than a block.
            avail = window_.end_offset() - scanned;
            array_end = splitter_.scan_bytes(window_.at(scanned), static_cast<std::size_t>(avail),
                                             scanned, ends_);
            scanned += avail;
            if (!array_end) {
                unfinished(seg, first, true);
                return std::nullopt;
            }
        }
    }
}

// An error found while cutting batches: the batches before it are handed over first (an error
// in them comes first in the text).
bool BatchPool::fail_after_batches(std::uint64_t offset, ProblemCode code, std::string message) {
    if (!drain()) {
        return false;
    }
    return window_.fail(offset, code, std::move(message));
}

// The bytes from `seg` that no element end was found in: cut short at the end of the input
// (`at_end`), or larger than an event may be. A syntax error in them comes first.
void BatchPool::unfinished(std::uint64_t seg, bool first, bool at_end) {
    auto p = first ? std::optional<std::uint64_t>(seg) : next_token(seg, window_.end_offset());
    if (p && !first && *window_.at(*p) != ',') {
        fail_after_batches(*p, ProblemCode::parse_error, "expected ',' or ']' after an event");
        return;
    }
    if (p) {
        std::string text(1, '[');
        text.append(window_.at(*p + 1),
                    static_cast<std::size_t>(window_.end_offset() - *p - 1));
        auto located = locate_json_error(text);
        if (located && located->offset < text.size()) {
            fail_after_batches(*p + located->offset, ProblemCode::parse_error, located->message);
            return;
        }
    }
    if (at_end) {
        fail_after_batches(window_.end_offset(), ProblemCode::parse_error,
                           "unexpected end of input inside traceEvents (truncated trace?)");
    } else {
        fail_after_batches(p.value_or(seg), ProblemCode::value_too_large,
                           "an event larger than " + std::to_string(max_value_bytes_) +
                               " bytes: not read");
    }
}

// Copies the elements from `seg` to `last` into a batch for parsing: `last` is the closing
// bracket of the batch's last element or (final) the array's ']'. The batch's opener is the
// array's '[' (first) or the ',' before its first element.
bool BatchPool::make_batch(std::uint64_t seg, std::uint64_t last, bool first, bool final) {
    std::optional<std::uint64_t> opener = seg;
    if (!first) {
        opener = next_token(seg, last);
        if (opener && *window_.at(*opener) != ',') {
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
    if (spare_.empty()) {
        b = std::make_unique<Batch>();
    } else {
        b = std::move(spare_.back());
        spare_.pop_back();
        b->reset();
    }
    b->seg = seg;
    b->size = static_cast<std::size_t>(last + 1 - seg);
    if (b->bytes.size() < b->size + 1 + padding) {
        b->bytes.resize(b->size + 1 + padding);
    }
    std::memcpy(b->bytes.data(), window_.at(seg), b->size);
    b->opener = opener;
    b->close = final ? last : last + 1;
    b->final = final;
    b->ends.swap(ends_);
    ends_.clear();
    window_.keep_from(last + 1);
    submit(std::move(b));
    return !window_.failed();
}

// ---- parsing on several threads, handing over in order ----------------------------------------

void BatchPool::submit(std::unique_ptr<Batch> b) {
    if (threads_ > 1 && workers_.empty()) {
        for (unsigned i = 1; i < threads_; ++i) {
            workers_.emplace_back([this] { work(); });
        }
    }
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(b.get());
        inflight_.push_back(std::move(b));
    }
    work_ready_.notify_one();
    while (inflight_.size() > max_inflight_) {
        if (!hand_over_first()) {
            return;
        }
    }
}

void BatchPool::work() {
    BatchParser p;
    std::unique_lock lock(mutex_);
    while (true) {
        work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) {
            return;
        }
        parse_next(p, queue_, lock, parsed_);
    }
}

void BatchPool::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& t : workers_) {
        t.join();
    }
    workers_.clear();
}

// Hands over the first batch in flight, once parsed (parsing others meanwhile rather than
// waiting idle); false on an error (set).
bool BatchPool::hand_over_first() {
    Batch& first = *inflight_.front();
    {
        std::unique_lock lock(mutex_);
        while (first.state != 2) {
            if (!queue_.empty()) {
                parse_next(own_parser_, queue_, lock, parsed_);
            } else {
                parsed_.wait(lock);
            }
        }
    }
    bool ok = hand_over(first);
    spare_.push_back(std::move(inflight_.front()));
    inflight_.pop_front();
    return ok;
}

bool BatchPool::drain() {
    while (!inflight_.empty()) {
        if (!hand_over_first()) {
            return false;
        }
    }
    return !window_.failed();
}

bool BatchPool::hand_over(Batch& b) {
    if (b.exception) {
        std::rethrow_exception(b.exception);
    }
    if (window_.failed()) {
        return false;
    }
    window_.hold(b);
    for (auto& record : b.records) { // debug_handles set by the parse (BatchParser)
        record.event.index = elements_++;
        handler_->event(record.event);
    }
    bool ok = true;
    if (b.error) {
        ok = window_.fail(b.error->first, ProblemCode::parse_error, b.error->second);
    } else {
        window_.passed_held();
        if (b.final) {
            handler_->events_end(b.close);
        }
        handler_->bytes(std::string_view(b.bytes.data(), b.size));
    }
    window_.release_held();
    return ok;
}

void BatchPool::release() {
    inflight_.clear();
    spare_.clear();
    spare_.shrink_to_fit();
    own_parser_.release();
}

} // namespace sdscprov
