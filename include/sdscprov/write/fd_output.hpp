// Bytes written to a file descriptor whole: the loop every writer of the tool shares (a report
// on standard output, a file written beside its destination, the annotated trace), retrying
// short writes and interrupted calls, and a stream buffer over it for printers that write as
// they render.
#pragma once

#include <streambuf>
#include <string_view>

namespace sdscprov {

// Writes all of `bytes` to `fd`, retrying short writes and EINTR; 0, or the errno of the failure.
int write_all(int fd, std::string_view bytes);

// A stream buffer over a file descriptor (standard output for the reports), so that a printer's
// text goes out as it is rendered rather than being held a second time in a string. Small pieces
// are gathered in a buffer; a piece larger than the buffer is written as it is. The first failure
// is kept (error()) and every later write refused.
class FdStreamBuffer final : public std::streambuf {
public:
    explicit FdStreamBuffer(int fd);
    int error() const { return error_; }

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    bool drain();
    int fd_;
    int error_ = 0;
    char buffer_[64 * 1024];
};

} // namespace sdscprov
