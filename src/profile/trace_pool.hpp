// Internal: the trace reader's traceEvents (trace.cpp): the array cut by json_split into batches
// of whole elements, each a copy of its text parsed (trace_batch) by worker threads or the
// reading thread, whichever is free; their events handed over in order by the reading thread,
// then their bytes. At most 2 * threads + 1 batches are in flight: memory stays bounded however
// fast the input comes.
#pragma once

#include "profile/json_split.hpp"
#include "profile/trace_batch.hpp"
#include "profile/trace_window.hpp"
#include "sdscprov/profile/trace.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sdscprov {

class BatchPool {
public:
    // `options` as the reader has them (chunk_bytes at least 1, max_value_bytes at least 64).
    BatchPool(TraceWindow& window, const TraceReaderOptions& options);
    ~BatchPool();
    BatchPool(const BatchPool&) = delete;
    BatchPool& operator=(const BatchPool&) = delete;

    // Where the events, the end of the array and the batches' bytes are handed over.
    void hand_to(TraceHandler& handler) { handler_ = &handler; }

    // Reads the array whose '[' is at `open`; the offset after its ']', or nullopt with the
    // window's error set.
    std::optional<std::uint64_t> read_events(std::uint64_t open);
    // The elements handed over so far.
    std::uint64_t elements() const { return elements_; }

    // The workers stopped (once the read is over).
    void stop();
    // The batches and the parser's buffers freed (not needed after the read).
    void release();

private:
    std::optional<std::uint64_t> next_token(std::uint64_t seg, std::uint64_t limit);
    bool fail_after_batches(std::uint64_t offset, ProblemCode code, std::string message);
    void unfinished(std::uint64_t seg, bool first, bool at_end);
    bool make_batch(std::uint64_t seg, std::uint64_t last, bool first, bool final);
    void submit(std::unique_ptr<trace_batch::Batch> b);
    void work();
    bool hand_over_first();
    bool drain();
    bool hand_over(trace_batch::Batch& b);

    TraceWindow& window_;
    TraceHandler* handler_ = nullptr;
    std::size_t chunk_bytes_;
    std::size_t max_value_bytes_;
    std::uint64_t elements_ = 0;

    // Cutting: the splitter's state and the element ends found since the last batch.
    json_split::Splitter splitter_;
    std::vector<std::uint64_t> ends_;

    // Parsing: batches wait in `queue_` for a worker (or this thread, while it waits for the
    // next batch to hand over); `inflight_` holds them in text order until their events are
    // handed over. At most max_inflight_ at once.
    unsigned threads_ = 1;
    std::size_t max_inflight_ = 3;
    trace_batch::BatchParser own_parser_;
    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable parsed_;
    std::deque<trace_batch::Batch*> queue_;
    std::deque<std::unique_ptr<trace_batch::Batch>> inflight_;
    std::vector<std::unique_ptr<trace_batch::Batch>> spare_;
    std::vector<std::thread> workers_;
    bool stopping_ = false;
};

} // namespace sdscprov
