#pragma once
// The temporaries a signal handler removes (private to write/): their registration, the creation
// of each, and the handlers themselves.

#include <csignal>

namespace sdscprov::detail {

struct SignalSlot;

// Registers the temporary `name` (in the directory `dir_fd` held open, or a path when -1), about
// to be created by this thread, for the handlers to remove: from here until end_temp_creation()
// a handler that starts on another thread waits for the creation to end, so that the file it
// makes is removed too. nullptr when a handler has started: nothing may be created then.
// No system call and no signal mask: the handlers tell this thread's creations from the others'.
SignalSlot* begin_temp_creation(const char* name, int dir_fd);
// The creation begun with `slot` has ended: its file exists, or was not made (then the slot is
// given back to unregister_temp next).
void end_temp_creation(SignalSlot* slot);
// The slot of a temporary whose name is gone (removed) or renamed.
void unregister_temp(void* registration);

// SIGINT, SIGTERM, SIGHUP and SIGPIPE remove every registered temporary, then end the process as
// the signal would have; a signal ignored when we start stays ignored.
void install_temp_removal();

} // namespace sdscprov::detail
