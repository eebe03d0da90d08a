#include "core/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov::detail {

const char* not_regular_message(mode_t mode) {
    return S_ISFIFO(mode)   ? "is a fifo, not a regular file"
           : S_ISSOCK(mode) ? "is a socket, not a regular file"
           : S_ISDIR(mode)  ? "is a directory, not a file"
           : S_ISCHR(mode)  ? "is a character device, not a regular file"
           : S_ISBLK(mode)  ? "is a block device, not a regular file"
                            : "is not a regular file";
}

namespace {

Problem cannot_read(const std::string& path, std::string_view what, int err) {
    return make_problem(path, {}, ProblemCode::io_error,
                        "cannot read " + std::string(what) + ": " + std::strerror(err));
}

// `path` opened for reading without blocking (a FIFO's open waits for no writer), by its last
// name in `dir_fd` when that is given; -1 with `problem` set when it cannot be opened.
int open_input(const std::string& path, std::string_view what, Problem& problem, int dir_fd) {
    const auto slash = path.rfind('/');
    const char* name = dir_fd >= 0 && slash != std::string::npos ? path.c_str() + slash + 1
                                                                 : path.c_str();
    const int at = dir_fd >= 0 ? dir_fd : AT_FDCWD;
    int fd = ::openat(at, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int err = errno;
        struct stat st {};
        // A unix socket cannot be opened at all (ENXIO): say what it is.
        if (err == ENXIO && ::fstatat(at, name, &st, 0) == 0 && !S_ISREG(st.st_mode)) {
            problem = make_problem(path, {}, ProblemCode::not_regular_file,
                                   not_regular_message(st.st_mode));
        } else {
            problem = cannot_read(path, what, err);
        }
    }
    return fd;
}

// What a stream is, as the wait for it is announced.
const char* stream_kind(int fd, mode_t mode) {
    return ::isatty(fd) != 0 ? "a terminal"
           : S_ISFIFO(mode)  ? "a pipe"
           : S_ISSOCK(mode)  ? "a socket"
           : S_ISREG(mode)   ? "a file"
                             : "a device";
}

// `fd` read to its end. Each read follows a poll that says there is something to read (or the
// end): a FIFO opened without blocking reads as ended before its writer comes, and a blocking
// descriptor (standard input) would hide a wait in read(). One poll in `wait.after` that finds
// nothing calls `wait.waiting`, once.
std::optional<simdjson::padded_string> read_stream(int fd, const std::string& path,
                                                   std::uint64_t max_size, std::string_view what,
                                                   Problem& problem, const StreamWait& wait,
                                                   std::string_view kind) {
    std::string bytes;
    std::string chunk(std::size_t{1} << 16, '\0');
    bool told = !wait.waiting;
    for (;;) {
        pollfd ready{fd, POLLIN, 0};
        int polled = ::poll(&ready, 1, told ? -1 : static_cast<int>(wait.after.count()));
        if (polled < 0 && errno == EINTR) {
            continue;
        }
        if (polled < 0) {
            problem = cannot_read(path, what, errno);
            return std::nullopt;
        }
        if (polled == 0) {
            told = true;
            wait.waiting(path, kind);
            continue;
        }
        ssize_t n = ::read(fd, chunk.data(), chunk.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
            continue;
        }
        if (n < 0) {
            problem = cannot_read(path, what, errno);
            return std::nullopt;
        }
        if (n == 0) {
            return simdjson::padded_string(bytes);
        }
        if (static_cast<std::uint64_t>(n) > max_size - bytes.size()) {
            problem = make_problem(path, {}, ProblemCode::file_too_large,
                                   "it gives more than --max-file-size (" +
                                       std::to_string(max_size) + ") bytes");
            return std::nullopt;
        }
        bytes.append(chunk.data(), static_cast<std::size_t>(n));
    }
}

} // namespace

std::optional<simdjson::padded_string> read_whole_file(const std::string& path,
                                                       std::uint64_t max_size,
                                                       std::string_view what, Problem& problem,
                                                       int dir_fd) {
    int fd = open_input(path, what, problem, dir_fd);
    if (fd < 0) {
        return std::nullopt;
    }
    return read_open_file(fd, path, max_size, what, problem);
}

std::optional<simdjson::padded_string> read_named_input(const std::string& path,
                                                        std::uint64_t max_size,
                                                        std::string_view what, Problem& problem,
                                                        const StreamWait& wait) {
    struct stat st {};
    if (path == "-") {
        if (::fstat(STDIN_FILENO, &st) != 0) {
            problem = cannot_read(path, what, errno);
            return std::nullopt;
        }
        if (S_ISDIR(st.st_mode)) { // `< dir`: read() would fail with EISDIR
            problem = make_problem(path, {}, ProblemCode::not_regular_file,
                                   not_regular_message(st.st_mode));
            return std::nullopt;
        }
        return read_stream(STDIN_FILENO, path, max_size, what, problem, wait,
                           stream_kind(STDIN_FILENO, st.st_mode));
    }
    int fd = open_input(path, what, problem, -1);
    if (fd < 0) {
        return std::nullopt;
    }
    if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        auto bytes =
            read_stream(fd, path, max_size, what, problem, wait, stream_kind(fd, st.st_mode));
        ::close(fd);
        return bytes;
    }
    return read_open_file(fd, path, max_size, what, problem);
}

std::optional<simdjson::padded_string> read_open_file(int fd, const std::string& path,
                                                      std::uint64_t max_size, std::string_view what,
                                                      Problem& problem) {
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    auto io_error = [&](const std::string& doing, int err) {
        problem = make_problem(path, {}, ProblemCode::io_error,
                               doing + " " + std::string(what) + ": " + std::strerror(err));
        return std::nullopt;
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return io_error("cannot stat", errno);
    }
    if (!S_ISREG(st.st_mode)) {
        problem =
            make_problem(path, {}, ProblemCode::not_regular_file, not_regular_message(st.st_mode));
        return std::nullopt;
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_size) {
        problem =
            make_problem(path, {}, ProblemCode::file_too_large,
                         "file is " + std::to_string(size) + " bytes, more than --max-file-size (" +
                             std::to_string(max_size) + ")");
        return std::nullopt;
    }
    simdjson::padded_string bytes(static_cast<std::size_t>(size));
    if (bytes.data() == nullptr) {
        return io_error("cannot read", ENOMEM);
    }
    std::size_t done = 0;
    for (;;) {
        // One byte past the size: a file that grew since the fstat is found, not cut.
        char extra = 0;
        char* into = done < size ? bytes.data() + done : &extra;
        std::size_t room = done < size ? static_cast<std::size_t>(size) - done : 1;
        ssize_t n = ::read(fd, into, room);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return io_error("cannot read", errno);
        }
        if (n == 0) {
            break;
        }
        if (done >= size) {
            problem = make_problem(path, {}, ProblemCode::io_error,
                                   "cannot read " + std::string(what) +
                                       ": it grew while being read (is it still being written?)");
            return std::nullopt;
        }
        done += static_cast<std::size_t>(n);
    }
    if (done < size) {
        problem = make_problem(path, {}, ProblemCode::io_error,
                               "cannot read " + std::string(what) +
                                   ": it shrank while being read (is it still being written?)");
        return std::nullopt;
    }
    return bytes;
}

} // namespace sdscprov::detail
