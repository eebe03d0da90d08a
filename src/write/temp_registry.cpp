#include "write/temp_registry.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <pthread.h>
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
// A temporary is registered and created in one step that the handlers wait for (`creating`):
// the creating thread blocks the handled signals meanwhile (so no handler runs on it), counts
// itself in, and gives up when a handler has started (`dying`); a handler that starts first
// waits until every creation under way has its file registered, then removes them all.
struct SignalSlot {
    std::atomic<char*> name{nullptr}; // the temporary's name in dir_fd, else its path
    std::atomic<int> dir_fd{-1};      // the directory it is in, held open; -1: by path
    SignalSlot* next = nullptr;       // set before the slot is published, never changed
};

namespace {

std::atomic<SignalSlot*> signal_slots{nullptr};
std::atomic<bool> dying{false};
std::atomic<int> creating{0};
std::mutex free_slots_mutex;
std::vector<SignalSlot*>* free_slots = nullptr; // under free_slots_mutex

constexpr int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

} // namespace

SignalSlot* register_temp(const char* name, int dir_fd) {
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
    slot->dir_fd.store(dir_fd);
    slot->name.store(copy);
    return slot;
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

CreationWindow::CreationWindow() {
    sigset_t handled;
    sigemptyset(&handled);
    for (int sig : handled_signals) {
        sigaddset(&handled, sig);
    }
    ::pthread_sigmask(SIG_BLOCK, &handled, &old_mask_);
    creating.fetch_add(1);
    interrupted_ = dying.load();
}

CreationWindow::~CreationWindow() {
    creating.fetch_sub(1);
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

namespace {

extern "C" void remove_temps_and_die(int sig) {
    dying.store(true);
    // Creations under way end in a few system calls: waited for (up to about 5 s, should one
    // hang on a file system that does not answer), so that their files are registered.
    for (int waited = 0; creating.load() != 0 && waited < 50000; ++waited) {
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
