#include "help.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <vector>

namespace sdscprov::cli {

namespace {

// Levenshtein distance, small strings only.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::vector<const CLI::App*> commands(const CLI::App& app) {
    std::vector<const CLI::App*> out;
    for (const auto* sub : app.get_subcommands([](const CLI::App* s) {
             return !s->get_group().empty(); // an empty group hides a command
         })) {
        out.push_back(sub);
    }
    return out;
}

std::vector<const CLI::Option*> visible_options(const CLI::App& command) {
    std::vector<const CLI::Option*> out;
    for (const auto* opt : command.get_options()) {
        if (!opt->get_group().empty() && opt->get_name() != "--help") {
            out.push_back(opt);
        }
    }
    return out;
}

// The fixed values an option takes ({a,b,c} in its validators' descriptions), if any.
std::vector<std::string> choices(const CLI::Option& opt) {
    auto* self = const_cast<CLI::Option*>(&opt); // get_validator is not const in CLI11 2.1
    for (int i = 0;; ++i) {
        CLI::Validator* v = nullptr;
        try {
            v = self->get_validator(i);
        } catch (const CLI::OptionNotFound&) {
            break;
        }
        if (v == nullptr) {
            break;
        }
        std::string d = v->get_description();
        auto open = d.find('{');
        auto close = d.find('}', open);
        if (open == std::string::npos || close == std::string::npos) {
            continue;
        }
        std::vector<std::string> values;
        std::string value;
        for (char c : d.substr(open + 1, close - open - 1)) {
            if (c == ',') {
                values.push_back(value);
                value.clear();
            } else if (c != ' ') {
                value.push_back(c);
            }
        }
        values.push_back(value);
        return values;
    }
    return {};
}

// roff: a backslash is \e, a minus \-, and a line may not start with '.' or '\''.
std::string roff(std::string_view text) {
    std::string out;
    bool line_start = true;
    for (char c : text) {
        if (line_start && (c == '.' || c == '\'')) {
            out += "\\&";
        }
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else {
            out.push_back(c);
        }
        line_start = c == '\n';
    }
    return out;
}

// A flag expects no value.
bool takes_value(const CLI::Option& opt) {
    return opt.get_expected_max() > 0;
}

std::string option_synopsis(const CLI::Option& opt) {
    std::string names;
    for (const auto& s : opt.get_snames()) {
        names += (names.empty() ? "" : ", ") + std::string("\\fB\\-") + s + "\\fR";
    }
    for (const auto& l : opt.get_lnames()) {
        names += (names.empty() ? "" : ", ") + std::string("\\fB\\-\\-") + roff(l) + "\\fR";
    }
    if (takes_value(opt)) {
        std::string type = opt.get_type_name();
        type = type.substr(0, type.find(':')); // "TEXT:{a,b}": the values are listed apart
        names += " \\fI" + roff(type.empty() ? "VALUE" : type) + "\\fR";
    }
    return names;
}

// A footer holds paragraphs and "Example:" lines; examples are shown as such.
void footer(std::ostream& out, const std::string& text) {
    if (text.empty()) {
        return;
    }
    std::istringstream lines(text);
    std::string line;
    bool in_example = false;
    while (std::getline(lines, line)) {
        bool indented = line.starts_with("  ");
        if (indented && !in_example) {
            out << ".PP\n.nf\n";
            in_example = true;
        } else if (!indented && in_example) {
            out << ".fi\n";
            in_example = false;
        }
        if (!indented) {
            out << ".PP\n";
        }
        out << roff(indented ? std::string_view(line).substr(2) : std::string_view(line)) << '\n';
    }
    if (in_example) {
        out << ".fi\n";
    }
}

} // namespace

std::optional<std::string> suggest_command(const CLI::App& app, std::string_view typo) {
    std::optional<std::string> best;
    std::size_t best_distance = 3; // at most two edits
    for (const auto* sub : commands(app)) {
        std::size_t d = edit_distance(typo, sub->get_name());
        if (d < best_distance) {
            best = sub->get_name();
            best_distance = d;
        }
    }
    return best;
}

