#include "walk/batch_open.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

namespace sdscprov {

namespace {

// user_data of a close request; an open request carries its slot.
constexpr std::uint64_t close_tag = ~std::uint64_t{0};

bool disabled_by_environment() {
    const char* v = std::getenv("SDSCPROV_IO_URING");
    return v != nullptr && std::strcmp(v, "0") == 0;
}

} // namespace

struct BatchOpener::Impl {
    io_uring ring{};
    bool ready = false;
    std::array<int, BatchOpener::slots> fds{};
    std::size_t closes_in_flight = 0; // submitted, completion not yet seen

    Impl() {
        fds.fill(-1);
        if (disabled_by_environment()) {
            return;
        }
        // Room for a group's closes and opens at once.
        ready = io_uring_queue_init(2 * BatchOpener::slots, &ring, 0) == 0;
    }

    ~Impl() {
        close_all();
        if (ready) {
            io_uring_queue_exit(&ring);
        }
    }

    // The ring failed: from now on every file is opened by the caller. Descriptors still held
    // (opened, no close queued) are closed the ordinary way.
    void give_up() {
        for (int& fd : fds) {
            if (fd >= 0) {
                ::close(fd);
                fd = -1;
            }
        }
        ready = false;
        io_uring_queue_exit(&ring);
    }

    // Queues the close of every descriptor held.
    void queue_closes() {
        for (int& fd : fds) {
            if (fd >= 0) {
                io_uring_sqe* sqe = io_uring_get_sqe(&ring);
                io_uring_prep_close(sqe, fd);
                io_uring_sqe_set_data64(sqe, close_tag);
                ++closes_in_flight;
                fd = -1;
            }
        }
    }

    // Submits everything queued, then waits until `opens` open completions and every close's
    // have been seen. False when the ring failed (given up).
    bool submit_and_reap(std::size_t opens) {
        while (io_uring_sq_ready(&ring) > 0) {
            int submitted = io_uring_submit(&ring);
            if (submitted == 0 || (submitted < 0 && submitted != -EINTR)) {
                // Not consumed by the kernel: queued opens never will be. The descriptors whose
                // close was queued are left open (at most a group's, once): after a partial
                // submission some may be closed and their numbers reused by now, and closing one
                // twice could close another file.
                closes_in_flight = 0;
                give_up();
                return false;
            }
        }
        while (opens > 0 || closes_in_flight > 0) {
            io_uring_cqe* cqe = nullptr;
            int err = io_uring_wait_cqe(&ring, &cqe);
            if (err == -EINTR) {
                continue;
            }
            if (err < 0) {
                closes_in_flight = 0;
                give_up();
                return false;
            }
            std::uint64_t data = io_uring_cqe_get_data64(cqe);
            if (data == close_tag) {
                --closes_in_flight;
            } else {
                fds[data] = cqe->res >= 0 ? cqe->res : -1;
                --opens;
            }
            io_uring_cqe_seen(&ring, cqe);
        }
        return true;
    }

    void close_all() {
        if (!ready) {
            return;
        }
        queue_closes();
        submit_and_reap(0);
    }
};

BatchOpener::BatchOpener() : impl_(std::make_unique<Impl>()) {}

BatchOpener::~BatchOpener() = default;

bool BatchOpener::available() const {
    return impl_->ready;
}

void BatchOpener::open(std::span<const char* const> paths) {
    std::array<Request, slots> requests{};
    for (std::size_t i = 0; i < paths.size() && i < slots; ++i) {
        requests[i].dir_fd = AT_FDCWD;
        requests[i].name = paths[i];
    }
    open(std::span<const Request>(requests.data(), std::min(paths.size(), slots)));
}

void BatchOpener::open(std::span<const Request> requests) {
    if (!impl_->ready) {
        return;
    }
    impl_->queue_closes();
    std::size_t opens = 0;
    for (std::size_t i = 0; i < requests.size() && i < slots; ++i) {
        if (requests[i].name == nullptr) {
            continue;
        }
        // The flags of the scan's own open: a fifo put in place since the walk does not block.
        io_uring_sqe* sqe = io_uring_get_sqe(&impl_->ring);
        if (sqe == nullptr) {
            break; // cannot happen: the ring holds a group's closes and opens
        }
        io_uring_prep_openat(sqe, requests[i].dir_fd, requests[i].name,
                             O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | requests[i].flags, 0);
        io_uring_sqe_set_data64(sqe, i);
        ++opens;
    }
    impl_->submit_and_reap(opens);
}

int BatchOpener::fd(std::size_t slot) const {
    return slot < slots ? impl_->fds[slot] : -1;
}

void BatchOpener::close_all() {
    impl_->close_all();
}

} // namespace sdscprov
