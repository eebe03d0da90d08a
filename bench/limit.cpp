// The benchmark's limit: read every file into one reused buffer and parse it with simdjson's DOM
// parser, nothing else. `sdscprov scan` is compared with this loop at the same number of threads.
// Usage: sdscprov-bench-limit -j N FILE_LIST   (FILE_LIST: one path per line)
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <simdjson.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// Reads a whole regular file into `buffer` (with simdjson's padding); returns its length or -1.
long read_file(const std::string& path, std::vector<char>& buffer) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        return -1;
    }
    auto size = static_cast<std::size_t>(st.st_size);
    if (buffer.size() < size + 1 + simdjson::SIMDJSON_PADDING) {
        buffer.resize(size + size / 2 + 1 + simdjson::SIMDJSON_PADDING);
    }
    ssize_t got = ::read(fd, buffer.data(), size + 1);
    ::close(fd);
    return got < 0 ? -1 : static_cast<long>(got);
}

} // namespace

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
            std::vector<char> buffer;
            for (std::size_t i; (i = next.fetch_add(1)) < paths.size();) {
                long n = read_file(paths[i], buffer);
                if (n < 0 ||
                    parser.parse(buffer.data(), static_cast<std::size_t>(n), false).error()) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    std::printf("%zu files, %zu failures\n", paths.size(), failures.load());
    return failures.load() == 0 ? 0 : 1;
}
