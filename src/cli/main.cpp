// sdscprov: the command-line front. It parses options and hands each command to its front
// (scan.cpp, annotate.cpp, ...), which wires the library's stages together; the work is done in
// the library (include/sdscprov/).
#include "commands.hpp"
#include "messages.hpp"
#include "profile.hpp"
#include "sdscprov/core/display.hpp"
#include "usage/help.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <exception>
#include <fcntl.h>
#include <functional>
#include <iostream>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <vector>

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
        std::string sentence = "unknown command '" + sdscprov::printable_text(name) + "'";
        if (auto guess = sdscprov::usage::suggest_command(app, name)) {
            sentence += "; did you mean '" + *guess + "'?";
        }
        messages::error("", sentence + "\nRun 'sdscprov help' for the list of commands.");
        return exit_bad_input;
    };
    if (first == "help") {
        if (argc == 2) {
            std::cout << app.help();
        } else if (std::string_view(argv[2]) == "--man") {
            sdscprov::usage::write_man_page(std::cout, app);
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

// Every command's options, as the command line fills them.
struct Parsed {
    CommonOptions scan;
    AnnotateCli annotate;
    StripCli strip;
    ExplainCli explain;
    CheckCli check;
    std::vector<std::string> merge;
    ProfileCli profile;
    std::string shell; // completion
};

void add_completion_options(CLI::App& completion, std::string& shell) {
    completion.add_option("shell", shell, "The shell: bash, zsh or fish")
        ->required()
        ->check(
            CLI::IsMember(std::vector<std::string>(std::begin(sdscprov::usage::completion_shells),
                                                   std::end(sdscprov::usage::completion_shells))));
    completion.footer(
        "Example:\n  mkdir -p ~/.local/share/bash-completion/completions && "
        "sdscprov completion bash > ~/.local/share/bash-completion/completions/sdscprov\n"
        "  mkdir -p ~/.zfunc && sdscprov completion zsh > ~/.zfunc/_sdscprov   # fpath+=(~/.zfunc) "
        "in ~/.zshrc, before compinit\n"
        "  mkdir -p ~/.config/fish/completions && "
        "sdscprov completion fish > ~/.config/fish/completions/sdscprov.fish");
}

// A command: its name and summary (what `sdscprov help`, the man page and the completions list,
// in this order), its options and arguments, and its run once they are parsed.
struct Command {
    const char* name;
    const char* summary;
    std::function<void(CLI::App&)> setup;
    std::function<int()> run;
};

std::vector<Command> command_table(Parsed& o, const CLI::App& app) {
    return {
        {"scan", "Report, per kernel directory, how much provenance the SuperDSC files carry",
         [&](CLI::App& c) { add_scan_options(c, o.scan); }, [&] { return run_scan(o.scan); }},
        {"annotate", "Write debug_handle_ into SuperDSC files from the compile's origins map",
         [&](CLI::App& c) { add_annotate_options(c, o.annotate); },
         [&] { return run_annotate(o.annotate); }},
        {"strip", "Set every debug_handle_ to null (or remove it), touching no other byte",
         [&](CLI::App& c) { add_strip_options(c, o.strip); }, [&] { return run_strip(o.strip); }},
        {"explain", "Show, op by op, where a kernel comes from: source line, ATen op, FX nodes",
         [&](CLI::App& c) { add_explain_options(c, o.explain); },
         [&] { return run_explain(o.explain); }},
        {"check",
         "Gate for golden kernels and CI: exit 1 if any SDSC file lacks a populated, "
         "well-formed debug_handle_ (or, with --origins, holds another handle)",
         [&](CLI::App& c) { add_check_options(c, o.check); }, [&] { return run_check(o.check); }},
        {"merge",
         "Join the JSON reports of a run's shards (--shard I/N) into the report of one run over "
         "the same caches, or profile reports of several traces into one",
         [&](CLI::App& c) { add_merge_options(c, o.merge); }, [&] { return run_merge(o.merge); }},
        {"profile",
         "Rank a profiler trace's device time by model source line, ATen op and kernel, pairing "
         "each kernel event with its provenance",
         [&](CLI::App& c) { add_profile_options(c, o.profile); },
         [&] { return run_profile(o.profile); }},
        {"completion",
         "Print a shell completion script (bash, zsh or fish), generated from these options",
         [&](CLI::App& c) { add_completion_options(c, o.shell); },
         [&] {
             sdscprov::usage::write_completion(std::cout, app, o.shell);
             return exit_ok;
         }},
    };
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

    Parsed parsed;
    std::vector<Command> commands = command_table(parsed, app);
    std::vector<CLI::App*> subcommands;
    for (const auto& command : commands) {
        subcommands.push_back(app.add_subcommand(command.name, command.summary));
        command.setup(*subcommands.back());
    }

    if (auto early = before_parsing(app, argc, argv)) {
        return with_report_written(*early);
    }
    try {
        app.parse(argc, argv);
        // --quiet of whichever command was parsed, known to the messages from here on.
        messages::set_quiet(parsed.scan.quiet || parsed.annotate.common.quiet ||
                            parsed.strip.common.quiet || parsed.check.common.quiet ||
                            parsed.profile.quiet);
    } catch (const CLI::RequiredError& e) {
        // What is missing and how a run looks, rather than CLI11's "paths is required".
        if (auto message = sdscprov::usage::missing_argument_message(app)) {
            messages::raw(*message);
            return with_report_written(exit_bad_input);
        }
        app.exit(e);
        return with_report_written(exit_bad_input);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return with_report_written(rc == 0 ? exit_ok : exit_bad_input);
    }
    try {
        for (std::size_t i = 0; i < commands.size(); ++i) {
            if (subcommands[i]->parsed()) {
                return with_report_written(commands[i].run());
            }
        }
    } catch (const std::exception& e) {
        messages::error("", std::string("internal error: ") + e.what());
        return exit_internal;
    }
    return exit_internal;
}
