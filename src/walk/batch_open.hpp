// Internal: opens and closes groups of files with one system call per group, not one per file
// (io_uring), for the scan's many small files: for a file that small, a system call's entry and
// exit cost more than the work behind it; the benchmark (README, "Speed") measures it.
//
// Only opening and closing go through io_uring: the caller reads each descriptor with read(2),
// as it reads any file. An io_uring read on tmpfs is handed to a kernel worker thread (no
// non-blocking buffered reads there), which costs more than the system call it saves.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace sdscprov {

class BatchOpener {
public:
    // Files per group. On the 10,000-file benchmark cache (-j 2) 4, 8 and 16 are within the
    // noise of each other; 8 holds few descriptors and saves seven system calls in eight.
    static constexpr std::size_t slots = 8;

    // Sets up the ring. When the kernel refuses io_uring (too old, disabled by sysctl, filtered by
    // seccomp), or SDSCPROV_IO_URING=0 is set, available() is false and open() opens nothing.
    BatchOpener();
    // Closes whatever is still open.
    ~BatchOpener();
    BatchOpener(const BatchOpener&) = delete;
    BatchOpener& operator=(const BatchOpener&) = delete;

    bool available() const;

    // Closes the previous group's descriptors and opens `paths` (at most `slots`; nullptr: leave
    // that slot closed) read-only, non-blocking, close-on-exec, in one submission. Afterwards
    // fd(i) is the descriptor of paths[i], or -1 when the caller must open it itself (which
    // reports why, in the usual words).
    void open(std::span<const char* const> paths);

    // One file to open: `name` in the directory `dir_fd` (AT_FDCWD: a path), with `flags` added to
    // the scan's own (O_NOFOLLOW for a file that was no link when its directory was read).
    struct Request {
        int dir_fd = -100; // AT_FDCWD
        const char* name = nullptr; // nullptr: leave the slot closed
        int flags = 0;
    };
    void open(std::span<const Request> requests);
    int fd(std::size_t slot) const;

    // Closes the current group's descriptors now rather than with the next group.
    void close_all();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
