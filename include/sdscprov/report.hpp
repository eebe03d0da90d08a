// Reports: printers are separate from the work and interchangeable. A printer receives kernel
// results one at a time, in discovery order, and the totals at the end; it holds nothing it does
// not need, so that a 100,000-file cache streams through in flat memory.
#pragma once

#include "sdscprov/discover.hpp"
#include "sdscprov/problem.hpp"
#include "sdscprov/scan.hpp"

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace sdscprov {

struct HandleCounts {
    std::uint64_t files = 0; // SDSC-named files, whatever their content
    std::uint64_t populated = 0;
    std::uint64_t null = 0;
    std::uint64_t absent = 0;
    std::uint64_t malformed = 0;
    std::uint64_t not_sdsc = 0;
    std::uint64_t invalid_json = 0;
    std::uint64_t unreadable = 0;
    std::uint64_t errors = 0;   // problems of severity error
    std::uint64_t warnings = 0; // problems of severity warning
    // FORMATS section 6: files (status ok) where each provenance member is populated.
    std::array<std::uint64_t, provenance_member_count> provenance{};

    std::uint64_t sdsc_documents() const { return populated + null + absent + malformed; }
    void add(const ScanResult& r);
    void add(const HandleCounts& other);
};

// One kernel directory's results.
struct KernelReport {
    KernelDir dir;
    std::vector<ScanResult> files; // same order as dir.files
    HandleCounts counts;
};

struct Totals {
    std::uint64_t kernels = 0;
    HandleCounts counts;
    DiscoverStats discovery;
};

// The audit's cell for one field: all / n of total / none.
enum class Coverage { all, some, none };
Coverage coverage(std::uint64_t count, std::uint64_t total);

enum class ReportFormat { text, json, markdown };

struct PrinterOptions {
    bool color = false; // ANSI colour (the CLI enables it on a terminal without NO_COLOR)
    std::string command = "scan";
};

class ReportPrinter {
public:
    virtual ~ReportPrinter() = default;
    virtual void kernel(const KernelReport& report) = 0;
    // Called once at the end with every problem (file problems included, in discovery order).
    virtual void finish(const Totals& totals, const std::vector<Problem>& problems) = 0;
};

std::unique_ptr<ReportPrinter> make_printer(ReportFormat format, std::ostream& out,
                                            PrinterOptions options);

} // namespace sdscprov
