#include "core/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
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

std::optional<simdjson::padded_string> read_whole_file(const std::string& path,
                                                       std::uint64_t max_size,
                                                       std::string_view what, Problem& problem,
                                                       int dir_fd) {
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
            return std::nullopt;
        }
        problem = make_problem(path, {}, ProblemCode::io_error,
                               "cannot read " + std::string(what) + ": " + std::strerror(err));
        return std::nullopt;
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
