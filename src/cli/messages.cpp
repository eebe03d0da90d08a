#include "messages.hpp"

#include "sdscprov/core/display.hpp"

#include <iostream>
#include <map>

namespace sdscprov::cli::messages {

namespace {

bool quiet_ = false;

void line(std::string_view command, std::string_view sentence) {
    std::cerr << "sdscprov";
    if (!command.empty()) {
        std::cerr << ' ' << command;
    }
    std::cerr << ": " << sentence << '\n';
}

} // namespace

void set_quiet(bool quiet) {
    quiet_ = quiet;
}

bool quiet() {
    return quiet_;
}

bool problems(const std::vector<Problem>& problems) {
    bool errors = false;
    for (const auto& p : problems) {
        errors |= p.severity == Severity::error;
        if (quiet_ && p.severity != Severity::error) {
            continue;
        }
        std::cerr << problem_line(p) << '\n';
    }
    return errors;
}

bool capped(std::string_view command, std::initializer_list<const std::vector<Problem>*> lists,
            std::size_t per_code) {
    bool errors = false;
    std::map<ProblemCode, std::size_t> printed;
    std::map<ProblemCode, std::uint64_t> left_out;
    for (const auto* list : lists) {
        for (const auto& d : *list) {
            errors |= d.severity == Severity::error;
            if (quiet_ && d.severity != Severity::error) {
                continue;
            }
            if (printed[d.code]++ >= per_code) {
                ++left_out[d.code];
                continue;
            }
            std::cerr << problem_line(d) << '\n';
        }
    }
    for (const auto& [code, n] : left_out) {
        line(command, std::to_string(n) + " more " + std::string(to_string(code)) +
                          (n == 1 ? " line" : " lines") + " (--all prints them)");
    }
    return errors;
}

void error(std::string_view command, std::string_view sentence) {
    line(command, sentence);
}

void note(std::string_view command, std::string_view sentence) {
    if (!quiet_) {
        line(command, sentence);
    }
}

void raw(std::string_view text) {
    std::cerr << text;
}

} // namespace sdscprov::cli::messages
