// The profile benchmark's limit: read the whole trace into memory and parse it with simdjson's
// DOM parser, nothing else (no pairing, no report). `sdscprov profile` is compared with this.
// Usage: sdscprov-bench-trace-limit TRACE.json   (plain JSON; prints the element count)
#include <iostream>
#include <simdjson.h>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: sdscprov-bench-trace-limit TRACE.json\n";
        return 2;
    }
    simdjson::padded_string text;
    if (auto error = simdjson::padded_string::load(argv[1]).get(text)) {
        std::cerr << argv[1] << ": " << simdjson::error_message(error) << '\n';
        return 2;
    }
    simdjson::dom::parser parser;
    simdjson::dom::array events;
    if (auto error = parser.parse(text)["traceEvents"].get_array().get(events)) {
        std::cerr << argv[1] << ": " << simdjson::error_message(error) << '\n';
        return 2;
    }
    std::cout << events.size() << " events\n";
    return 0;
}
