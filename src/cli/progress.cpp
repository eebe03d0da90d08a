#include "progress.hpp"
#include "messages.hpp"

#include "common.hpp"

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov::cli {

namespace {

// 1234567 as "1,234,567".
std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out.push_back(',');
        }
        out.push_back(digits[i]);
    }
    return out;
}

std::string megabytes(std::uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / 1e6);
    return buf;
}

std::string percent(std::uint64_t done, std::uint64_t total) {
    return " (" + std::to_string(total == 0 || done >= total ? 100 : done * 100 / total) + "%)";
}

} // namespace

Progress::Progress(std::string verb, bool report_streams)
    : verb_(std::move(verb)), enabled_(!messages::quiet() && ::isatty(STDERR_FILENO) != 0 &&
                                       !(report_streams && ::isatty(STDOUT_FILENO) != 0)),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

Progress::~Progress() {
    clear();
}

void Progress::clear() {
    if (shown_) {
        std::cerr << '\r' << std::string(shown_columns_, ' ') << '\r' << std::flush;
        shown_ = false;
        shown_columns_ = 0;
    }
}

KernelSource Progress::counting(KernelSource source) {
    if (!enabled_) {
        return source;
    }
    return [this, source = std::move(source)](const std::function<void(KernelDir &&)>& on_dir,
                                              const std::function<void(Problem &&)>& on_problem) {
        auto stats = source(
            [&](KernelDir&& d) {
                found_.fetch_add(d.files.size(), std::memory_order_relaxed);
                on_dir(std::move(d));
            },
            on_problem);
        walked_.store(true, std::memory_order_release);
        return stats;
    };
}

void Progress::total(std::uint64_t files) {
    found_.store(files, std::memory_order_relaxed);
    walked_.store(true, std::memory_order_release);
}

bool Progress::due() {
    if (!enabled_) {
        return false;
    }
    auto now = std::chrono::steady_clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(100)) {
        return false;
    }
    last_ = now;
    return true;
}

void Progress::show(const std::string& line) {
    std::string text = "sdscprov: " + line;
    // One line of the terminal: a wrapped line could not be erased by "\r".
    std::size_t width = text_width(STDERR_FILENO);
    if (text.size() >= width) {
        text.resize(width - 1);
    }
    // Spaces, not a terminal escape, erase what is left of the line before: any terminal (and
    // NO_COLOR's promise of no escapes) is served.
    std::size_t columns = text.size();
    if (columns < shown_columns_) {
        text.append(shown_columns_ - columns, ' ');
    }
    std::cerr << '\r' << text << std::flush;
    shown_ = true;
    shown_columns_ = columns;
}

void Progress::kernel(std::size_t files) {
    files_ += files;
    if (!due()) {
        return;
    }
    bool walked = walked_.load(std::memory_order_acquire);
    std::uint64_t found = std::max(found_.load(std::memory_order_relaxed), files_);
    double seconds = std::chrono::duration<double>(last_ - start_).count();
    std::string line = verb_ + " " + grouped(files_) + "/" + grouped(found) + (walked ? "" : "+") +
                       " files" + (walked ? percent(files_, found) : std::string());
    if (seconds >= 0.2) {
        line += ", " + grouped(static_cast<std::uint64_t>(static_cast<double>(files_) / seconds)) +
                " files/s";
    }
    show(line);
}

void Progress::bytes(std::uint64_t done, std::uint64_t total) {
    if (!due()) {
        return;
    }
    double seconds = std::chrono::duration<double>(last_ - start_).count();
    std::string line =
        verb_ + " " + megabytes(done) +
        (total > 0 ? "/" + megabytes(total) + " MB" + percent(done, total) : std::string(" MB"));
    if (seconds >= 0.2) {
        line += ", " + megabytes(static_cast<std::uint64_t>(static_cast<double>(done) / seconds)) +
                " MB/s";
    }
    show(line);
}

TraceProgress::TraceProgress(TraceHandler& inner, Progress& progress, const std::string& trace)
    : inner_(inner), progress_(progress) {
    int fd = trace == "-" ? -1 : ::open(trace.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    unsigned char magic[2] = {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        !(::read(fd, magic, 2) == 2 && magic[0] == 0x1F && magic[1] == 0x8B)) {
        total_ = static_cast<std::uint64_t>(st.st_size);
    }
    if (fd >= 0) {
        ::close(fd);
    }
}

void TraceProgress::bytes(std::string_view text) {
    inner_.bytes(text);
    done_ += text.size();
    progress_.bytes(done_, total_);
}

} // namespace sdscprov::cli
