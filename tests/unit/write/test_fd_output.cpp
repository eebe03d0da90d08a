// The shared descriptor writer: every byte in order, large pieces and small, and the first
// failure kept.
#include "sdscprov/write/fd_output.hpp"

#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <ostream>
#include <string>
#include <thread>
#include <unistd.h>

using namespace sdscprov;

namespace {

// What a reader at the other end of a pipe receives while `write` runs on this thread.
template <class Write> std::string through_pipe(Write write) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::string received;
    std::thread reader([&] {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(fds[0], buf, sizeof buf)) > 0) {
            received.append(buf, static_cast<std::size_t>(n));
        }
    });
    write(fds[1]);
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    return received;
}

std::string pattern(std::size_t n, char seed) {
    std::string s(n, ' ');
    for (std::size_t i = 0; i < n; ++i) {
        s[i] = static_cast<char>(seed + static_cast<char>(i % 23));
    }
    return s;
}

} // namespace

TEST_CASE("write_all writes a piece larger than a pipe holds whole") {
    const std::string bytes = pattern(1 << 20, 'a');
    int error = -1;
    std::string got = through_pipe([&](int fd) { error = write_all(fd, bytes); });
    CHECK(error == 0);
    CHECK(got == bytes);
}

TEST_CASE("FdStreamBuffer keeps the order of small and large pieces") {
    const std::string small = pattern(100, 'A');
    const std::string large = pattern(200 * 1024, 'a');
    int error = -1;
    std::string got = through_pipe([&](int fd) {
        FdStreamBuffer buffer(fd);
        std::ostream out(&buffer);
        out << small << 'x' << large << small;
        out.flush();
        error = buffer.error();
    });
    CHECK(error == 0);
    CHECK(got == small + "x" + large + small);
}

TEST_CASE("FdStreamBuffer keeps the first failure and refuses later writes") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    ::close(fds[0]); // no reader: EPIPE
    auto* old = std::signal(SIGPIPE, SIG_IGN);
    {
        FdStreamBuffer buffer(fds[1]);
        std::ostream out(&buffer);
        out << "report";
        out.flush();
        CHECK(buffer.error() == EPIPE);
        CHECK_FALSE(out.good());
        CHECK(write_all(fds[1], "more") == EPIPE);
    }
    std::signal(SIGPIPE, old);
    ::close(fds[1]);
}
