// Standard output for reports that may be large: every byte written or the failure reported
// once (a full disk, a closed pipe).
#pragma once

#include <functional>
#include <ostream>

namespace sdscprov::cli {

// "cannot write the report to standard output: ..." on standard error.
void report_stdout_error(int error);

// `print` given a stream over standard output (an FdStreamBuffer); false when the bytes could
// not all be written (reported).
bool print_to_stdout(const std::function<void(std::ostream&)>& print);

} // namespace sdscprov::cli
