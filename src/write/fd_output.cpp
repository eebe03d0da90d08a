#include "sdscprov/write/fd_output.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace sdscprov {

int write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno != 0 ? errno : EIO;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
}

FdStreamBuffer::FdStreamBuffer(int fd) : fd_(fd) {
    setp(buffer_, buffer_ + sizeof buffer_);
}

FdStreamBuffer::int_type FdStreamBuffer::overflow(int_type c) {
    if (!drain()) {
        return traits_type::eof();
    }
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

std::streamsize FdStreamBuffer::xsputn(const char* s, std::streamsize n) {
    if (n <= epptr() - pptr()) {
        std::memcpy(pptr(), s, static_cast<std::size_t>(n));
        pbump(static_cast<int>(n));
        return n;
    }
    if (!drain()) {
        return 0;
    }
    if (n < static_cast<std::streamsize>(sizeof buffer_)) {
        return xsputn(s, n);
    }
    error_ = write_all(fd_, {s, static_cast<std::size_t>(n)});
    return error_ == 0 ? n : 0;
}

int FdStreamBuffer::sync() {
    return drain() ? 0 : -1;
}

bool FdStreamBuffer::drain() {
    if (error_ == 0) {
        error_ = write_all(fd_, {pbase(), static_cast<std::size_t>(pptr() - pbase())});
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
}

} // namespace sdscprov
