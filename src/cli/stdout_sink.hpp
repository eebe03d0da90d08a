// Standard output for reports that may be large: every byte written or the failure reported
// once (a full disk, a closed pipe).
#pragma once

#include <functional>
#include <ostream>
#include <streambuf>
#include <string_view>

namespace sdscprov::cli {

// Writes all of `bytes` to `fd`, retrying short writes and EINTR; 0, or the errno of the failure.
int write_all(int fd, std::string_view bytes);

// "cannot write the report to standard output: ..." on standard error.
void report_stdout_error(int error);

// `print` given a stream over standard output (a StdoutBuffer); false when the bytes could not
// all be written (reported).
bool print_to_stdout(const std::function<void(std::ostream&)>& print);

// A stream buffer over standard output, so that a printer's text goes out as it is rendered
// rather than being held a second time in a string stream. Small pieces are gathered in a
// buffer; a piece larger than the buffer is written as it is. The first failure is kept and
// every later write refused.
class StdoutBuffer final : public std::streambuf {
public:
    StdoutBuffer();
    int error() const { return error_; }

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    bool drain();
    char buffer_[64 * 1024];
    int error_ = 0;
};

} // namespace sdscprov::cli
