#include "write/temp_registry.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace sdscprov::detail {

// The library's one piece of global state: a signal handler can reach nothing else. A slot holds
// the name of a temporary that may exist, or null; slots are never freed (there are as many as
// temporaries ever open at once) and reused through a free list. The handler only loads and
// unlinks. A name taken out of its slot while the handler may run is leaked, not freed, so the
// handler never reads freed memory; `dying` says so.
//
// A temporary is registered before its file is created, its slot marked with the creating
// thread (`creator`) until the creation has ended, and the creation given up when a handler has
// started (`dying`, read after the mark). A handler sets `dying`, waits until no slot is marked
// by another thread, then removes every name: a creation it did not wait for either had not
// begun (and sees `dying`) or ended with its name registered. A creation on the handler's own
// thread is not waited for: that thread runs no further (the handler ends the process), so it
// makes no file after the handler's removals. Nothing here blocks signals: no system call per
// temporary.
struct SignalSlot {
    std::atomic<char*> name{nullptr}; // the temporary's name in dir_fd, else its path
    std::atomic<int> dir_fd{-1};      // the directory it is in, held open; -1: by path
    std::atomic<pid_t> creator{0};    // the thread creating its file now; 0: none
    SignalSlot* next = nullptr;       // set before the slot is published, never changed
};

namespace {

std::atomic<SignalSlot*> signal_slots{nullptr};
std::atomic<bool> dying{false};
std::mutex free_slots_mutex;
std::vector<SignalSlot*>* free_slots = nullptr; // under free_slots_mutex

constexpr int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

pid_t thread_id() {
    return static_cast<pid_t>(::syscall(SYS_gettid));
}

SignalSlot* register_temp(const char* name, int dir_fd, pid_t creator) {
    const std::size_t size = std::strlen(name) + 1;
    char* copy = new char[size];
    std::memcpy(copy, name, size);
    SignalSlot* slot = nullptr;
    {
        std::lock_guard<std::mutex> lock(free_slots_mutex);
        if (free_slots != nullptr && !free_slots->empty()) {
            slot = free_slots->back();
            free_slots->pop_back();
        } else {
            slot = new SignalSlot;
            slot->next = signal_slots.load();
            signal_slots.store(slot);
        }
    }
    slot->creator.store(creator);
    slot->dir_fd.store(dir_fd);
    slot->name.store(copy);
    return slot;
}

} // namespace

SignalSlot* begin_temp_creation(const char* name, int dir_fd) {
    thread_local const pid_t this_thread = thread_id(); // one system call per thread
    SignalSlot* slot = register_temp(name, dir_fd, this_thread);
    if (dying.load()) {
        end_temp_creation(slot);
        unregister_temp(slot);
        return nullptr;
    }
    return slot;
}

void end_temp_creation(SignalSlot* slot) {
    slot->creator.store(0);
}

void unregister_temp(void* registration) {
    auto* slot = static_cast<SignalSlot*>(registration);
    char* name = slot->name.exchange(nullptr);
    if (!dying.load()) {
        delete[] name;
    }
    std::lock_guard<std::mutex> lock(free_slots_mutex);
    if (free_slots == nullptr) {
        free_slots = new std::vector<SignalSlot*>;
    }
    free_slots->push_back(slot);
}

namespace {

// Whether a thread other than `self` is creating a temporary.
bool creating_elsewhere(pid_t self) {
    for (SignalSlot* slot = signal_slots.load(); slot != nullptr; slot = slot->next) {
        const pid_t creator = slot->creator.load();
        if (creator != 0 && creator != self) {
            return true;
        }
    }
    return false;
}

extern "C" void remove_temps_and_die(int sig) {
    dying.store(true);
    // Creations under way on other threads end in a few system calls: waited for (up to about
    // 5 s, should one hang on a file system that does not answer), so that their files are
    // registered.
    const pid_t self = thread_id();
    for (int waited = 0; creating_elsewhere(self) && waited < 50000; ++waited) {
        timespec pause{0, 100000};
        ::nanosleep(&pause, nullptr);
    }
    for (SignalSlot* slot = signal_slots.load(); slot != nullptr; slot = slot->next) {
        if (char* name = slot->name.load()) {
            const int dir_fd = slot->dir_fd.load();
            if (dir_fd >= 0) {
                ::unlinkat(dir_fd, name, 0);
            } else {
                ::unlink(name);
            }
        }
    }
    // SA_RESETHAND made the action the default one: delivered when the handler returns.
    ::raise(sig);
}

} // namespace

void install_temp_removal() {
    struct sigaction action {};
    action.sa_handler = remove_temps_and_die;
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int sig : handled_signals) {
        sigaddset(&action.sa_mask, sig);
    }
    for (int sig : handled_signals) {
        struct sigaction old {};
        // A signal ignored when we start (nohup, a caller's choice) stays ignored.
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) {
            ::sigaction(sig, &action, nullptr);
        }
    }
}

} // namespace sdscprov::detail
