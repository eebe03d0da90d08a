// sdscprov: the command-line front. It parses options and hands each command to its front
// (scan.cpp, annotate.cpp, ...), which wires the library's stages together; the work is done in
// the library (include/sdscprov/).
#include "commands.hpp"
#include "help.hpp"
#include "profile.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <exception>
#include <fcntl.h>
#include <iostream>
#include <optional>
#include <string_view>
#include <unistd.h>

using namespace sdscprov::cli;

namespace {

// What is answered before the command line is parsed, as git does: `--version` anywhere (before
// `--`), `help [COMMAND]` (and `help --man`, the man page), and a mistyped command with the
// command it most likely means. nullopt: parse as usual.
std::optional<int> before_parsing(CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
        if (std::string_view(argv[i]) == "--version") {
            std::cout << "sdscprov " << SDSCPROV_VERSION << '\n';
            return exit_ok;
        }
    }
    if (argc < 2 || argv[1][0] == '-') {
        return std::nullopt;
    }
    std::string_view first = argv[1];
    auto unknown = [&](std::string_view name) {
        std::cerr << "sdscprov: unknown command '" << name << "'";
        if (auto guess = sdscprov::cli::suggest_command(app, name)) {
            std::cerr << "; did you mean '" << *guess << "'?";
        }
        std::cerr << "\nRun 'sdscprov help' for the list of commands.\n";
        return exit_bad_input;
    };
    if (first == "help") {
        if (argc == 2) {
            std::cout << app.help();
        } else if (std::string_view(argv[2]) == "--man") {
            sdscprov::cli::write_man_page(std::cout, app);
        } else {
            CLI::App* command = nullptr;
            try {
                command = app.get_subcommand(argv[2]);
            } catch (const CLI::OptionNotFound&) {
                return unknown(argv[2]);
            }
            std::cout << command->help(app.get_name());
        }
        return exit_ok;
    }
    try {
        app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
        return unknown(first);
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    // A closed standard descriptor would be taken by the next file opened, a temporary perhaps,
    // and the report written into it: each is held by /dev/null, read-only, so that writing the
    // report fails (with_report_written()) instead.
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
            ::open("/dev/null", O_RDONLY | O_NOCTTY) != fd) {
            return exit_internal;
        }
    }
    // Ctrl-C, kill, a closed terminal or a closed report pipe: our temporaries go with us.
    sdscprov::remove_temps_on_signals();
    // A file size limit (ulimit -f) fails a write with EFBIG, reported, instead of killing us.
    sdscprov::ignore_file_size_signal();
    CLI::App app{"provenance for torch-spyre SuperDSC kernel files", "sdscprov"};
    app.set_version_flag("--version", std::string("sdscprov ") + SDSCPROV_VERSION);
    app.require_subcommand(1);
    app.footer("Exit status: 0 done, 1 changes pending (annotate --check) or findings (check), "
               "2 bad input or usage error, 3 internal error.\n"
               "Errors and warnings go to standard error as path:line:col lines; reports to "
               "standard output.\n"
               "Environment: TORCHINDUCTOR_CACHE_DIR (the default cache of explain and profile); "
               "NO_COLOR (no colour unless --color always); COLUMNS (the width of text reports); "
               "SDSCPROV_IO_URING=0 (open files without io_uring).\n"
               "Run 'sdscprov help COMMAND' for a command's options.");

    CommonOptions scan_options;
    auto* scan = add_scan_command(app, scan_options);
    AnnotateCli annotate_options;
    auto* annotate = add_annotate_command(app, annotate_options);
    StripCli strip_options;
    auto* strip = add_strip_command(app, strip_options);
    ExplainCli explain_options;
    auto* explain = add_explain_command(app, explain_options);
    CheckCli check_options;
    auto* check = add_check_command(app, check_options);
    std::vector<std::string> merge_reports;
    auto* merge = add_merge_command(app, merge_reports);
    ProfileCli profile_options;
    auto* profile = add_profile_command(app, profile_options);

    std::string shell;
    auto* completion = app.add_subcommand(
        "completion", "Print a shell completion script (bash, zsh or fish), generated from these "
                      "options");
    completion->add_option("shell", shell, "The shell: bash, zsh or fish")
        ->required()
        ->check(CLI::IsMember(std::vector<std::string>(std::begin(completion_shells),
                                                       std::end(completion_shells))));
    completion->footer(
        "Example:\n  mkdir -p ~/.local/share/bash-completion/completions && "
        "sdscprov completion bash > ~/.local/share/bash-completion/completions/sdscprov\n"
        "  mkdir -p ~/.zfunc && sdscprov completion zsh > ~/.zfunc/_sdscprov   # fpath+=(~/.zfunc) "
        "in ~/.zshrc, before compinit\n"
        "  mkdir -p ~/.config/fish/completions && "
        "sdscprov completion fish > ~/.config/fish/completions/sdscprov.fish");

    if (auto early = before_parsing(app, argc, argv)) {
        return with_report_written(*early);
    }
    try {
        app.parse(argc, argv);
        for (const auto* options : {&scan_options, &annotate_options.common, &strip_options.common,
                                    &check_options.common}) {
            quiet_mode |= options->quiet;
        }
    } catch (const CLI::RequiredError& e) {
        // What is missing and how a run looks, rather than CLI11's "paths is required".
        if (auto message = missing_argument_message(app)) {
            std::cerr << *message;
            return with_report_written(exit_bad_input);
        }
        app.exit(e);
        return with_report_written(exit_bad_input);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return with_report_written(rc == 0 ? exit_ok : exit_bad_input);
    }
    try {
        if (scan->parsed()) {
            return with_report_written(run_scan(scan_options));
        }
        if (annotate->parsed()) {
            return with_report_written(run_annotate(annotate_options));
        }
        if (check->parsed()) {
            return with_report_written(run_check(check_options));
        }
        if (strip->parsed()) {
            return with_report_written(run_strip(strip_options));
        }
        if (explain->parsed()) {
            return with_report_written(run_explain(explain_options));
        }
        if (merge->parsed()) {
            return with_report_written(run_merge(merge_reports));
        }
        if (completion->parsed()) {
            write_completion(std::cout, app, shell);
            return with_report_written(exit_ok);
        }
        if (profile->parsed()) {
            return with_report_written(run_profile(profile_options));
        }
    } catch (const std::exception& e) {
        std::cerr << "sdscprov: internal error: " << e.what() << '\n';
        return exit_internal;
    }
    return exit_internal;
}