void write_man_page(std::ostream& out, const CLI::App& app) {
    std::string name = app.get_name();
    out << ".\\\" Generated by `" << name << " help --man` from the command-line definition.\n";
    out << ".TH SDSCPROV 1 \"\" \"" << roff(name + " " + SDSCPROV_VERSION)
        << "\" \"User Commands\"\n";
    out << ".SH NAME\n" << roff(name) << " \\- " << roff(app.get_description()) << '\n';
    out << ".SH SYNOPSIS\n.B " << roff(name)
        << "\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]\n";
    out << ".br\n.B " << roff(name) << "\nhelp [\\fICOMMAND\\fR]\n";
    out << ".SH COMMANDS\n";
    for (const auto* command : commands(app)) {
        out << ".SS \"" << roff(name + " " + command->get_name()) << "\"\n";
        out << roff(command->get_description()) << '\n';
        for (const auto* opt : visible_options(*command)) {
            out << ".TP\n";
            if (opt->get_positional()) {
                out << "\\fI" << roff(opt->get_name()) << "\\fR"
                    << (opt->get_items_expected_max() > 1 ? " ..." : "") << '\n';
            } else {
                out << option_synopsis(*opt) << '\n';
            }
            out << roff(opt->get_description());
            auto values = choices(*opt);
            if (!values.empty()) {
                std::string list;
                for (const auto& v : values) {
                    list += (list.empty() ? "" : ", ") + v;
                }
                out << " (" << roff(list) << ")";
            }
            out << '\n';
        }
        footer(out, command->get_footer());
    }
    out << ".SH EXIT STATUS AND ENVIRONMENT\n";
    footer(out, app.get_footer());
}

void write_bash_completion(std::ostream& out, const CLI::App& app) {
    std::string name = app.get_name();
    std::string list;
    for (const auto* command : commands(app)) {
        list += (list.empty() ? "" : " ") + command->get_name();
    }
    out << "# bash completion for " << name << ", generated by `" << name
        << " completion bash` from the command-line definition.\n";
    out << "_" << name << "() {\n";
    out << "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
    out << "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n";
    out << "        COMPREPLY=($(compgen -W \"" << list
        << " help --version --help\" -- \"$cur\"))\n";
    out << "        return\n    fi\n";
    out << "    case ${COMP_WORDS[1]} in\n";
    out << "    help)\n        COMPREPLY=($(compgen -W \"" << list
        << "\" -- \"$cur\"))\n        return;;\n";
    for (const auto* command : commands(app)) {
        std::string options = "--help --version";
        std::string values_case;
        bool takes_paths = false;
        for (const auto* opt : visible_options(*command)) {
            if (opt->get_positional()) {
                takes_paths = true;
                continue;
            }
            std::string names;
            for (const auto& s : opt->get_snames()) {
                names += (names.empty() ? "" : "|") + ("-" + s);
            }
            for (const auto& l : opt->get_lnames()) {
                options += " --" + l;
                names += (names.empty() ? "" : "|") + ("--" + l);
            }
            auto values = choices(*opt);
            if (!values.empty()) {
                std::string words;
                for (const auto& v : values) {
                    words += (words.empty() ? "" : " ") + v;
                }
                values_case += "        " + names + ") COMPREPLY=($(compgen -W \"" + words +
                               "\" -- \"$cur\")); return;;\n";
            } else if (takes_value(*opt)) {
                values_case +=
                    "        " + names + ") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n";
            }
        }
        out << "    " << command->get_name() << ")\n";
        out << "        case $prev in\n" << values_case << "        esac\n";
        out << "        if [[ $cur == -* ]]; then\n";
        out << "            COMPREPLY=($(compgen -W \"" << options << "\" -- \"$cur\"))\n";
        if (takes_paths) {
            out << "        else\n            COMPREPLY=($(compgen -f -- \"$cur\"))\n";
        }
        out << "        fi\n        return;;\n";
    }
    out << "    esac\n}\n";
    out << "complete -o filenames -o bashdefault -F _" << name << ' ' << name << '\n';
}

} // namespace sdscprov::cli
