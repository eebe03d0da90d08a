#include "help.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <sstream>
#include <vector>

namespace sdscprov::usage {

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

} // namespace

namespace help_parts {

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

bool takes_value(const CLI::Option& opt) {
    return opt.get_expected_max() > 0;
}

std::string value_name(const CLI::Option& opt) {
    std::string type = opt.get_type_name();
    type = type.substr(0, type.find(':')); // "TEXT:{a,b}": the values are listed apart
    static const char* const generic[] = {"",       "TEXT",    "UINT", "INT", "FLOAT",
                                          "NUMBER", "BOOLEAN", "FILE", "DIR", "PATH"};
    if (std::find(std::begin(generic), std::end(generic), type) == std::end(generic)) {
        return type;
    }
    // What the value is, where the option's name does not say it in one word.
    static const std::map<std::string, std::string, std::less<>> named = {
        {"annotate-trace", "FILE"}, {"by", "TABLE"},        {"color", "WHEN"},
        {"durability", "MODE"},     {"jobs", "N"},          {"mappings", "FILE"},
        {"max-file-size", "SIZE"},  {"origins", "SIDECAR"}, {"top", "N"}};
    const auto& longs = opt.get_lnames();
    std::string name = longs.empty() ? opt.get_name() : longs.front();
    if (auto it = named.find(name); it != named.end()) {
        return it->second;
    }
    name = name.substr(name.rfind('-') + 1);
    for (char& c : name) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return name.empty() ? "VALUE" : name;
}

std::string positional_synopsis(const CLI::Option& opt) {
    std::string name = opt.get_name();
    bool many = opt.get_items_expected_max() > 1;
    if (many && name.size() > 1 && name.back() == 's') {
        name.pop_back(); // paths: PATH...
    }
    for (char& c : name) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    if (many) {
        name += "...";
    }
    return opt.get_required() ? name : "[" + name + "]";
}

std::string command_synopsis(const CLI::App& app, const CLI::App& command) {
    std::string out = app.get_name() + " " + command.get_name();
    std::string positionals;
    for (const auto* opt : visible_options(command)) {
        if (opt->get_positional()) {
            positionals += " " + positional_synopsis(*opt);
        } else if (opt->get_required()) {
            out += " " + opt->get_name() + " " + value_name(*opt);
        }
    }
    return out + " [OPTIONS]" + positionals;
}

} // namespace help_parts

std::optional<std::string> suggest_command(const CLI::App& app, std::string_view typo) {
    using help_parts::commands;
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

std::optional<std::string> missing_argument_message(const CLI::App& app) {
    using help_parts::command_synopsis;
    using help_parts::commands;
    using help_parts::positional_synopsis;
    using help_parts::value_name;
    using help_parts::visible_options;
    for (const auto* command : app.get_subcommands()) { // the command given
        std::vector<const CLI::Option*> missing;
        for (const auto* opt : visible_options(*command)) {
            if (opt->get_required() && opt->count() == 0) {
                missing.push_back(opt);
            }
        }
        if (missing.empty()) {
            continue;
        }
        const CLI::Option& first = *missing.front();
        std::string what = first.get_positional() ? positional_synopsis(first)
                                                  : first.get_name() + " " + value_name(first);
        if (what.ends_with("...")) {
            what.resize(what.size() - 3);
        }
        std::string description = first.get_description();
        // "Kernel cache ...", "A kernel name ..." go on the line in lower case; "SDSC ..." not.
        if (!description.empty() && std::isupper(static_cast<unsigned char>(description[0])) &&
            (description.size() < 2 || !std::isupper(static_cast<unsigned char>(description[1])))) {
            description[0] =
                static_cast<char>(std::tolower(static_cast<unsigned char>(description[0])));
        }
        std::string out = app.get_name() + " " + command->get_name() + ": " + what +
                          " is missing: " + description + ".\n";
        out += "Usage: " + command_synopsis(app, *command) + "\n";
        const std::string& footer = command->get_footer();
        if (auto example = footer.find("Example:\n  "); example != std::string::npos) {
            auto begin = example + 11;
            out += "For example: " + footer.substr(begin, footer.find('\n', begin) - begin) + "\n";
        }
        out += "Run '" + app.get_name() + " help " + command->get_name() + "' for its options.\n";
        return out;
    }
    if (app.get_subcommands().empty()) {
        std::string list;
        for (const auto* command : commands(app)) {
            list += (list.empty() ? "" : ", ") + command->get_name();
        }
        return app.get_name() + ": a command is missing: one of " + list + ".\n" +
               "Usage: " + app.get_name() + " COMMAND [OPTIONS] [ARGS]\nRun '" + app.get_name() +
               " help' for what each does.\n";
    }
    return std::nullopt;
}

} // namespace sdscprov::usage
