#pragma once
// The temporaries a signal handler removes (private to write/): their registration, the window
// in which one is created, and the handlers themselves.

#include <csignal>

namespace sdscprov::detail {

struct SignalSlot;

// Registers the temporary `name` (in the directory `dir_fd` held open, or a path when -1) for the
// handlers to remove; the result is given back to unregister_temp once the name is gone or renamed.
SignalSlot* register_temp(const char* name, int dir_fd);
void unregister_temp(void* registration);

// The creation of one temporary, as the signal handlers see it: the handled signals blocked on
// this thread, and counted in, from before its name is registered until its file exists (or
// failed to be made). `interrupted()`: a handler has started, nothing may be created.
class CreationWindow {
public:
    CreationWindow();
    ~CreationWindow();
    CreationWindow(const CreationWindow&) = delete;
    CreationWindow& operator=(const CreationWindow&) = delete;
    bool interrupted() const { return interrupted_; }

private:
    sigset_t old_mask_{};
    bool interrupted_ = false;
};

// SIGINT, SIGTERM, SIGHUP and SIGPIPE remove every registered temporary, then end the process as
// the signal would have; a signal ignored when we start stays ignored.
void install_temp_removal();

} // namespace sdscprov::detail
