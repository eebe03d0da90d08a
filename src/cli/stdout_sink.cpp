#include "stdout_sink.hpp"

#include "messages.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace sdscprov::cli {

int write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
}

void report_stdout_error(int error) {
    messages::error("profile", std::string("cannot write the report to standard output: ") +
                                   std::strerror(error));
}

bool print_to_stdout(const std::function<void(std::ostream&)>& print) {
    StdoutBuffer buffer;
    std::ostream out(&buffer);
    print(out);
    out.flush();
    if (buffer.error() != 0) {
        report_stdout_error(buffer.error());
        return false;
    }
    return true;
}

StdoutBuffer::StdoutBuffer() {
    setp(buffer_, buffer_ + sizeof buffer_);
}

StdoutBuffer::int_type StdoutBuffer::overflow(int_type c) {
    if (!drain()) {
        return traits_type::eof();
    }
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

std::streamsize StdoutBuffer::xsputn(const char* s, std::streamsize n) {
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
    error_ = write_all(STDOUT_FILENO, {s, static_cast<std::size_t>(n)});
    return error_ == 0 ? n : 0;
}

int StdoutBuffer::sync() {
    return drain() ? 0 : -1;
}

bool StdoutBuffer::drain() {
    if (error_ == 0) {
        error_ = write_all(STDOUT_FILENO, {pbase(), static_cast<std::size_t>(pptr() - pbase())});
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
}

} // namespace sdscprov::cli
