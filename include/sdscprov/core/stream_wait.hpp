// An input the user names on the command line may be a stream (a pipe, a FIFO, standard input:
// a shard streamed from another host, `<(ssh host cat shard.json)`). A read of a stream waits for
// its writer, and a FIFO nobody writes to would wait for ever without a word: the reader says
// once that it waits, through StreamWait, and a signal (Ctrl-C) ends the wait.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace sdscprov {

struct StreamWait {
    // `waiting` is called once per input when no byte of it has come for this long.
    std::chrono::milliseconds after{1000};
    // The input as named ("-": standard input) and what it is ("a pipe", "a terminal"); the read
    // goes on waiting. Empty: nothing is said.
    std::function<void(const std::string& path, std::string_view kind)> waiting;
};

} // namespace sdscprov
