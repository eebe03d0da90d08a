// The sources profile pairs trace events with, for one trace and for --baseline's two: the
// --origins sidecars and the kernel caches (given, else the default cache roots).
#include "common.hpp"
#include "profile.hpp"
#include "progress.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/handle_index.hpp"
#include "sdscprov/profile/trace.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

namespace sdscprov::cli {

bool pairing_sources(const ProfileCli& o, bool several, PairingSources& sources,
                     std::vector<std::string>& roots, std::vector<Problem>& problems) {
    const char* what = several ? "traces" : "trace";
    if (!read_spyre_sidecars(o.origins, o.max_file_size, sources, problems)) {
        print_problems(problems);
        std::cerr << "sdscprov profile: fix the --origins file first: the " << what
                  << (several ? " were" : " was") << " not read\n";
        return false;
    }

    roots = o.caches;
    if (roots.empty()) {
        struct stat st {};
        for (auto& root : default_cache_roots()) {
            if (::stat(root.c_str(), &st) == 0) {
                roots.push_back(root);
            } else if (sources.sidecars.empty()) {
                std::cerr << "sdscprov profile: no --origins sidecar and no kernel cache at "
                          << quote_path(root)
                          << " (give the caches on the command line): nothing to pair "
                          << "the " << what << " with\n";
                return false;
            }
        }
    } else {
        for (const auto& root : roots) {
            struct stat st {};
            if (::stat(root.c_str(), &st) != 0) {
                std::string reason = std::string("cannot access: ") + std::strerror(errno);
                print_problems({make_problem(root, {}, ProblemCode::bad_argument, reason)});
                return false;
            }
        }
    }
    sources.utilization.core_mhz = o.core_mhz; // checked with the options: from 1 MHz
    sources.utilization.read = IdealReadOptions{o.max_file_size, o.discover.follow_symlinks};
    if (!roots.empty()) {
        HandleIndexOptions index_options;
        index_options.discover = o.discover;
        index_options.max_file_size = o.max_file_size;
        index_options.jobs = o.jobs;
        auto indexed = index_handles(roots, index_options);
        sources.caches = std::move(indexed.index);
        problems.insert(problems.end(), indexed.problems.begin(), indexed.problems.end());
    }
    return true;
}

TraceReadResult read_trace(TraceReader& reader, TraceHandler& handler, const std::string& trace,
                           const char* progress_label) {
    Progress progress(progress_label, false);
    TraceProgress counted(handler, progress, trace);
    TraceReadResult read =
        reader.read(trace, progress.enabled() ? static_cast<TraceHandler&>(counted) : handler);
    progress.clear();
    return read;
}

std::optional<ProfileReport> profile_trace(const ProfileCli& o, const PairingSources& sources,
                                           const std::string& trace, const char* progress_label,
                                           bool record_steps) {
    TraceReader reader(TraceReaderOptions{.threads = o.jobs});
    ProfileBuilder builder(sources, trace, reader);
    if (record_steps) {
        builder.record_steps();
    }
    TraceReadResult read = read_trace(reader, builder, trace, progress_label);
    if (read.error) {
        print_problems({*read.error});
        return std::nullopt;
    }
    ProfileReport report = builder.finish(read);
    read_line_texts(report, o.source_rule);
    return report;
}

} // namespace sdscprov::cli
