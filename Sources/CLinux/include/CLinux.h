// Linux calls the Glibc module does not import (epoll, eventfd, pidfd, pipe sizes, thread names, CPU affinity),
// wrapped in small functions so Swift never handles the packed `struct epoll_event` or `_GNU_SOURCE` macros itself.
#ifndef CLINUX_H
#define CLINUX_H

#include <stdint.h>

/// epoll_create1(EPOLL_CLOEXEC).
int clinux_epoll_create(void);
/// epoll_ctl with an event mask and a 64-bit identifier; `op` is one of the CLINUX_EPOLL_CTL_* values.
int clinux_epoll_ctl(int epoll, int op, int descriptor, uint32_t events, uint64_t identifier);
/// epoll_wait storing the identifiers of up to `capacity` (at most 64) ready registrations.
int clinux_epoll_wait(int epoll, uint64_t *identifiers, int capacity, int timeout_ms);
/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK).
int clinux_eventfd(void);
/// pidfd_open(pid, 0) through syscall(2) (Glibc's module does not import it): a descriptor that becomes readable
/// once the process exited; -1 with errno ESRCH when no such process exists (reaped, or never was).
int clinux_pidfd_open(int pid);
/// pipe2(ends, O_CLOEXEC): a pipe whose two ends a spawned child does not inherit unless dup2 gives it one.
int clinux_pipe_cloexec(int ends[2]);
/// fcntl(F_GETPIPE_SZ): a pipe's capacity in bytes, or -1 for other descriptors.
int clinux_pipe_capacity(int descriptor);
/// futex(FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG): sleeps while `*word == expected`, until woken or until the
/// absolute CLOCK_MONOTONIC time `deadline_ns` (UINT64_MAX: no deadline). Returns 0 when woken, -1 with errno
/// EAGAIN (the word differed), ETIMEDOUT or EINTR otherwise.
int clinux_futex_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns);
/// futex(FUTEX_WAKE | FUTEX_PRIVATE_FLAG): wakes up to `count` threads sleeping on `word`; returns how many woke.
int clinux_futex_wake(uint32_t *word, int count);
/// A spin-wait hint to the core (x86 PAUSE), inlined into the caller.
static inline void clinux_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
/// Thread-local pointer slots for the engines' per-thread records (`ThreadLocal` in Swift): reading one is a load
/// from the thread's own block, inlined into the caller, where `pthread_getspecific` is a call of about 17
/// instructions. The slots do not own what they point to; a pthread key's destructor frees it and clears the slot.
#define CLINUX_THREAD_SLOTS 8
extern __thread void *clinux_thread_slots[CLINUX_THREAD_SLOTS];
/// The pointer in slot `index` (below CLINUX_THREAD_SLOTS) for the calling thread, or NULL.
static inline void *clinux_thread_slot(int index) { return clinux_thread_slots[index]; }
/// Sets slot `index` for the calling thread.
static inline void clinux_set_thread_slot(int index, void *value) { clinux_thread_slots[index] = value; }
/// The calling thread's kernel id (gettid).
int clinux_thread_id(void);
/// Names the calling thread (at most 15 characters are kept).
void clinux_set_thread_name(const char *name);
/// Whether the calling thread is the process's main thread (its thread id is the process id).
int clinux_is_main_thread(void);
/// sched_setaffinity(0, ...): the calling thread (and the children it starts) runs on CPU `cpu` only. 0, or -1 with
/// errno.
int clinux_pin_thread(int cpu);
/// sched_getaffinity(0, ...): stores up to `capacity` CPUs the calling thread may run on, in order, and returns how
/// many it stored, or -1 with errno.
int clinux_allowed_cpus(int *cpus, int capacity);
/// sched_setaffinity(0, ...): the calling thread may run on the `count` CPUs of `cpus` (undoes `clinux_pin_thread`
/// with what `clinux_allowed_cpus` stored before). 0, or -1 with errno.
int clinux_allow_cpus(const int *cpus, int count);

// libdispatch's hooks for a run loop that owns the main thread, exported for CoreFoundation's run loop (its
// private.h): an eventfd that becomes readable when the main queue has work, and the call that drains the main queue
// on the main thread. Declared here because no public header carries them.
/// The main queue's wake-up descriptor (an eventfd on Linux).
extern int _dispatch_get_main_queue_handle_4CF(void);
/// Runs the blocks on the main queue; only on the main thread, and only while dispatch_main() was never called.
extern void _dispatch_main_queue_callback_4CF(void *message);

/// Retains and releases a libdispatch object (the `dispatch_data_t` and `dispatch_io_t` the system engine holds).
/// Both are exported by libdispatch but marked unavailable in Swift, whose overlay counts references through its own
/// classes; the system engine's data and channel wrappers call the C functions directly. (The transparent union they
/// take is one pointer.)
extern void dispatch_retain(void *object);
extern void dispatch_release(void *object);

/// Writes the code-coverage counts of a build instrumented for coverage (`-profile-generate`) now, as `exit` would:
/// for a process about to end by `_exit`. Does nothing in any other build.
void clinux_write_coverage(void);

enum {
    CLINUX_EPOLL_CTL_ADD = 1,
    CLINUX_EPOLL_CTL_DEL = 2,
    CLINUX_EPOLL_CTL_MOD = 3,
    CLINUX_EPOLLIN = 0x001,
    CLINUX_EPOLLOUT = 0x004,
    CLINUX_EPOLLONESHOT = 1u << 30,
};


// The Swift concurrency runtime's hook variables (ConcurrencyHooks.def), referenced by name so that the linker finds
// them wherever the runtime is: libswift_Concurrency.so, or linked into the executable (--static-swift-stdlib), where
// dlsym cannot see them. Each returns the variable's address; the variables hold C function pointers.
void **clinux_swift_enqueue_global_hook(void);
void **clinux_swift_enqueue_global_with_delay_hook(void);
void **clinux_swift_enqueue_global_with_deadline_hook(void);
void **clinux_swift_enqueue_main_executor_hook(void);

#endif
