// `sdscprov merge REPORTS...`: the shards' JSON reports joined into one run's report.
#include "sdscprov/report/merge.hpp"

#include "commands.hpp"
#include "common.hpp"
#include "messages.hpp"
#include "sdscprov/core/display.hpp"

#include <algorithm>
#include <iostream>

namespace sdscprov::cli {

void add_merge_options(CLI::App& merge, std::vector<std::string>& reports) {
    merge
        .add_option("reports", reports,
                    "The JSON reports of every shard (scan, annotate, strip or check, "
                    "--format json), in any order; or profile reports (profile --format json) "
                    "of traces profiled one by one. Each a file, a pipe or FIFO "
                    "(<(ssh host cat shard.json)), or - for standard input (once)")
        ->required();
    merge.footer("Example:\n  for i in 1 2 3; do sdscprov scan --format json --shard $i/3 cache/ "
                 "> shard-$i.json; done\n"
                 "  sdscprov merge shard-*.json > report.json\n"
                 "Profile reports of traces profiled one by one (profile TRACE --format json):\n"
                 "  sdscprov merge rank*.profile.json > ranks.json\n"
                 "Shards streamed from other hosts:\n"
                 "  sdscprov merge <(ssh h1 cat shard-1.json) <(ssh h2 cat shard-2.json) > "
                 "report.json\n"
                 "Exit status: 0 merged, 2 the reports cannot be read or merged (other commands, "
                 "versions or shardings, a shard missing or twice, not a shard report; profile "
                 "reports of other caches or versions).");
}

// merge: the shards' JSON reports (--shard I/N, --format json) into the single run's report, or
// profile reports into one. A stream that keeps the merge waiting is said once on standard
// error, whatever standard error is: a CI log shows what a stuck job waits for, and the line is
// not a progress line (nothing is rewritten in place). Ctrl-C ends the wait (the signal's exit
// status, 130 in a shell), before anything is written to standard output.
int run_merge(const std::vector<std::string>& paths) {
    if (std::count(paths.begin(), paths.end(), "-") > 1) {
        messages::error("merge", "standard input (-) is given more than once: it holds one report");
        return exit_bad_input;
    }
    StreamWait wait;
    wait.waiting = [](const std::string& path, std::string_view kind) {
        messages::error("merge", "waiting for data on " +
                                     (path == "-" ? std::string("standard input")
                                                  : quote_path(path)) +
                                     " (" + std::string(kind) + ") ...");
    };
    auto merged = merge_report_files(paths, wait);
    if (merged.unreadable) {
        messages::problems({*merged.unreadable});
        messages::error("merge", "cannot read " + quote_path(merged.unreadable->path) +
                                     ": nothing merged");
        return exit_bad_input;
    }
    if (merged.refusal) {
        messages::error("merge", problem_line(*merged.refusal));
        return exit_bad_input;
    }
    std::cout << merged.report;
    return exit_ok; // written or not: main's with_report_written() says
}

} // namespace sdscprov::cli
