// The benchmark's limit: read every file and parse it with simdjson's DOM parser, nothing else.
// `sdscprov scan` is compared with this loop, at the same number of threads.
// Usage: sdscprov-bench-limit -j N FILE_LIST   (FILE_LIST: one path per line)
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <simdjson.h>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    unsigned jobs = 1;
    const char* list = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            jobs = static_cast<unsigned>(std::stoul(argv[++i]));
        } else {
            list = argv[i];
        }
    }
    if (list == nullptr || jobs == 0) {
        std::cerr << "usage: sdscprov-bench-limit -j N FILE_LIST\n";
        return 2;
    }
    std::vector<std::string> paths;
    std::ifstream in(list);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) {
            paths.push_back(line);
        }
    }
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> failures{0};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) {
        threads.emplace_back([&] {
            simdjson::dom::parser parser;
            for (std::size_t i; (i = next.fetch_add(1)) < paths.size();) {
                auto loaded = simdjson::padded_string::load(paths[i]);
                if (loaded.error() || parser.parse(loaded.value_unsafe()).error()) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    std::printf("%zu files, %zu failures\n", paths.size(), failures.load());
    return 0;
}
