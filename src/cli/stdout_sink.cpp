#include "stdout_sink.hpp"

#include "messages.hpp"
#include "sdscprov/write/fd_output.hpp"

#include <cstring>
#include <string>
#include <unistd.h>

namespace sdscprov::cli {

void report_stdout_error(int error) {
    messages::error("profile", std::string("cannot write the report to standard output: ") +
                                   std::strerror(error));
}

bool print_to_stdout(const std::function<void(std::ostream&)>& print) {
    FdStreamBuffer buffer(STDOUT_FILENO);
    std::ostream out(&buffer);
    print(out);
    out.flush();
    if (buffer.error() != 0) {
        report_stdout_error(buffer.error());
        return false;
    }
    return true;
}

} // namespace sdscprov::cli
