// `sdscprov profile T1 T2 ... [CACHES...]`: the traces told from the caches, each trace profiled
// on its own against the same sources, the reports added up by rank (profile/ranks.hpp).
#include "common.hpp"
#include "profile.hpp"
#include "progress.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov::cli {

namespace {

enum class InputKind { trace, cache, unknown };

// What the first MiB of a regular file says: gzip (a .json.gz trace), a JSON array (Chrome's
// JSON Array Format) or an object naming traceEvents: a trace; any other file a cache's.
InputKind kind_of(const std::string& path) {
    if (path == "-") {
        return InputKind::trace;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return InputKind::unknown;
    }
    if (S_ISDIR(st.st_mode)) {
        return InputKind::cache;
    }
    if (!S_ISREG(st.st_mode)) {
        return InputKind::unknown;
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return InputKind::unknown;
    }
    std::string head(std::size_t{1} << 20, '\0');
    std::size_t got = 0;
    while (got < head.size()) {
        ssize_t n = ::read(fd, head.data() + got, head.size() - got);
        if (n <= 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    head.resize(got);
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b) {
        return InputKind::trace;
    }
    auto first = head.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && head[first] == '[') {
        return InputKind::trace;
    }
    return head.find("\"traceEvents\"") != std::string::npos ? InputKind::trace : InputKind::cache;
}

} // namespace

bool classify_inputs(ProfileCli& o) {
    std::vector<std::string> given{o.trace};
    given.insert(given.end(), o.caches.begin(), o.caches.end());
    std::vector<std::string> traces, caches;
    std::optional<std::size_t> first_file; // the first path that is not a directory
    for (std::size_t i = 0; i < given.size(); ++i) {
        auto kind = kind_of(given[i]);
        if (kind == InputKind::unknown && i == 0) {
            kind = InputKind::trace; // kept in its place: the reader says what is wrong
        }
        struct stat st {};
        bool dir = ::stat(given[i].c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        if (!dir && !first_file) {
            first_file = i;
        }
        (kind == InputKind::trace ? traces : caches).push_back(given[i]);
    }
    if (traces.empty() && first_file) {
        // No file reads as a trace: the first one is read as the trace (its error says why).
        traces.push_back(given[*first_file]);
        caches.erase(std::find(caches.begin(), caches.end(), given[*first_file]));
    }
    if (traces.empty()) {
        std::cerr << "sdscprov profile: no trace given (every path is a directory, read as a "
                     "kernel cache): give the profiler's trace file\n";
        return false;
    }
    o.traces = traces;
    o.trace = traces.front();
    o.caches = caches;
    return true;
}

int run_profile_ranks(const ProfileCli& o) {
    quiet_mode = o.quiet;
    if (!o.annotate_trace.empty() || wants_baseline(o)) {
        std::cerr << "sdscprov profile: "
                  << (o.annotate_trace.empty() ? "--baseline" : "--annotate-trace")
                  << " takes one trace, and " << o.traces.size()
                  << " were given: profile the traces one by one\n";
        return exit_bad_input;
    }
    std::vector<Problem> problems;
    PairingSources sources;
    std::vector<std::string> roots;
    if (!pairing_sources(o, true, sources, roots, problems)) {
        return exit_bad_input;
    }
    const std::string digest = pairing_digest(sources);
    std::vector<ProfileReport> reports;
    for (const auto& trace : o.traces) {
        auto report = profile_trace(o, sources, trace, "read the traces:", false);
        if (!report) {
            print_problems(problems);
            std::cerr << "sdscprov profile: the trace " << quote_path(trace)
                      << " could not be read: no report\n";
            return exit_bad_input;
        }
        report->caches = roots;
        report->sources_digest = digest;
        report->problems.insert(report->problems.begin(), problems.begin(), problems.end());
        reports.push_back(std::move(*report));
    }
    std::optional<Problem> refusal;
    auto merged = merge_profiles(std::move(reports), refusal);
    if (!merged) {
        std::cerr << "sdscprov profile: " << problem_line(*refusal) << '\n';
        return exit_bad_input;
    }
    bool failed = false;
    if (!o.quiet) {
        failed |= !print_report(o, *merged);
    }
    print_problems(merged->problems);
    failed |= any_error(merged->problems);
    failed |= print_diagnostics(merged->diagnostics, o.quiet);
    return failed ? exit_bad_input : exit_ok;
}

} // namespace sdscprov::cli
