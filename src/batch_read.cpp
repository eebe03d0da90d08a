#include "batch_read.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <liburing.h>
#include <simdjson.h>

namespace sdscprov {

static_assert(BatchReader::slot_padding >= simdjson::SIMDJSON_PADDING);

namespace {

constexpr std::size_t slot_bytes = BatchReader::slot_size + BatchReader::slot_padding;

// Per file three linked requests: open into the file's direct descriptor slot, read, close.
// Hard links: the close runs even when the open or the read failed, so that no slot stays
// occupied (the read of an empty slot fails with EBADF, harmlessly).
enum Step : std::uint64_t { step_open = 0, step_read = 1, step_close = 2 };

bool disabled_by_environment() {
    const char* v = std::getenv("SDSCPROV_IO_URING");
    return v != nullptr && std::strcmp(v, "0") == 0;
}

} // namespace

struct BatchReader::Impl {
    io_uring ring{};
    bool ready = false;
    std::unique_ptr<char[]> buffers = std::make_unique<char[]>(BatchReader::slots * slot_bytes);
    std::array<long, BatchReader::slots> lengths{}; // bytes read, or -1

    Impl() {
        if (disabled_by_environment()) {
            return;
        }
        if (io_uring_queue_init(4 * BatchReader::slots, &ring, 0) < 0) {
            return;
        }
        if (io_uring_register_files_sparse(&ring, BatchReader::slots) < 0) {
            io_uring_queue_exit(&ring);
            return;
        }
        ready = true;
    }

    ~Impl() {
        if (ready) {
            io_uring_queue_exit(&ring);
        }
    }

    // Queues the three requests of slot `i`; false when the submission queue is full (cannot
    // happen with the ring sized for every slot, but then the file is simply not read here).
    bool queue(std::size_t i, const std::string& path) {
        if (io_uring_sq_space_left(&ring) < 3) {
            return false;
        }
        // No O_CLOEXEC: a direct descriptor is never in the descriptor table (and the kernel
        // refuses the flag for one). O_NONBLOCK: a fifo put in place since the walk does not
        // block the read; it fails with EAGAIN and the caller reports it.
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        io_uring_prep_openat_direct(sqe, AT_FDCWD, path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY,
                                    0, static_cast<unsigned>(i));
        sqe->flags |= IOSQE_IO_HARDLINK;
        io_uring_sqe_set_data64(sqe, i * 3 + step_open);
        sqe = io_uring_get_sqe(&ring);
        io_uring_prep_read(sqe, static_cast<int>(i), buffers.get() + i * slot_bytes,
                           BatchReader::slot_size, 0);
        sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
        io_uring_sqe_set_data64(sqe, i * 3 + step_read);
        sqe = io_uring_get_sqe(&ring);
        io_uring_prep_close_direct(sqe, static_cast<unsigned>(i));
        io_uring_sqe_set_data64(sqe, i * 3 + step_close);
        return true;
    }

    // Submits what was queued and waits for all `expected` completions. When the ring itself
    // fails it is given up for good and every later group is left to the caller.
    void run(std::size_t expected) {
        int submitted = io_uring_submit_and_wait(&ring, static_cast<unsigned>(expected));
        while (submitted == -EINTR) {
            submitted = io_uring_submit_and_wait(&ring, static_cast<unsigned>(expected));
        }
        if (submitted < 0) {
            // Nothing was submitted: no request can still write into the buffers.
            ready = false;
            io_uring_queue_exit(&ring);
            return;
        }
        for (std::size_t seen = 0; seen < expected;) {
            io_uring_cqe* cqe = nullptr;
            int err = io_uring_wait_cqe(&ring, &cqe);
            if (err == -EINTR) {
                continue;
            }
            if (err < 0) {
                // Submitted requests may still write into the buffers: they are abandoned (never
                // freed nor reused) along with the ring. wait_cqe does not fail this way in
                // practice; this only keeps such a failure from corrupting memory.
                ready = false;
                lengths.fill(-1);
                static_cast<void>(buffers.release());
                return;
            }
            std::uint64_t data = io_uring_cqe_get_data64(cqe);
            if (data % 3 == step_read) {
                lengths[data / 3] = cqe->res;
            }
            io_uring_cqe_seen(&ring, cqe);
            ++seen;
        }
        for (std::size_t i = 0; i < BatchReader::slots; ++i) {
            if (lengths[i] >= 0 && static_cast<std::size_t>(lengths[i]) < BatchReader::slot_size) {
                // No stale bytes of a longer file in the padding.
                std::memset(buffers.get() + i * slot_bytes + lengths[i], 0,
                            BatchReader::slot_padding);
            }
        }
    }
};

BatchReader::BatchReader() : impl_(std::make_unique<Impl>()) {}

BatchReader::~BatchReader() = default;

bool BatchReader::available() const {
    return impl_->ready;
}

void BatchReader::read(std::span<const std::string* const> paths) {
    impl_->lengths.fill(-1);
    if (!impl_->ready) {
        return;
    }
    std::size_t queued = 0;
    for (std::size_t i = 0; i < paths.size() && i < slots; ++i) {
        if (paths[i] != nullptr && impl_->queue(i, *paths[i])) {
            queued += 3;
        }
    }
    if (queued != 0) {
        impl_->run(queued);
    }
}

std::optional<std::string_view> BatchReader::bytes(std::size_t slot) const {
    if (slot >= slots) {
        return std::nullopt;
    }
    long n = impl_->lengths[slot];
    // A read that filled the slot may have stopped short of the end of the file.
    if (n < 0 || static_cast<std::size_t>(n) >= slot_size) {
        return std::nullopt;
    }
    const char* data = impl_->buffers.get() + slot * slot_bytes;
    return std::string_view(data, static_cast<std::size_t>(n));
}

} // namespace sdscprov
